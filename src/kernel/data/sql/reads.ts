import { LRUCache } from 'lru-cache';
import type { Reader } from '../../db/readers/types.js';
import type { ResolvedField, ResolvedModel } from '../../registry/model.js';
import type { Registry } from '../../registry/registry.js';
import type { Where } from '../domain.js';
import { compileCount, compileSearch, recordBuilder, type CompiledSql, type SearchQuery } from './compile.js';
import type { Dialect } from './values.js';

export interface SqlReadContext { registry: Registry; dialect: Dialect; reader: Reader }

const builders = new WeakMap<ResolvedModel, Map<string, ReturnType<typeof recordBuilder>>>();

function builderFor(model: ResolvedModel, fields: ResolvedField[], dialect: Dialect) {
  let byFields = builders.get(model);
  if (!byFields) builders.set(model, (byFields = new Map()));
  const key = `${dialect}:${fields.map((f) => f.name).join(',')}`;
  let b = byFields.get(key);
  if (!b) byFields.set(key, (b = recordBuilder(fields, dialect)));
  return b;
}

/*
 * Compiled statements by the query itself (model, where with its values, order, page, fields):
 * the same list page or filter is asked again and again, and building plus compiling it costs
 * more than running it on SQLite. A plain JSON key is unambiguous because every value in a
 * `where` was coerced by its field's type (a datetime field always holds a Date, a text field
 * text), and the field name is part of the key. Bounded; a miss only costs a compile.
 */
const compiledBy = new WeakMap<Registry, LRUCache<string, CompiledSql>>();

function keyOf(kind: string, ctx: SqlReadContext, model: ResolvedModel, parts: unknown): string {
  return `${kind}|${ctx.dialect}|${model.key}|${JSON.stringify(parts)}`;
}

function cached(registry: Registry, key: string, compile: () => CompiledSql): CompiledSql {
  let compiled = compiledBy.get(registry);
  if (!compiled) compiledBy.set(registry, (compiled = new LRUCache({ max: 2_000 })));
  let c = compiled.get(key);
  if (!c) compiled.set(key, (c = compile()));
  return c;
}

/** Records (as clients see them) matching `query`, read straight from SQL. */
export async function searchRecords(ctx: SqlReadContext, model: ResolvedModel, query: SearchQuery): Promise<Record<string, unknown>[]> {
  const key = keyOf('search', ctx, model, [query.where, query.orderBy, query.take, query.skip, query.fields.map((f) => f.name)]);
  const c = cached(ctx.registry, key, () => compileSearch(ctx.registry, model, query, ctx.dialect));
  const rows = await ctx.reader.rows(c.sql, c.params);
  const build = builderFor(model, query.fields, ctx.dialect);
  return rows.map(build);
}

export async function countRecords(ctx: SqlReadContext, model: ResolvedModel, where: Where): Promise<number> {
  const c = cached(ctx.registry, keyOf('count', ctx, model, where), () => compileCount(ctx.registry, model, where, ctx.dialect));
  const rows = await ctx.reader.rows(c.sql, c.params);
  return Number(rows[0][0]);
}
