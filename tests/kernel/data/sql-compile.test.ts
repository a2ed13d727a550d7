/**
 * The SQL the read path compiles (src/kernel/data/sql/compile.ts and where.ts) for each dialect,
 * from the same `where` domainToWhere builds: columns and table aliases, text ordered by the
 * collation (SQLite's sort-key function, PostgreSQL's ICU collation), an enum by its declaration
 * order (CASE), paging (SQLite needs a LIMIT
 * before an OFFSET), every filter operator with its values as parameters (encoded as the SQLite
 * adapter stores them), NULL tests, empty lists, relation paths as EXISTS, and the rows turned back
 * into records. tests/kernel/data/sql-reads.test.ts runs the same reads against both databases.
 */
import { DbNull } from '@prisma/client/runtime/client';
import { describe, expect, it } from 'vitest';
import { compileCount, compileSearch, recordBuilder, type SearchQuery } from '../../../src/kernel/data/sql/compile.ts';
import { encodeValue } from '../../../src/kernel/data/sql/values.ts';
import type { Where } from '../../../src/kernel/data/domain.ts';
import { defineModel, f } from '../../../src/kernel/declare.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import type { ResolvedModel } from '../../../src/kernel/registry/model.ts';
import { fixtureApp } from '../../helpers/kernel.ts';

const registry = createRegistry([fixtureApp('fixture_sq', {
  models: [
    defineModel({ key: 'sq.team', description: 'Team', fields: { name: f.char(50, { required: true }), members: f.one2many('sq.item', 'team') } }),
    defineModel({
      key: 'sq.item',
      description: 'Item',
      fields: { name: f.char(50), qty: f.integer(), ok: f.boolean(), at: f.datetime(), meta: f.json(), stage: f.enum(['a', 'b']), team: f.reference('sq.team') },
    }),
  ],
})]);
const item = registry.model('sq.item');
const team = registry.model('sq.team');
const fields = (m: ResolvedModel, ...names: string[]) => names.map((n) => m.fields.get(n)!);
const D = ['sqlite', 'postgresql'] as const;

const search = (where: Where, dialect: (typeof D)[number], extra: Partial<SearchQuery> = {}, model = item) =>
  compileSearch(registry, model, { where, orderBy: [], fields: fields(model, 'record_uuid'), ...extra }, dialect);
/** `?` on SQLite, `$1, $2, …` on PostgreSQL. */
const params = (sql: string, dialect: (typeof D)[number]) => {
  let n = 0;
  return dialect === 'sqlite' ? sql : sql.replace(/\?/g, () => `$${++n}`);
};
const SELECT = 'select "t0"."record_uuid" from "sq_item" as "t0"';

describe('select, order and paging', () => {
  it('reads the asked columns of the table under the alias t0, with no WHERE for an empty filter', () => {
    for (const d of D) {
      expect(compileSearch(registry, item, { where: {}, orderBy: [], fields: fields(item, 'record_uuid', 'name') }, d))
        .toEqual({ sql: 'select "t0"."record_uuid", "t0"."name" from "sq_item" as "t0"', params: [] });
    }
  });

  it('text sorts by the collation, an enum by its declaration order (a CASE ranking its values), other columns by their value; take and skip page', () => {
    const q: Partial<SearchQuery> = { orderBy: [{ name: 'asc' }, { qty: 'desc' }, { stage: 'asc' }], take: 5, skip: 10 };
    const rank = 'case when "t0"."stage" = ? then 0 when "t0"."stage" = ? then 1 end';
    expect(search({}, 'sqlite', q)).toEqual({ sql: `${SELECT} order by fw_sortkey("t0"."name") asc, "t0"."qty" desc, ${rank} asc limit ? offset ?`, params: ['a', 'b', 5, 10] });
    expect(search({}, 'postgresql', q)).toEqual({ sql: params(`${SELECT} order by "t0"."name" collate "und-x-icu" asc, "t0"."qty" desc, ${rank} asc limit ? offset ?`, 'postgresql'), params: ['a', 'b', 5, 10] });
  });

  it('the enum rank follows the filter\'s parameters, descending too', () => {
    const where = { qty: { gt: 1 } };
    expect(search(where, 'postgresql', { orderBy: [{ stage: 'desc' }] })).toEqual({
      sql: `${SELECT} where "t0"."qty" > $1 order by case when "t0"."stage" = $2 then 0 when "t0"."stage" = $3 then 1 end desc`, params: [1, 'a', 'b'],
    });
  });

  it('an offset without a limit: SQLite gets LIMIT -1 (no limit), PostgreSQL none', () => {
    const q: Partial<SearchQuery> = { orderBy: [{ name: 'desc' }], skip: 3 };
    expect(search({}, 'sqlite', q)).toEqual({ sql: `${SELECT} order by fw_sortkey("t0"."name") desc limit ? offset ?`, params: [-1, 3] });
    expect(search({}, 'postgresql', q)).toEqual({ sql: `${SELECT} order by "t0"."name" collate "und-x-icu" desc offset $1`, params: [3] });
    for (const d of D) {
      expect(search({}, d, { take: 2 })).toEqual({ sql: params(`${SELECT} limit ?`, d), params: [2] });
      expect(search({}, d, { take: 0, skip: 0 })).toEqual({ sql: params(`${SELECT} limit ?`, d), params: [0] });
    }
  });

  it('count(*) as n, with the same WHERE', () => {
    for (const d of D) {
      expect(compileCount(registry, item, {}, d)).toEqual({ sql: 'select count(*) as "n" from "sq_item" as "t0"', params: [] });
      expect(compileCount(registry, item, { qty: { gt: 1 } }, d)).toEqual({ sql: params('select count(*) as "n" from "sq_item" as "t0" where "t0"."qty" > ?', d), params: [1] });
    }
  });
});

