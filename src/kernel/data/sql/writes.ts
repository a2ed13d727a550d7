import { LRUCache } from 'lru-cache';
import type { ResolvedField, ResolvedModel } from '../../registry/model.js';
import { compileInsert, compileUpdate, type CompiledSql } from './compile.js';
import type { Dialect } from './values.js';

/*
 * INSERT and UPDATE statements by their shape (table, columns set, whether the revision is in the WHERE,
 * columns returned), not by their values as the reads are keyed: every write of another value
 * would otherwise compile again. Kysely numbers an UPDATE's parameters as the SET values in order,
 * then the WHERE's; a compiled statement is kept only when its parameters came out in exactly
 * that order (an INSERT's: its values in order), so a kept text never gets its values in another
 * order.
 */
const kept = new LRUCache<string, string>({ max: 1_000 });

export function updateStatement(model: ResolvedModel, set: Record<string, unknown>, where: { dbid: number; revision?: number }, fields: ResolvedField[], dialect: Dialect): CompiledSql {
  const columns = Object.keys(set);
  const params = [...columns.map((c) => set[c]), where.dbid, ...(where.revision !== undefined ? [where.revision] : [])];
  const key = JSON.stringify(['update', dialect, model.names.table, columns, where.revision !== undefined, fields.map((f) => f.name)]);
  const sql = kept.get(key);
  if (sql !== undefined) return { sql, params };
  const c = compileUpdate(model, set, where, fields, dialect);
  if (c.params.length === params.length && c.params.every((p, i) => p === params[i])) kept.set(key, c.sql);
  return c;
}

export function insertStatement(model: ResolvedModel, values: Record<string, unknown>, fields: ResolvedField[], dialect: Dialect): CompiledSql {
  const columns = Object.keys(values);
  const params = columns.map((c) => values[c]);
  const key = JSON.stringify(['insert', dialect, model.names.table, columns, fields.map((f) => f.name)]);
  const sql = kept.get(key);
  if (sql !== undefined) return { sql, params };
  const c = compileInsert(model, values, fields, dialect);
  if (c.params.length === params.length && c.params.every((p, i) => p === params[i])) kept.set(key, c.sql);
  return c;
}
