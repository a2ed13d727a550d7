/**
 * Sort indexes (src/kernel/db/sort-indexes.ts): the text columns of a model's default order are
 * indexed the way lists sort them (SQLite: on `fw_sortkey`; PostgreSQL: in the root collation),
 * so a default-order page is read in index order (on SQLite without one `fw_sortkey` call); writes
 * keep the index right; another key version or default order rebuilds it; a lost one comes back
 * when the tenant is opened or upgraded.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSortKey, SQLITE_SORT_KEY_FUNCTION, sortKeyVersion, sqliteSortKey, textComparator } from '../../../src/kernel/data/collation.ts';
import { compileSearch, type CompiledSql, type SearchQuery } from '../../../src/kernel/data/sql/compile.ts';
import { orderServedByIndex } from '../../../src/kernel/data/sql/index-order.ts';
import { ensureSortIndexes, sortIndexesOf } from '../../../src/kernel/db/sort-indexes.ts';
import type { SchemaTarget } from '../../../src/kernel/migrate/upgrade.ts';
import type { ResolvedModel } from '../../../src/kernel/registry/model.ts';
import { adminPrincipal, bootTestKernel, PROVIDERS, withPgClient, type TestKernel } from '../../helpers/kernel.ts';

const T = 'sortidx';
const ROOT = path.resolve(import.meta.dirname, '../../..');
const MODULES = 'base,auth,presentation,connectors,storage';

/** `fw <args>` in a process of its own, as an operator runs it; resolves with its exit code and stderr. */
function fw(env: Record<string, string>, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'src', 'cli.ts'), ...args], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...env },
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}
const NAMES = ['Zeta', 'Åland Trading', 'albania export', 'Albania Export', 'Œuvre', 'oeuvre', 'Émile', 'emile', 'Bravo', '_under', '42 Labs'];