describe('filters', () => {
  it('each comparison, its value a parameter encoded as the column stores it', () => {
    const where = { qty: { equals: 1, not: 2, lt: 3, lte: 4, gt: 5, gte: 6 }, name: { in: ['a'], notIn: ['b'] }, ok: { equals: true }, at: { gt: new Date('2026-01-02T03:04:05.006Z') } };
    const sql = `${SELECT} where (("t0"."qty" = ? and "t0"."qty" <> ? and "t0"."qty" < ? and "t0"."qty" <= ? and "t0"."qty" > ? and "t0"."qty" >= ?) and ("t0"."name" in (?) and "t0"."name" not in (?)) and "t0"."ok" = ? and "t0"."at" > ?)`;
    expect(search(where, 'sqlite')).toEqual({ sql, params: [1, 2, 3, 4, 5, 6, 'a', 'b', 1, '2026-01-02T03:04:05.006+00:00'] });
    expect(search(where, 'postgresql')).toEqual({ sql: params(sql, 'postgresql'), params: [1, 2, 3, 4, 5, 6, 'a', 'b', true, new Date('2026-01-02T03:04:05.006Z')] });
  });

  it('NULL tests (null, equals null, not null, DbNull), and empty lists as constant conditions', () => {
    for (const d of D) {
      expect(search({ name: null, qty: { equals: null }, stage: { not: null }, meta: { not: DbNull }, ok: { in: [] }, at: { notIn: [] } }, d)).toEqual({
        sql: `${SELECT} where ("t0"."name" is null and "t0"."qty" is null and "t0"."stage" is not null and "t0"."meta" is not null and 1 = 0 and 1 = 1)`, params: [],
      });
      expect(search({ meta: { equals: DbNull } }, d).sql).toBe(`${SELECT} where "t0"."meta" is null`);
    }
  });

  it('contains and startsWith are LIKE patterns, wildcards kept; insensitive is ILIKE on PostgreSQL only', () => {
    const where = { name: { contains: 'x_%', mode: 'insensitive' }, stage: { startsWith: 'a' } };
    expect(search(where, 'sqlite')).toEqual({ sql: `${SELECT} where ("t0"."name" like ? and "t0"."stage" like ?)`, params: ['%x_%%', 'a%'] });
    expect(search(where, 'postgresql')).toEqual({ sql: `${SELECT} where ("t0"."name" ilike $1 and "t0"."stage" like $2)`, params: ['%x_%%', 'a%'] });
    expect(search({ name: { contains: 'x' } }, 'postgresql').sql).toBe(`${SELECT} where "t0"."name" like $1`);
  });

  it('OR, NOT and AND; an empty OR matches nothing and an empty AND everything', () => {
    for (const d of D) {
      expect(search({ OR: [{ qty: { equals: 1 } }, { qty: { equals: 2 } }], NOT: { name: { equals: 'z' } }, AND: [] }, d))
        .toEqual({ sql: params(`${SELECT} where (("t0"."qty" = ? or "t0"."qty" = ?) and not "t0"."name" = ? and 1 = 1)`, d), params: [1, 2, 'z'] });
      expect(search({ OR: [] }, d).sql).toBe(`${SELECT} where 1 = 0`);
      expect(search({ NOT: [{ qty: { equals: 1 } }, { qty: { equals: 2 } }] }, d).sql).toBe(params(`${SELECT} where not ("t0"."qty" = ? and "t0"."qty" = ?)`, d));
    }
  });

  it('JSON values are compared as their text on SQLite', () => {
    expect(search({ meta: { equals: { a: 1 } } }, 'sqlite').params).toEqual(['{"a":1}']);
    expect(search({ meta: { equals: { a: 1 } } }, 'postgresql').params).toEqual([{ a: 1 }]);
  });

  it('relation paths are EXISTS subqueries with their own aliases t1, t2, …', () => {
    for (const d of D) {
      expect(search({ team_rel: { is: { name: { equals: 't' } } } }, d)).toEqual({
        sql: params(`${SELECT} where exists (select 1 as "one" from "sq_team" as "t1" where ("t1"."record_uuid" = "t0"."team" and "t1"."name" = ?))`, d), params: ['t'],
      });
      expect(search({ members: { some: { team_rel: { is: { name: { equals: 't' } } } } } }, d, {}, team)).toEqual({
        sql: params('select "t0"."record_uuid" from "sq_team" as "t0" where exists (select 1 as "one" from "sq_item" as "t1" where ("t1"."team" = "t0"."record_uuid" and exists (select 1 as "one" from "sq_team" as "t2" where ("t2"."record_uuid" = "t1"."team" and "t2"."name" = ?))))', d),
        params: ['t'],
      });
    }
  });

  it('what the SQL path cannot read is an internal error, not a wrong query', () => {
    expect(() => search({ nope: { equals: 1 } }, 'sqlite')).toThrow('SQL reads: sq.item has no column "nope"');
    expect(() => search({ qty: { has: 1 } }, 'sqlite')).toThrow('SQL reads: unsupported filter "has" on sq.item.qty');
    expect(() => search({ team_rel: { some: {} } }, 'sqlite')).toThrow('SQL reads: "some" does not fit sq.item.team');
    expect(() => search({ members: { is: {} } }, 'sqlite', {}, team)).toThrow('SQL reads: "is" does not fit sq.team.members');
    expect(() => search({ nope_rel: { is: {} } }, 'sqlite')).toThrow('SQL reads: sq.item has no relation "nope_rel"');
  });
});

