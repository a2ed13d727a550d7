/**
 * The compiled-statement cache of the SQL read path (src/kernel/data/sql/reads.ts) on a real
 * SQLite file: its key holds the fields read, so the same filter, order and page asked for other
 * fields (as many, or other ones in another order) is another statement and another row shape,
 * never the columns of the search asked before; a count and a search of the same filter answer
 * each their own question, whichever ran first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminPrincipal, bootTestKernel, type TestKernel } from '../../helpers/kernel.ts';

type Page = { items: Array<Record<string, unknown>>; total?: number };

describe('the compiled-statement cache keys on the fields read', () => {
  let tk: TestKernel;
  const T = 'readcompile';
  const admin = adminPrincipal(T);
  const run = <R = Page>(command: string, payload: Record<string, unknown>) => tk.kernel.dispatch<R>(command, payload, admin);
  let id: string;

  beforeAll(async () => {
    tk = await bootTestKernel();
    id = (await run<{ id: string }>('fw.create', { model: 'crm.lead', values: { name: 'Cached', email: 'cached@x.test', notes: 'n1', expected_revenue: 9 } })).id;
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('the same search for as many other fields reads those fields', async () => {
    const search = (fields: string[]) => run('fw.search', { model: 'crm.lead', domain: [['name', '=', 'Cached']], fields });
    expect((await search(['name'])).items).toEqual([{ id, name: 'Cached' }]);
    expect((await search(['email'])).items).toEqual([{ id, email: 'cached@x.test' }]);
    expect((await search(['name', 'notes'])).items).toEqual([{ id, name: 'Cached', notes: 'n1' }]);
    expect((await search(['notes', 'name'])).items).toEqual([{ id, notes: 'n1', name: 'Cached' }]);
    expect((await search(['expected_revenue', 'email'])).items).toEqual([{ id, expected_revenue: 9, email: 'cached@x.test' }]);
    // and again, now from the cache: each its own fields still
    expect((await search(['name'])).items).toEqual([{ id, name: 'Cached' }]);
    expect((await search(['email'])).items).toEqual([{ id, email: 'cached@x.test' }]);
  });

  it('a count and a search of the same filter each answer their own question, in either order', async () => {
    const domain = [['email', '=', 'cached@x.test']];
    expect(await run('fw.count', { model: 'crm.lead', domain })).toEqual({ count: 1 });
    expect((await run('fw.search', { model: 'crm.lead', domain, fields: ['name'] })).items).toEqual([{ id, name: 'Cached' }]);
    const other = [['notes', '=', 'n1']];
    expect((await run('fw.search', { model: 'crm.lead', domain: other, fields: ['name'] })).items).toEqual([{ id, name: 'Cached' }]);
    expect(await run('fw.count', { model: 'crm.lead', domain: other })).toEqual({ count: 1 });
  });
});
