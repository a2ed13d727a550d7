import { createRegistry } from '../kernel.js';
import { loadAllApps, type ProjectLayout } from '../modules/loader.js';
import type { Registry } from '../registry/registry.js';

/** The registry of every app in the project, active or not: what the database schema covers. */
export async function fullRegistry(layout: ProjectLayout): Promise<Registry> {
  return createRegistry(await loadAllApps(layout));
}