describe('values and records', () => {
  it('SQLite parameters are what its adapter stores: +00:00 dates, 1/0 booleans, JSON text; PostgreSQL takes them as they are', () => {
    const at = item.fields.get('at')!;
    expect(encodeValue(at, new Date('2026-01-02T03:04:05.006Z'), 'sqlite')).toBe('2026-01-02T03:04:05.006+00:00');
    expect(encodeValue(item.fields.get('ok')!, false, 'sqlite')).toBe(0);
    expect(encodeValue(item.fields.get('meta')!, [1], 'sqlite')).toBe('[1]');
    expect(encodeValue(item.fields.get('meta')!, 'x', 'sqlite')).toBe('x');
    expect(encodeValue(item.fields.get('meta')!, null, 'sqlite')).toBeNull();
    expect(encodeValue(item.fields.get('name')!, 'x', 'sqlite')).toBe('x');
    const d = new Date();
    expect(encodeValue(at, d, 'postgresql')).toBe(d);
    expect(encodeValue(item.fields.get('ok')!, false, 'postgresql')).toBe(false);
  });

  it('a row becomes a record: id (from record_uuid) first, then the fields, decoded for the dialect', () => {
    const build = recordBuilder(fields(item, 'name', 'record_uuid', 'ok', 'at', 'meta', 'qty'), 'sqlite');
    const r = build(['n', 'u-1', 1, '2026-01-02T03:04:05.678+00:00', '{"a":1}', null]);
    expect(r).toEqual({ id: 'u-1', name: 'n', ok: true, at: '2026-01-02T03:04:05.678Z', meta: { a: 1 }, qty: null });
    expect(Object.keys(r)).toEqual(['id', 'name', 'ok', 'at', 'meta', 'qty']);
    expect(build(['n', 'u-2', null, undefined, null, 0])).toEqual({ id: 'u-2', name: 'n', ok: null, at: null, meta: null, qty: 0 });
    const pg = recordBuilder(fields(item, 'record_uuid', 'ok', 'at'), 'postgresql');
    expect(pg(['u-3', false, '2026-01-02 03:04:05.6+00'])).toEqual({ id: 'u-3', ok: false, at: '2026-01-02T03:04:05.600Z' });
  });

  it('SQLite date-times in other stored forms become ISO as well; what is no date stays as it is', () => {
    const build = recordBuilder(fields(item, 'record_uuid', 'at'), 'sqlite');
    expect(build(['u', '2026-01-02 03:04:05'])).toEqual({ id: 'u', at: '2026-01-02T03:04:05.000Z' });
    expect(build(['u', '2026-01-02T03:04:05+01:00'])).toEqual({ id: 'u', at: '2026-01-02T02:04:05.000Z' });
    expect(build(['u', 'garbage'])).toEqual({ id: 'u', at: 'garbage' });
    expect(build(['u', 1700000000000])).toEqual({ id: 'u', at: 1700000000000 });
  });
});
