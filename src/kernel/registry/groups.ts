import type { GroupDecl } from '../app.js';
import { BootError } from '../errors.js';
import { didYouMean } from './closest.js';

export interface ResolvedGroup extends GroupDecl {
  app: string;
  /** The group and every group it implies, transitively. */
  closure: ReadonlySet<string>;
}

/** Names access may use without a declaration: the system's and an anonymous caller's role, and "everyone". */
const RESERVED = ['*', 'system', 'anonymous'];

/**
 * The groups every active app declares, resolved once at boot: implication closed transitively
 * (a cycle stops the boot), and what a principal holds computed from its role and its own
 * groups. A principal holds names: its role, the groups of that role (a group's `role`), the
 * groups given to the user, everything those imply, and the role names of the groups it holds
 * (a user given `base.admin` counts as `admin` wherever access names the role). Access checks
 * compare names only (src/kernel/access.ts).
 */
export class Groups {
  private readonly cache = new Map<string, readonly string[]>();

  constructor(readonly byName: ReadonlyMap<string, ResolvedGroup>, private readonly roles: ReadonlySet<string>) {}

  /** Every name a principal with this role and these extra groups holds (sorted). */
  namesOf(role: string, extra: readonly string[] = []): readonly string[] {
    const key = `${role}\0${[...extra].sort().join(',')}`;
    let names = this.cache.get(key);
    if (!names) {
      const held = new Set<string>([role]);
      const start = [...extra, ...[...this.byName.values()].filter((g) => g.role === role).map((g) => g.name)];
      for (const name of start) for (const g of this.byName.get(name)?.closure ?? []) held.add(g);
      for (const name of [...held]) {
        const r = this.byName.get(name)?.role;
        if (r) held.add(r);
      }
      names = Object.freeze([...held].sort());
      if (this.cache.size > 1_000) this.cache.clear();
      this.cache.set(key, names);
    }
    return names;
  }

  /**
   * Whether `name` may appear where access names groups or roles: a declared group (dotted), a
   * role of res.user.role, or a reserved name. Without res.user (a registry of fixtures alone)
   * any undotted name passes as a role.
   */
  known(name: string): boolean {
    if (RESERVED.includes(name) || this.byName.has(name)) return true;
    return !name.includes('.') && (this.roles.size === 0 || this.roles.has(name));
  }

  /** A BootError for an unknown name in `where`, with the closest known name. */
  unknown(name: string, where: string): BootError {
    return new BootError(`${where} names unknown group or role "${name}"${didYouMean(name, [...this.byName.keys(), ...this.roles])}`, { name }, 'UNKNOWN_GROUP');
  }
}

/**
 * Resolves the apps' group declarations: names carry the app's prefix (its domain for a domain
 * app), are declared once, imply only declared groups, and implication has no cycle. `roles` are
 * the values of `res.user.role` (legacy roles, also valid wherever access names a group).
 */
export function resolveGroups(apps: ReadonlyArray<{ name: string; domain: string | null; manifest: { groups?: GroupDecl[] } }>, roles: readonly string[]): Groups {
  const decls = new Map<string, GroupDecl & { app: string }>();
  for (const app of apps) {
    const prefix = `${app.domain ?? app.name}.`;
    for (const g of app.manifest.groups ?? []) {
      if (typeof g.name !== 'string' || !g.name.startsWith(prefix) || !/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/.test(g.name)) {
        throw new BootError(`app ${app.name}: group "${String(g.name)}" must be a lower-case dotted name starting with ${prefix}`, { group: g.name }, 'GROUP_INVALID');
      }
      if (!g.label) throw new BootError(`app ${app.name}: group ${g.name} has no label`, { group: g.name }, 'GROUP_INVALID');
      if (decls.has(g.name)) throw new BootError(`group ${g.name} is declared by both ${decls.get(g.name)!.app} and ${app.name}`, { group: g.name }, 'GROUP_INVALID');
      if (g.role !== undefined && !roles.includes(g.role)) {
        throw new BootError(`app ${app.name}: group ${g.name} stands for role "${g.role}", which res.user.role does not have (${roles.join(', ')})`, { group: g.name }, 'GROUP_INVALID');
      }
      decls.set(g.name, { ...g, app: app.name });
    }
  }
  for (const g of decls.values()) {
    for (const i of g.implies ?? []) {
      if (!decls.has(i)) throw new BootError(`app ${g.app}: group ${g.name} implies unknown group "${i}"${didYouMean(i, decls.keys())}`, { group: g.name }, 'UNKNOWN_GROUP');
    }
  }
  const resolved = new Map<string, ResolvedGroup>();
  const closure = (name: string, path: string[]): Set<string> => {
    if (path.includes(name)) throw new BootError(`groups imply each other in a cycle: ${[...path.slice(path.indexOf(name)), name].join(' → ')}`, { cycle: [...path, name] }, 'GROUP_CYCLE');
    const out = new Set<string>([name]);
    for (const i of decls.get(name)!.implies ?? []) for (const n of closure(i, [...path, name])) out.add(n);
    return out;
  };
  for (const g of decls.values()) resolved.set(g.name, { ...g, closure: closure(g.name, []) });
  return new Groups(resolved, new Set(roles));
}
