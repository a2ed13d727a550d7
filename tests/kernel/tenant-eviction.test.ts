/**
 * Open tenant connections are bounded by TENANT_CACHE_MAX: a connection evicted from the LRU
 * closes as soon as no command holds it, and one that a command still holds stays open until
 * that command ends. Churn through many tenants never piles up open databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { adminPrincipal, bootTestKernel, PROVIDERS, type TestKernel } from '../helpers/kernel.ts';

const nextTurn = () => new Promise<void>((r) => setImmediate(r));
const count = (tk: TestKernel, tenant: string) => tk.kernel.dispatch<{ count: number }>('fw.count', { model: 'res.country' }, adminPrincipal(tenant));

describe.each(PROVIDERS)('tenant eviction on %s', (provider) => {
  let tk: TestKernel;
  beforeAll(async () => {
    tk = await bootTestKernel({ provider, settings: { TENANT_CACHE_MAX: '2' } });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('opening more tenants than TENANT_CACHE_MAX closes the evicted ones on the next turn', async () => {
    for (const t of ['ev-a', 'ev-b', 'ev-c', 'ev-d', 'ev-e']) expect(await count(tk, t)).toEqual({ count: 250 });
    await nextTurn();
    expect(tk.kernel.tenants.openConnections()).toBe(2);
    expect(tk.kernel.tenants.openTenants().sort()).toEqual(['ev-d', 'ev-e']);
  });

  it('a connection evicted while a command holds it stays open until the command ends, then closes', async () => {
    const client = await tk.kernel.tenants.get('held');
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    const running = tk.kernel.execute(client, systemPrincipal('held'), async (env) => {
      await released;
      // the reader and Prisma both still answer after the eviction
      const n = await env.dispatch<{ count: number }>('fw.count', { model: 'res.country' });
      await env.sudo().dispatch('fw.create', { model: 'res.organization', values: { name: 'Written after eviction' } });
      return n;
    }, true);
    for (const t of ['ev-f', 'ev-g']) await count(tk, t);
    await nextTurn();
    expect(tk.kernel.tenants.openTenants()).not.toContain('held');
    expect(tk.kernel.tenants.openConnections()).toBe(3);
    release();
    expect(await running).toEqual({ count: 250 });
    await nextTurn();
    expect(tk.kernel.tenants.openConnections()).toBe(2);
    // nothing was lost: the tenant reopens with the row the held command wrote
    const orgs = await tk.kernel.dispatch<{ items: Array<{ name: string }> }>('fw.search', { model: 'res.organization', domain: [['name', '=', 'Written after eviction']] }, adminPrincipal('held'));
    expect(orgs.items).toHaveLength(1);
  });
});
