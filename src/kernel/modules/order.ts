import type { AppManifest } from '../app.js';
import { BootError } from '../errors.js';
import { checkWebManifest } from './web-manifest.js';

const MANIFEST_KEYS: (keyof AppManifest)[] = ['name', 'summary', 'description', 'author', 'category', 'version', 'depends', 'data'];
/** Keys a manifest may have on top of the spec's (src/kernel/app.ts says what each holds). */
const OPTIONAL_KEYS: (keyof AppManifest)[] = ['web', 'groups'];

export function checkManifest(m: AppManifest, where: string): void {
  for (const k of MANIFEST_KEYS) {
    if (!(k in m)) throw new BootError(`${where}: manifest lacks "${k}" (keys: ${MANIFEST_KEYS.join(', ')})`);
  }
  for (const k of Object.keys(m)) {
    if (![...MANIFEST_KEYS, ...OPTIONAL_KEYS].includes(k as keyof AppManifest)) throw new BootError(`${where}: unknown manifest key "${k}"`);
  }
  if (!Array.isArray(m.depends) || !Array.isArray(m.data)) throw new BootError(`${where}: depends and data must be lists`);
  if (!/^\d+(\.\d+)*$/.test(m.version)) throw new BootError(`${where}: version "${m.version}" must be dotted numbers`);
  checkWebManifest(m, where);
  if (m.groups !== undefined && (!Array.isArray(m.groups) || m.groups.some((g) => !g || typeof g !== 'object' || (g.implies !== undefined && !Array.isArray(g.implies))))) {
    throw new BootError(`${where}: groups must be a list of { name, label, implies?, role? }`, undefined, 'GROUP_INVALID');
  }
}

export interface ActivePlan {
  /** Foundation apps in ACTIVE_MODULES order. */
  foundation: string[];
  /** Domain → its ACTIVE_MODULES, in ACTIVE_DOMAINS order. */
  domains: Array<{ domain: string; apps: string[] }>;
}

/**
 * Load order of the active apps: foundation first in the listed order, then each listed domain's
 * apps, each after its dependencies. Fails on an app that is unknown, a dependency that is not
 * active, a cycle, or (with `strictListOrder`, as for ACTIVE_MODULES) an app listed before one of
 * its dependencies — which is how "connectors must come before storage" is enforced.
 */
export function orderApps(manifests: ReadonlyMap<string, AppManifest>, plan: ActivePlan, strictListOrder = true): string[] {
  const requested: string[] = [];
  for (const name of plan.foundation) {
    if (name.includes('.')) throw new BootError(`ACTIVE_MODULES: "${name}" is a domain app; list it in its domain's ACTIVE_MODULES`);
    requested.push(name);
  }
  for (const { domain, apps } of plan.domains) {
    for (const name of apps) {
      if (!name.startsWith(`${domain}.`)) throw new BootError(`domain ${domain}: app "${name}" must be named ${domain}.<app>`);
      requested.push(name);
    }
  }
  const active = new Set(requested);
  for (const name of requested) {
    if (!manifests.has(name)) throw new BootError(`app "${name}" is listed as active but no such app exists`);
  }
  if (strictListOrder) {
    requested.forEach((name, i) => {
      for (const dep of manifests.get(name)!.depends) {
        const j = requested.indexOf(dep);
        if (j > i) throw new BootError(`ACTIVE_MODULES: ${dep} must come before ${name}, which depends on it`);
      }
    });
  }

  const ordered: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, trail: string[]): void => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      throw new BootError(`dependency cycle: ${[...trail.slice(trail.indexOf(name)), name].join(' → ')}`);
    }
    state.set(name, 'visiting');
    for (const dep of manifests.get(name)!.depends) {
      if (!manifests.has(dep)) throw new BootError(`app ${name} depends on unknown app "${dep}"`);
      if (!active.has(dep)) throw new BootError(`app ${name} depends on "${dep}", which is not active`);
      if (dep.includes('.') && !name.includes('.')) {
        throw new BootError(`foundation app ${name} cannot depend on domain app ${dep}`);
      }
      visit(dep, [...trail, name]);
    }
    state.set(name, 'done');
    ordered.push(name);
  };
  for (const name of requested) visit(name, []);
  return ordered;
}
