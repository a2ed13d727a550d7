/**
 * Tenancy: one database per tenant (a SQLite file under DATA_DIR, or a PostgreSQL database
 * `<PG_DATABASE_PREFIX><tenant>`), created on first use; tenants never see each other's data.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onQuery } from '../../src/kernel/db/clients.ts';
import { checkTenantKey } from '../../src/kernel/db/tenants.ts';
import { systemPrincipal, type RootDbClient } from '../../src/kernel/env.ts';
import { listPostgresDatabases } from '../../src/kernel/migrate/runner.ts';
import { adminPrincipal, bootTestKernel, expectFwError, PG_URL, PROVIDERS, waitFor, withPgClient, type TestKernel } from '../helpers/kernel.ts';

type Page = { items: Array<Record<string, unknown> & { id: string }> };

describe.each(PROVIDERS)('tenants on %s', (provider) => {
  let tk: TestKernel;
  const A = 'acme';
  const B = 'big-co';
  const search = (tenant: string, payload: Record<string, unknown>) => tk.kernel.dispatch<Page>('fw.search', payload, adminPrincipal(tenant));

  beforeAll(async () => {
    tk = await bootTestKernel({ provider });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('two tenants have separate data: a record created in one is invisible in the other', async () => {
    const org = await tk.kernel.dispatch<{ id: string }>('fw.create', { model: 'res.organization', values: { name: 'Only in acme', code: 'only-acme' } }, adminPrincipal(A));
    await tk.kernel.dispatch('fw.create', { model: 'crm.lead', values: { name: 'Acme lead', organization: org.id } }, adminPrincipal(A));
    expect((await search(A, { model: 'res.organization', domain: [['code', '=', 'only-acme']] })).items).toHaveLength(1);
    expect((await search(B, { model: 'res.organization', domain: [['code', '=', 'only-acme']] })).items).toHaveLength(0);
    expect(await tk.kernel.dispatch('fw.count', { model: 'crm.lead' }, adminPrincipal(B))).toEqual({ count: 0 });
    await expectFwError(tk.kernel.dispatch('fw.read_one', { model: 'res.organization', id: org.id }, adminPrincipal(B)), 404, 'RECORD_NOT_FOUND');
  });

  it('unique values are unique per tenant: both tenants may use the same organization code', async () => {
    for (const t of [A, B]) {
      await tk.kernel.dispatch('fw.create', { model: 'res.organization', values: { name: `Shared ${t}`, code: 'shared' } }, adminPrincipal(t));
    }
    expect((await search(A, { model: 'res.organization', domain: [['code', '=', 'shared']] })).items.map((o) => o.name)).toEqual([`Shared ${A}`]);
    expect((await search(B, { model: 'res.organization', domain: [['code', '=', 'shared']] })).items.map((o) => o.name)).toEqual([`Shared ${B}`]);
  });

  it('each tenant is seeded on its own: its own admin, default organization and countries', async () => {
    const admins = await Promise.all([A, B].map((t) => search(t, { model: 'res.user', domain: [['role', '=', 'admin']] })));
    expect(admins.map((r) => r.items.length)).toEqual([1, 1]);
    expect(admins[0].items[0].id).not.toBe(admins[1].items[0].id);
    for (const t of [A, B]) expect(await tk.kernel.dispatch('fw.count', { model: 'res.country' }, systemPrincipal(t))).toEqual({ count: 250 });
  });

  it('every tenant has its own database: a SQLite file under DATA_DIR/tenants or a PostgreSQL database <prefix><tenant>', async () => {
    if (provider === 'sqlite') {
      for (const t of [A, B]) expect(fs.existsSync(tk.kernel.tenants.sqliteFile(t))).toBe(true);
      expect(tk.kernel.tenants.sqliteFile(B)).toBe(`${tk.dataDir}/tenants/big-co.db`);
    } else {
      expect(await listPostgresDatabases(PG_URL, tk.pgPrefix)).toEqual([`${tk.pgPrefix}acme`, `${tk.pgPrefix}big_co`]);
    }
  });

  it('a seeded tenant opened by another process serves reads without building a Prisma client: every statement is a compiled read', async () => {
    await search(A, { model: 'res.organization' });
    const other = await bootTestKernel({ provider, dataDir: tk.dataDir, pgPrefix: tk.pgPrefix });
    try {
      const seen: string[] = [];
      const off = onQuery((e) => seen.push(e.query));
      const page = await other.kernel.dispatch<Page>('fw.search', { model: 'res.organization', limit: 5 }, adminPrincipal(A));
      off();
      expect(page.items.length).toBeGreaterThan(0);
      // on open the ir.module check and the outbox check, then the search itself; the compiled
      // reads all select from "<table>" as "t0", Prisma's statements look different
      expect(seen.length).toBeGreaterThanOrEqual(3);
      for (const q of seen) expect(q).toMatch(/^select .* from "[a-z_]+" as "t0"/);
      // a write builds the client on first use, and later reads still see it
      await other.kernel.dispatch('fw.create', { model: 'res.organization', values: { name: 'Written later', code: 'written-later' } }, adminPrincipal(A));
      expect((await search(A, { model: 'res.organization', domain: [['code', '=', 'written-later']] })).items).toHaveLength(1);
    } finally {
      await other.cleanup();
    }
  });

  it.runIf(provider === 'postgresql')('pooled connections the server terminates are replaced: the next read works and nothing crashes', async () => {
    await search(A, { model: 'res.organization', limit: 1 });
    // another process that only reads the tenant, so its Prisma client (and the adapter's own
    // pool error listener) never exists
    const other = await bootTestKernel({ provider, dataDir: tk.dataDir, pgPrefix: tk.pgPrefix });
    try {
      const read = () => other.kernel.dispatch<Page>('fw.search', { model: 'res.organization', limit: 1 }, adminPrincipal(A));
      await read();
      const r = await withPgClient(PG_URL, (admin) => admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [tk.kernel.tenants.pgDatabase(A)],
      ));
      expect(r.rowCount).toBeGreaterThan(0);
      await waitFor(async () => (await read()).items.length === 1, 'a read after the terminations');
    } finally {
      await other.cleanup();
    }
  });

  it('a client TenantDatabases did not open has no reader: asking for one is a programming error', async () => {
    expect(tk.kernel.tenants.readerFor(await tk.kernel.tenants.get(A))).toBeDefined();
    expect(() => tk.kernel.tenants.readerFor({} as RootDbClient)).toThrow(/not opened by TenantDatabases/);
  });

  it('the tenant list names every tenant created so far, sorted', async () => {
    expect(await tk.kernel.tenants.list()).toEqual([A, B]);
    expect(await tk.kernel.tenants.exists(B)).toBe(true);
    expect(await tk.kernel.tenants.exists('nobody')).toBe(false);
  });

  it.each(['Acme', 'a_b', '-acme', 'acme-', 'a--b', '', 'a'.repeat(41), '../etc', 'tenant 1', 'ümlaut'])('the tenant key %j is refused with 400 INVALID_TENANT and creates nothing', async (key) => {
    await expectFwError(tk.kernel.dispatch('fw.count', { model: 'res.country' }, systemPrincipal(key)), 400, 'INVALID_TENANT');
    expect(await tk.kernel.tenants.list()).toEqual([A, B]);
  });
});

describe('tenant keys', () => {
  it.each(['a', 'acme', 'big-co', 'x1-y2-z3', 'a'.repeat(40)])('%s is a valid tenant key (lowercase letters, digits, single inner hyphens, ≤ 40)', (key) => {
    expect(checkTenantKey(key)).toBe(key);
  });
});
