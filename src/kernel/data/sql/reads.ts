import { LRUCache } from 'lru-cache';
import type { Reader } from '../../db/readers/types.js';
import type { ResolvedModel } from '../../registry/model.js';
import type { Registry } from '../../registry/registry.js';
import type { Where } from '../domain.js';
import { compileCount, compileSearch, recordBuilder, type CompiledSql, type SearchQuery } from './compile.js';
import type { Dialect } from './values.js';

export interface SqlReadContext { registry: Registry; dialect: Dialect; reader: Reader }

/*
 * Compiled statements by the query itself (model, where with its values, order, page, fields):
 * the same list page or filter is asked again and again, and building plus compiling it costs
 * more than running it on SQLite. A plain JSON key is unambiguous because every value in a
 * `where` was coerced by its field's type (a datetime field always holds a Date, a text field
 * text), and the field name is part of the key. A search's entry also holds the function that
 * turns its rows into records, which depends only on the fields read (part of its key).
 * Bounded; a miss only costs a compile. Searches and counts have caches of their own.
 */
interface CompiledSearch extends CompiledSql { build: ReturnType<typeof recordBuilder> }

/** One bounded cache per registry; `memo` answers the cached entry or, on a miss, compiles and keeps it. */
function cacheOf<T extends object>() {
  const byRegistry = new WeakMap<Registry, LRUCache<string, T, () => T>>();
  return (ctx: SqlReadContext, model: ResolvedModel, parts: unknown, compile: () => T): T => {
    let cache = byRegistry.get(ctx.registry);
    if (!cache) byRegistry.set(ctx.registry, (cache = new LRUCache({ max: 2_000, memoMethod: (_key, _stale, { context }) => context() })));
    return cache.memo(`${ctx.dialect}|${model.key}|${JSON.stringify(parts)}`, { context: compile });
  };
}
const searches = cacheOf<CompiledSearch>();
const counts = cacheOf<CompiledSql>();

/** Records (as clients see them) matching `query`, read straight from SQL. */
export async function searchRecords(ctx: SqlReadContext, model: ResolvedModel, query: SearchQuery): Promise<Record<string, unknown>[]> {
  const c = searches(ctx, model, [query.where, query.orderBy, query.take, query.skip, query.fields.map((f) => f.name)], () => ({
    ...compileSearch(ctx.registry, model, query, ctx.dialect),
    build: recordBuilder(query.fields, ctx.dialect),
  }));
  const rows = await ctx.reader.rows(c.sql, c.params);
  return rows.map(c.build);
}

export async function countRecords(ctx: SqlReadContext, model: ResolvedModel, where: Where): Promise<number> {
  const c = counts(ctx, model, where, () => compileCount(ctx.registry, model, where, ctx.dialect));
  const rows = await ctx.reader.rows(c.sql, c.params);
  return Number(rows[0][0]);
}
