import { LRUCache } from 'lru-cache';
import type { ResolvedField, ResolvedModel } from '../../registry/model.js';
import { compileInsert, compileUpdate, type CompiledSql } from './compile.js';
import type { Dialect } from './values.js';

/*
 * INSERT and UPDATE statements by their shape (table, columns written, whether the revision is
 * in the WHERE, columns returned), not by their values as the reads are keyed: every write of
 * another value would otherwise compile again. The caller states the parameters in the order
 * the text takes them (an UPDATE's SET values, then its WHERE's; an INSERT's values); a compiled
 * text is kept only when Kysely numbered them exactly so, so a kept text never gets its values in
 * another order.
 */
const kept = new LRUCache<string, string>({ max: 1_000 });

function keptStatement(key: string, params: unknown[], compile: () => CompiledSql): CompiledSql {
  const sql = kept.get(key);
  if (sql !== undefined) return { sql, params };
  const c = compile();
  if (c.params.length === params.length && c.params.every((p, i) => p === params[i])) kept.set(key, c.sql);
  return c;
}

export function updateStatement(model: ResolvedModel, set: Record<string, unknown>, where: { dbid: number; revision?: number }, fields: ResolvedField[], dialect: Dialect): CompiledSql {
  const columns = Object.keys(set);
  const guarded = where.revision !== undefined;
  return keptStatement(
    JSON.stringify(['update', dialect, model.names.table, columns, guarded, fields.map((f) => f.name)]),
    [...columns.map((c) => set[c]), where.dbid, ...(guarded ? [where.revision] : [])],
    () => compileUpdate(model, set, where, fields, dialect),
  );
}

export function insertStatement(model: ResolvedModel, values: Record<string, unknown>, fields: ResolvedField[], dialect: Dialect): CompiledSql {
  const columns = Object.keys(values);
  return keptStatement(
    JSON.stringify(['insert', dialect, model.names.table, columns, fields.map((f) => f.name)]),
    columns.map((c) => values[c]),
    () => compileInsert(model, values, fields, dialect),
  );
}