describe.each(PROVIDERS)('sort indexes on %s', (provider) => {
  let tk: TestKernel;
  let target: SchemaTarget;
  const admin = adminPrincipal(T);
  const model = (key: string): ResolvedModel => tk.kernel.registry.models.get(key)!;
  const orgIndex = () => sortIndexesOf([model('res.organization')], provider)[0]!;
  const allIndexes = () => sortIndexesOf(tk.kernel.registry.models.values(), provider);
  /** Statements on the tenant's database (its own connection; SQLite's has fw_sortkey). */
  const query = async (sqlText: string, params: readonly unknown[] = []): Promise<Array<Record<string, unknown>>> => {
    if (target.provider === 'postgresql') return withPgClient(target.url, async (c) => (await c.query(sqlText, [...params])).rows);
    const db = registerSortKey(new Database(target.file, { timeout: 10_000 }));
    try {
      const st = db.prepare(sqlText);
      return (st.reader ? st.all(...params) : (st.run(...params), [])) as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  };
  const indexNames = async () => (provider === 'sqlite'
    ? await query("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'fw\\_sk\\_%' ESCAPE '\\'")
    : await query("SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND starts_with(indexname, 'fw_sk_')"))
    .map((r) => String(r.name)).sort();
  const names = async (order?: string) => (await tk.kernel.dispatch<{ items: Array<{ name: string }> }>('fw.search', {
    model: 'res.organization', fields: ['name'], limit: 500, ...(order ? { order } : {}),
  }, admin)).items.map((r) => r.name);
  const idOf = async (name: string) => (await tk.kernel.dispatch<{ items: Array<{ id: string }> }>('fw.search', {
    model: 'res.organization', fields: ['name'], limit: 1, domain: [['name', '=', name]],
  }, admin)).items[0]!.id;
  /** Workload 1's statement: a default-order page of organizations with their country joined. */
  const listPage = (): SearchQuery => {
    const org = model('res.organization');
    const country = model('res.country');
    return {
      where: {}, orderBy: [{ name: 'asc' }, { dbid: 'asc' }], take: 5,
      fields: ['record_uuid', 'name', 'code', 'country'].map((n) => org.fields.get(n)!),
      joins: [{ field: 'country', target: country, fields: ['record_uuid', 'name', 'code'].map((n) => country.fields.get(n)!), where: null }],
    };
  };

  beforeAll(async () => {
    // storage's folders are ordered `sequence asc, name asc`
    tk = await bootTestKernel({ provider, settings: { ACTIVE_MODULES: MODULES } });
    await tk.kernel.tenants.get(T);
    target = provider === 'sqlite'
      ? { provider, file: tk.kernel.tenants.sqliteFile(T) }
      : { provider, url: tk.kernel.tenants.pgUrl(tk.kernel.tenants.pgDatabase(T)) };
    for (const name of NAMES) await tk.kernel.dispatch('fw.create', { model: 'res.organization', values: { name } }, admin);
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('a model gets one index on the leading plain columns of its default order up to the last text one, and none without text there', () => {
    const byTable = new Map(allIndexes().map((i) => [i.table, i]));
    expect(byTable.get('res_organization')?.columns).toEqual([{ column: 'name', sortKey: true }]);
    // `sequence asc, name asc`: the number, then the text's key
    expect(byTable.get('storage_folder')?.columns).toEqual([{ column: 'sequence', sortKey: false }, { column: 'name', sortKey: true }]);
    // ordered by a number (expected_revenue): nothing to index
    expect(byTable.has('crm_lead')).toBe(false);
    for (const m of tk.kernel.registry.models.values()) {
      const first = m.defaultOrder[0]!;
      const text = first.field !== 'dbid' && ['char', 'text'].includes(m.fields.get(first.field)?.type ?? '');
      if (text) expect(byTable.get(m.names.table)?.columns[0], m.key).toEqual({ column: first.field, sortKey: true });
      if (!m.defaultOrder.some((o) => ['char', 'text'].includes(m.fields.get(o.field)?.type ?? ''))) expect(byTable.has(m.names.table), m.key).toBe(false);
    }
  });

  it('on SQLite the index name changes with the key version, so keys another ICU or key format built are never read', () => {
    const org = model('res.organization');
    const now = sortIndexesOf([org], provider);
    const other = sortIndexesOf([org], provider, 'another-version');
    expect(now[0]!.name).toMatch(/^fw_sk_res_organization_[0-9a-f]{10}$/);
    expect(other[0]!.name).not.toBe(now[0]!.name);
    if (provider === 'sqlite') expect(sortIndexesOf([org], 'sqlite', sortKeyVersion())[0]!.name).toBe(now[0]!.name);
    // PostgreSQL's collation is the server's: the name does not follow this process's keys
    else expect(sortIndexesOf([org], 'postgresql')[0]!.name).toBe(sortIndexesOf([org], 'postgresql', '')[0]!.name);
  });

  it('an opened tenant has the sort index of each of its models', async () => {
    const present = await indexNames();
    expect(present).toContain(orgIndex().name);
    const wanted = allIndexes().map((i) => i.name);
    for (const name of present) expect(wanted).toContain(name);
  });

  /** SQLite: a statement's plan, its rows, and how many times it called `fw_sortkey`. */
  const sqliteRun = (c: CompiledSql, sqlText = c.sql) => {
    const db = new Database(target.provider === 'sqlite' ? target.file : '', { readonly: true });
    let calls = 0;
    db.function(SQLITE_SORT_KEY_FUNCTION, { deterministic: true }, (v: unknown) => (calls++, sqliteSortKey(v)));
    try {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sqlText}`).all(...c.params) as Array<{ detail: string }>).map((r) => r.detail).join('\n');
      const rows = db.prepare(sqlText).raw(true).all(...c.params);
      return { plan, rows, calls };
    } finally {
      db.close();
    }
  };
  /** SQLite: the page is read in the organizations' sort index, all 5 rows, with no sort key computed (`sorted` must not be in the plan). */
  const expectSqliteIndexRead = (c: CompiledSql, sorted: string) => {
    const { plan, rows, calls } = sqliteRun(c);
    expect(plan).toContain(`USING INDEX ${orgIndex().name}`);
    expect(plan).not.toContain(sorted);
    expect(rows).toHaveLength(5);
    // the keys come from the index
    expect(calls).toBe(0);
  };
  /**
   * PostgreSQL: a statement's plan with sorting priced out. 11 rows are cheaper to sort than to
   * look up, so a plan without a Sort node shows the index serves the order (with a plain index
   * on name it still sorts).
   */
  const pgPlan = (c: CompiledSql) => withPgClient(target.provider === 'postgresql' ? target.url : '', async (client) => {
    await client.query('SET enable_sort = off');
    return (await client.query(`EXPLAIN ${c.sql}`, [...c.params])).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
  });

  it('a default-order page with its joined Reference is read in index order, with no sort', async () => {
    const c = compileSearch(tk.kernel.registry, model('res.organization'), listPage(), provider);
    if (provider === 'sqlite') {
      expectSqliteIndexRead(c, 'TEMP B-TREE');
      // the same statement with the index ruled out computes a key per row
      expect(sqliteRun(c, c.sql.replace('from "res_organization" as "t0"', 'from "res_organization" as "t0" not indexed')).calls).toBeGreaterThanOrEqual(NAMES.length);
    } else {
      const plan = await pgPlan(c);
      expect(plan).toContain(`Index Scan using ${orgIndex().name}`);
      expect(plan).not.toMatch(/\bSort\b/);
    }
  });

  it('a first page in an order an index serves joins its References without a page subquery; an offset or another order keeps it', () => {
    const org = model('res.organization');
    const shape = (q: Partial<SearchQuery>) => (compileSearch(tk.kernel.registry, org, { ...listPage(), ...q }, provider).sql.includes('from (select') ? 'paged' : 'flat');
    expect(shape({})).toBe('flat');
    expect(shape({ where: { code: { equals: 'x' } } })).toBe('flat');
    expect(shape({ orderBy: [{ dbid: 'asc' }] })).toBe('flat');
    expect(shape({ orderBy: [{ dbid: 'desc' }] })).toBe('flat');
    // the index read backwards; a tie-break against the read sorts each group of equal keys alone
    expect(shape({ orderBy: [{ name: 'desc' }, { dbid: 'asc' }] })).toBe('flat');
    expect(shape({ orderBy: [{ name: 'desc' }, { dbid: 'desc' }] })).toBe('flat');
    expect(shape({ orderBy: [{ name: 'asc' }, { dbid: 'desc' }] })).toBe('flat');
    // an offset: the subquery skips rows without joining them
    expect(shape({ skip: 20 })).toBe('paged');
    expect(shape({ skip: 20, orderBy: [{ name: 'desc' }, { dbid: 'asc' }] })).toBe('paged');
    // orders the index does not hand out as they are
    expect(shape({ orderBy: [{ name: 'asc' }] })).toBe('paged');
    expect(shape({ orderBy: [{ code: 'asc' }, { dbid: 'asc' }] })).toBe('paged');
    expect(shape({ orderBy: [{ name: 'asc' }, { code: 'asc' }, { dbid: 'asc' }] })).toBe('paged');
    // a two-column index (`sequence, name`) serves both columns one way, never mixed directions
    const folder = model('storage.folder');
    expect(orderServedByIndex(folder, [{ sequence: 'desc' }, { name: 'desc' }, { dbid: 'asc' }])).toBe(true);
    expect(orderServedByIndex(folder, [{ sequence: 'asc' }, { name: 'asc' }, { dbid: 'desc' }])).toBe(true);
    expect(orderServedByIndex(folder, [{ sequence: 'asc' }, { name: 'desc' }, { dbid: 'asc' }])).toBe(false);
    expect(orderServedByIndex(folder, [{ sequence: 'desc' }, { name: 'asc' }, { dbid: 'desc' }])).toBe(false);
    expect(orderServedByIndex(folder, [{ sequence: 'desc' }, { dbid: 'asc' }])).toBe(false);
  });

  it('a descending first page is read backwards in the index, with no sort key computed and no sort of the whole table', async () => {
    const c = compileSearch(tk.kernel.registry, model('res.organization'), { ...listPage(), orderBy: [{ name: 'desc' }, { dbid: 'asc' }] }, provider);
    expect(c.sql).not.toContain('from (select');
    if (provider === 'sqlite') {
      // only the tie-break is sorted, group by group, as rows are read
      expectSqliteIndexRead(c, 'TEMP B-TREE FOR ORDER BY');
    } else {
      const plan = await pgPlan(c);
      expect(plan).toContain(`Index Scan Backward using ${orgIndex().name}`);
      // an incremental sort of equal names at most, never a sort of every row
      expect(plan).not.toMatch(/(^|->)\s*Sort\s+\(/m);
    }
  });

  it('both statement shapes read the records of the list without References, with each page\'s References', async () => {
    type Found = { items: Array<{ id: string; country: string | null }>; included?: { country?: Array<{ id: string }> } };
    const search = (q: Record<string, unknown>) => tk.kernel.dispatch<Found>('fw.search', {
      model: 'res.organization', fields: ['name', 'code', 'country'], ...q,
    }, admin);
    const countries = (await tk.kernel.dispatch<{ items: Array<{ id: string }> }>('fw.search', { model: 'res.country', fields: ['code'], limit: 3 }, admin)).items;
    // some organizations get a country, so the join has something to find
    for (const [i, name] of ['Zeta', 'Émile', 'Bravo'].entries()) {
      await tk.kernel.dispatch('fw.update', { model: 'res.organization', id: await idOf(name), values: { country: countries[i]!.id } }, admin);
    }
    const include = { country: ['name', 'code'] };
    const referenced = (f: Found) => [...new Set(f.items.map((o) => o.country).filter(Boolean))].sort();
    for (const domain of [[], [['name', 'ilike', 'e']]]) {
      for (const order of [undefined, 'dbid asc', 'dbid desc', 'name desc', 'name desc, dbid desc', 'name asc, dbid desc']) {
        const q = { domain, ...(order ? { order } : {}) };
        const at = `${order} ${JSON.stringify(domain)}`;
        // the whole list, with no join
        const whole = (await search({ ...q, limit: 500 })).items;
        expect(whole.length, at).toBeGreaterThan(8);
        // a first page: one flat join; the pages after it: the page subquery
        for (const [skip, shape] of [[0, 'flat'], [4, 'paged'], [8, 'paged']] as const) {
          const page = await search({ ...q, limit: 4, offset: skip, include });
          expect(page.items, `${at} ${shape}`).toEqual(whole.slice(skip, skip + 4));
          expect(page.included?.country?.map((c) => c.id).sort(), `${at} ${shape}`).toEqual(referenced(page));
        }
      }
    }
    expect(referenced(await search({ limit: 500 }))).toHaveLength(3);
  });

  it('writes through the kernel keep the index right: lists come in the collation\'s order both ways', async () => {
    await tk.kernel.dispatch('fw.update', { model: 'res.organization', id: await idOf('Zeta'), values: { name: 'aardvark' } }, admin);
    await tk.kernel.dispatch('fw.delete', { model: 'res.organization', id: await idOf('Bravo') }, admin);
    const got = await names();
    const expected = [...got].sort(textComparator(provider));
    expect(got).toEqual(expected);
    expect(got).toContain('aardvark');
    expect(got).not.toContain('Bravo');
    expect(got.indexOf('aardvark')).toBeLessThan(got.indexOf('Åland Trading'));
    expect(got.indexOf('Åland Trading')).toBeLessThan(got.indexOf('albania export'));
    expect(await names('name desc')).toEqual([...expected].reverse());
    // SQLite: integrity_check recomputes every index entry (it needs the function too)
    if (provider === 'sqlite') expect(await query('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
  });

  it.runIf(provider === 'sqlite')('a SQLite connection without fw_sortkey is refused writes to an indexed table, so the index cannot go stale', () => {
    const db = new Database(target.provider === 'sqlite' ? target.file : '', { timeout: 10_000 });
    try {
      expect(() => db.prepare("UPDATE res_organization SET name = 'stale' WHERE name = 'aardvark'").run()).toThrow(/unknown function: fw_sortkey/);
    } finally {
      db.close();
    }
  });

  it('another key version or default order: the old index is dropped and the new one built, once', async () => {
    const current = allIndexes();
    const mine = orgIndex();
    const older = sortIndexesOf([model('res.organization')], provider, 'older-version')[0]!;
    // the tenant as a process with other keys or another default order left it
    expect(await ensureSortIndexes(target, [...current.filter((i) => i.table !== 'res_organization'), older])).toEqual({ created: [older.name], dropped: [mine.name] });
    expect(await indexNames()).toContain(older.name);
    // this process again
    expect(await ensureSortIndexes(target, current)).toEqual({ created: [mine.name], dropped: [older.name] });
    expect(await ensureSortIndexes(target, current)).toEqual({ created: [], dropped: [] });
    expect(await names()).toEqual([...(await names())].sort(textComparator(provider)));
  });

  it('an index a migration lost (a rebuilt table) comes back on the next upgrade of the tenant', async () => {
    await query(`DROP INDEX "${orgIndex().name}"`);
    expect(await indexNames()).not.toContain(orgIndex().name);
    await tk.kernel.tenants.upgrade(T);
    expect(await indexNames()).toContain(orgIndex().name);
  });

  it('`fw migrate upgrade`, which reads manifests and not models, leaves the sort indexes as they are', async () => {
    const before = await indexNames();
    expect(before).toContain(orgIndex().name);
    const run = await fw({
      DATA_DIR: tk.dataDir, DATABASE_URL: provider === 'postgresql' ? tk.kernel.settings.DATABASE_URL : '', PG_DATABASE_PREFIX: tk.pgPrefix,
      ACTIVE_MODULES: MODULES, ACTIVE_DOMAINS: tk.kernel.settings.ACTIVE_DOMAINS.join(','),
    }, ['migrate', 'upgrade', '-t', T]);
    expect(run.code, run.stderr).toBe(0);
    expect(await indexNames()).toEqual(before);
  });

  it('indexes are only made where their table has their columns (an app this tenant lacks, a default order not migrated yet), and the open goes on', async () => {
    const ghost = { ...orgIndex(), table: 'no_such_table', name: 'fw_sk_no_such_table_0000000000' };
    const early = { ...orgIndex(), columns: [{ column: 'not_migrated_yet', sortKey: true }], name: 'fw_sk_res_organization_0000000000' };
    expect(await ensureSortIndexes(target, [...allIndexes(), ghost, early])).toEqual({ created: [], dropped: [] });
    expect(await indexNames()).not.toContain(ghost.name);
    expect(await indexNames()).not.toContain(early.name);
  });
});
