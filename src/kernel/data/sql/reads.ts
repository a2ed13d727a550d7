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
interface CompiledSearch extends CompiledSql {
  build: ReturnType<typeof recordBuilder>;
  /** Per joined Reference: where its columns start in a row, and how they become a record. */
  joined: Array<{ field: string; from: number; idAt: number; build: ReturnType<typeof recordBuilder> }>;
}

type Rec = Record<string, unknown>;

/** A search's records, and the records of the References it joined, by field (each once). */
export interface SearchResult { items: Rec[]; included: Record<string, Rec[]> }

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
export async function searchRecords(ctx: SqlReadContext, model: ResolvedModel, query: SearchQuery): Promise<Rec[]> {
  return (await searchWithJoins(ctx, model, query)).items;
}

/**
 * `searchRecords` with the References of `query.joins` read in the same statement: each joined
 * record once in `included[field]`; a Reference whose record the join did not find (the caller
 * may not see it) has none there.
 */
export async function searchWithJoins(ctx: SqlReadContext, model: ResolvedModel, query: SearchQuery): Promise<SearchResult> {
  const joins = query.joins ?? [];
  const key = [query.where, query.orderBy, query.take, query.skip, query.fields.map((f) => f.name),
    ...joins.map((j) => [j.field, j.where, j.fields.map((f) => f.name)])];
  const c = searches(ctx, model, key, () => {
    let from = query.fields.length;
    return {
      ...compileSearch(ctx.registry, model, query, ctx.dialect),
      build: recordBuilder(query.fields, ctx.dialect),
      joined: joins.map((j) => {
        const at = from;
        from += j.fields.length;
        return { field: j.field, from: at, idAt: at + j.fields.findIndex((f) => f.name === 'record_uuid'), build: recordBuilder(j.fields, ctx.dialect) };
      }),
    };
  });
  const rows = await ctx.reader.rows(c.sql, c.params);
  const items = rows.map(c.build);
  const included: Record<string, Rec[]> = {};
  for (const j of c.joined) {
    const seen = new Map<unknown, Rec>();
    // a row whose join found nothing has NULL in every joined column, its id included
    for (const row of rows) {
      const id = row[j.idAt];
      if (id !== null && id !== undefined && !seen.has(id)) seen.set(id, j.build(row.slice(j.from)));
    }
    included[j.field] = [...seen.values()];
  }
  return { items, included };
}

export async function countRecords(ctx: SqlReadContext, model: ResolvedModel, where: Where): Promise<number> {
  const c = counts(ctx, model, where, () => compileCount(ctx.registry, model, where, ctx.dialect));
  const rows = await ctx.reader.rows(c.sql, c.params);
  return Number(rows[0][0]);
}
