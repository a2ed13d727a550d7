import type { Reader } from '../../db/readers/types.js';
import type { ResolvedField, ResolvedModel } from '../../registry/model.js';
import type { Registry } from '../../registry/registry.js';
import type { Where } from '../domain.js';
import { compileCount, compileSearch, recordBuilder, type SearchQuery } from './compile.js';
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

/** Records (as clients see them) matching `query`, read straight from SQL. */
export async function searchRecords(ctx: SqlReadContext, model: ResolvedModel, query: SearchQuery): Promise<Record<string, unknown>[]> {
  const c = compileSearch(ctx.registry, model, query, ctx.dialect);
  const rows = await ctx.reader.rows(c.sql, c.params);
  const build = builderFor(model, query.fields, ctx.dialect);
  return rows.map(build);
}

export async function countRecords(ctx: SqlReadContext, model: ResolvedModel, where: Where): Promise<number> {
  const c = compileCount(ctx.registry, model, where, ctx.dialect);
  const rows = await ctx.reader.rows(c.sql, c.params);
  return Number(rows[0][0]);
}
