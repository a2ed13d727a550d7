/**
 * Read results are kept per open tenant and served again only while nothing has been committed
 * to the database since (SQLite: PRAGMA data_version on the read connection; PostgreSQL: the
 * server's snapshot): a write through the kernel, or by any other connection or process, makes
 * the next read run again.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/kernel/env.ts';
import { adminPrincipal, bootTestKernel, PROVIDERS, userPrincipal, waitFor, withPgClient, type TestKernel } from '../../helpers/kernel.ts';
import { registerSortKey } from '../../../src/kernel/data/collation.ts';

type Page = { items: Array<Record<string, unknown> & { id: string }>; total?: number };

describe.each(PROVIDERS)('the read cache on %s', (provider) => {
  let tk: TestKernel;
  const T = 'readcache';
  const admin = adminPrincipal(T);
  const run = <R = Page>(command: string, payload: Record<string, unknown>, p: Principal = admin) => tk.kernel.dispatch<R>(command, payload, p);
  const stats = async () => tk.kernel.tenants.readerFor(await tk.kernel.tenants.get(T)).stats();
  const names = async (p: Principal = admin) =>
    (await run('fw.search', { model: 'crm.lead', order: 'name asc', count: true }, p)).items.map((r) => r.name);

  beforeAll(async () => {
    tk = await bootTestKernel({ provider });
    await run('fw.create', { model: 'crm.lead', values: { name: 'First' } });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  // On PostgreSQL the check is the cluster's snapshot, so a commit by another test file in the
  // same instant costs a miss: the pair of searches is retried until one runs in a quiet moment.
  it('the same search again is answered from the cache, with equal records', async () => {
    await waitFor(async () => {
      const first = await run('fw.search', { model: 'crm.lead', order: 'name asc', count: true });
      const before = await stats();
      const again = await run('fw.search', { model: 'crm.lead', order: 'name asc', count: true });
      const after = await stats();
      expect(again).toEqual(first);
      return after.hits - before.hits === 2 && after.misses === before.misses; // the page and the count
    }, 'two searches in a row with no commit in between', 20_000);
  });

  it('a write through the kernel makes the next read run again and see it', async () => {
    await names();
    await run('fw.create', { model: 'crm.lead', values: { name: 'Second' } });
    const before = await stats();
    expect(await names()).toEqual(['First', 'Second']);
    expect((await stats()).misses).toBeGreaterThan(before.misses);
  });

  /** A statement run on the tenant's database by a connection outside this process. */
  const elsewhere = async (sql: string) => {
    if (provider === 'sqlite') {
      const other = registerSortKey(new Database(tk.kernel.tenants.sqliteFile(T)));
      other.prepare(sql).run();
      other.close();
      return;
    }
    await withPgClient(tk.kernel.tenants.pgUrl(tk.kernel.tenants.pgDatabase(T)), (other) => other.query(sql));
  };

  it('a commit by another connection to the database (another process) is seen by the next read', async () => {
    expect(await names()).toEqual(['First', 'Second']);
    await elsewhere("update crm_lead set name = 'Renamed elsewhere' where name = 'First'");
    expect(await names()).toEqual(['Renamed elsewhere', 'Second']);
  });

  it('results are kept per query and values: a user under record rules gets only their own', async () => {
    const org = (await run<{ id: string }>('fw.create', { model: 'res.organization', values: { name: 'Rules Org' } })).id;
    await run('fw.create', { model: 'crm.lead', values: { name: 'In org', organization: org } });
    const user = userPrincipal(T, { organization_id: org });
    expect(await names(user)).toEqual(['In org']);
    expect(await names()).toEqual(['In org', 'Renamed elsewhere', 'Second']);
    expect(await names(user)).toEqual(['In org']);
  });

  it('a JSON value from a kept result is a copy: a caller that changes it changes nothing for the next read', async () => {
    await run('fw.create', { model: 'ir.action', values: { name: 'Cached Leads', model_key: 'crm.lead', domain: [['name', '=', 'x']] } });
    const domainOf = async () => (await run('fw.search', { model: 'ir.action', domain: [['name', '=', 'Cached Leads']] })).items[0]!.domain as unknown[][];
    await waitFor(async () => {
      const first = await domainOf();
      first[0]![2] = 'changed by a caller';
      first.push(['more']);
      const before = await stats();
      const again = await domainOf();
      expect(again).toEqual([['name', '=', 'x']]);
      return (await stats()).hits > before.hits; // the second read was served from the cache
    }, 'a search answered from the cache', 20_000);
  });

  it('READ_CACHE_ROWS=0 turns it off: every read runs', async () => {
    const off = await bootTestKernel({ provider, settings: { READ_CACHE_ROWS: '0' } });
    try {
      const p = adminPrincipal('nocache');
      await off.kernel.dispatch('fw.count', { model: 'res.country' }, p);
      await off.kernel.dispatch('fw.count', { model: 'res.country' }, p);
      expect(off.kernel.tenants.readerFor(await off.kernel.tenants.get('nocache')).stats()).toEqual({ hits: 0, misses: 0 });
    } finally {
      await off.cleanup();
    }
  });
});
