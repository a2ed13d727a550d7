import type { AccessOp, RecordRule } from './declare.js';
import type { Principal } from './env.js';
import { AccessDenied } from './errors.js';
import type { ResolvedField, ResolvedModel } from './registry/model.js';

const LETTER: Record<AccessOp, string> = { create: 'c', read: 'r', update: 'u', delete: 'd' };

const isSystem = (p: Principal) => p.kind === 'system';

/** Role-based access: the role's letters on the model, else the `*` entry, else nothing. */
export function canAccess(model: ResolvedModel, principal: Principal, op: AccessOp): boolean {
  if (isSystem(principal)) return true;
  const roles = model.access.roles;
  const letters = roles[principal.role] ?? roles['*'] ?? '';
  return letters.includes(LETTER[op]);
}

export function checkAccess(model: ResolvedModel, principal: Principal, op: AccessOp): void {
  if (!canAccess(model, principal, op)) {
    throw new AccessDenied(`role "${principal.role}" may not ${op} ${model.key}`, { model: model.key, op, role: principal.role });
  }
}

export function canReadField(model: ResolvedModel, field: ResolvedField, principal: Principal): boolean {
  if (field.private) return isSystem(principal) ? true : false;
  if (isSystem(principal)) return true;
  const rule = model.access.fields[field.name]?.read;
  return !rule || rule.includes(principal.role);
}

export function canWriteField(model: ResolvedModel, field: ResolvedField, principal: Principal): boolean {
  if (isSystem(principal)) return true;
  const rule = model.access.fields[field.name]?.write;
  return !rule || rule.includes(principal.role);
}

/**
 * Record rules that apply to this principal and operation (all of them must hold). A rule
 * without `roles` binds every role but admin; system principals are never restricted.
 * `src/kernel/data/rules.ts` compiles them, following references where a rule says so.
 */
export function rulesFor(model: ResolvedModel, principal: Principal, op: AccessOp): RecordRule[] {
  if (isSystem(principal)) return [];
  return model.access.rules.filter((rule) => {
    const roles = rule.roles ?? null;
    const applies = roles ? roles.includes(principal.role) : principal.role !== 'admin';
    return applies && (!rule.ops || rule.ops.includes(op));
  });
}

/** Values for `$principal.<name>` placeholders in rule and view domains. */
export function principalPlaceholder(principal: Principal): (name: string) => unknown {
  return (name) => {
    if (!name.startsWith('principal.')) return undefined;
    const key = name.slice('principal.'.length) as keyof Principal;
    return key in principal ? (principal[key] ?? null) : undefined;
  };
}
