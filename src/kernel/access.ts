import type { AccessOp, RecordRule } from './declare.js';
import type { Principal } from './env.js';
import { AccessDenied } from './errors.js';
import type { ResolvedField, ResolvedModel } from './registry/model.js';

const LETTER: Record<AccessOp, string> = { create: 'c', read: 'r', update: 'u', delete: 'd' };

const isSystem = (p: Principal) => p.kind === 'system';

/**
 * The group and role names a principal holds. Dispatch and the session check fill `names`
 * (Registry.groups.namesOf); a principal built by hand holds its role and the groups it lists.
 */
export function namesOf(p: Principal): readonly string[] {
  return p.names ?? [p.role, ...(p.groups ?? [])];
}

/** Whether the principal holds one of `names` (a group, or a role such as `admin`); the system holds all. */
export function holdsAny(p: Principal, names: readonly string[]): boolean {
  if (isSystem(p)) return true;
  const mine = namesOf(p);
  return names.some((n) => mine.includes(n));
}

/** Whether the principal acts as an administrator: the system, or a holder of the `admin` role or a group standing for it. */
export const isAdmin = (p: Principal): boolean => holdsAny(p, ['admin']);

/**
 * Access letters: the union of the entries of every group or role the principal holds, else the
 * `*` entry, else nothing (an entry of '' for a held name means nothing, not `*`).
 */
export function canAccess(model: ResolvedModel, principal: Principal, op: AccessOp): boolean {
  if (isSystem(principal)) return true;
  const roles = model.access.roles;
  const held = namesOf(principal).filter((n) => n in roles && n !== '*');
  const letters = held.length ? held.map((n) => roles[n]).join('') : (roles['*'] ?? '');
  return letters.includes(LETTER[op]);
}

export function checkAccess(model: ResolvedModel, principal: Principal, op: AccessOp): void {
  if (!canAccess(model, principal, op)) {
    // the groups given to the user are named too: "role user" alone read as if they were not checked
    const groups = principal.groups ?? [];
    const holder = `role "${principal.role}"${groups.length ? ` with group${groups.length > 1 ? 's' : ''} ${groups.map((g) => `"${g}"`).join(', ')}` : ''}`;
    throw new AccessDenied(`${holder} may not ${op} ${model.key}`, { model: model.key, op, role: principal.role, ...(groups.length ? { groups } : {}) });
  }
}

export function canReadField(model: ResolvedModel, field: ResolvedField, principal: Principal): boolean {
  if (field.private) return isSystem(principal) ? true : false;
  if (isSystem(principal)) return true;
  const rule = model.access.fields[field.name]?.read;
  return !rule || holdsAny(principal, rule);
}

export function canWriteField(model: ResolvedModel, field: ResolvedField, principal: Principal): boolean {
  if (isSystem(principal)) return true;
  const rule = model.access.fields[field.name]?.write;
  return !rule || holdsAny(principal, rule);
}

/**
 * Record rules that apply to this principal and operation (all of them must hold). A rule
 * without `roles` binds everyone but administrators; a rule with `roles` binds the holders of
 * those groups or roles; system principals are never restricted. `src/kernel/data/rules.ts`
 * compiles them, following references where a rule says so.
 */
export function rulesFor(model: ResolvedModel, principal: Principal, op: AccessOp): RecordRule[] {
  if (isSystem(principal)) return [];
  return model.access.rules.filter((rule) => {
    const roles = rule.roles ?? null;
    const applies = roles ? holdsAny(principal, roles) : !isAdmin(principal);
    return applies && (!rule.ops || rule.ops.includes(op));
  });
}

/** Values for `$principal.<name>` placeholders in rule and view domains. */
export function principalPlaceholder(principal: Principal): (name: string) => unknown {
  return (name) => {
    if (!name.startsWith('principal.')) return undefined;
    const key = name.slice('principal.'.length) as keyof Principal;
    // a principal built without the list (a test's, an app's) belongs to its one organization
    if (key === 'organization_ids' && !principal.organization_ids) return principal.organization_id ? [principal.organization_id] : [];
    return key in principal ? (principal[key] ?? null) : undefined;
  };
}
