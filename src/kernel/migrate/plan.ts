import type { DbProvider } from '../generate/prisma-schema.js';
import { upgradePlan, type ChainApp } from './chains.js';
import { draftRewinds, replacementsOf } from './drafts.js';
import type { UpgradePlan } from './upgrade.js';

type AppRoot = Pick<ChainApp, 'name' | 'root'>;

/**
 * What a tenant is brought to, for the kernel and for `fw migrate upgrade` alike: the active apps'
 * chains (kernel first, load order), the shared chain and baseline of older tenants (over every
 * app of the project, listed only when needed), and the real migrations that replace fw dev's drafts.
 * Under fw dev (`dev`), drafts a tenant applied that left the chain are undone first.
 */
export function tenantPlan(
  fwRoot: string, active: readonly AppRoot[], provider: DbProvider, allApps: () => Promise<readonly AppRoot[]>,
  dev?: { apps: readonly ChainApp[]; dataDir: string; say?: (line: string) => void },
): UpgradePlan {
  return {
    ...upgradePlan(fwRoot, active, provider, allApps),
    replacements: () => replacementsOf(active, provider),
    ...(dev ? { rewinds: draftRewinds(dev.apps, dev.dataDir, provider, dev.say) } : {}),
  };
}
