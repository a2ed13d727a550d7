import crypto from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { canAccess, canReadField, canWriteField, checkAccess, principalPlaceholder, rulesFor } from '../access.js';
import { AccessDenied } from '../errors.js';
import type { CommandDecl } from '../app.js';
import type { AccessOp } from '../declare.js';
import { delegateOf } from '../data/delegate.js';
import { domainToWhere, type DomainContext, type Where } from '../data/domain.js';
import { prismaWhere, readScope, ruleFields, ruleWhere } from '../data/rules.js';
import { mapDbError } from '../data/db-errors.js';
import { countReferences, referencedError } from '../data/references.js';
import { isRecordId, toRecord, toWriteData } from '../data/values.js';
import type { Env } from '../env.js';
import { aboutItem, BadRequest, FwError, NotFound, StaleRevision, ValidationError } from '../errors.js';
import { runPostHooks, runPreHooks, runReadHooks } from '../bus/hooks.js';
import { deterministicUuid } from '../canonical.js';
import { columnDefault, parseOrder, type ResolvedField, type ResolvedModel } from '../registry/model.js';
import { countRecords, searchRecords, searchWithJoins } from '../data/sql/reads.js';
import { compileMatch, recordBuilder, type SearchJoin } from '../data/sql/compile.js';
import { insertStatement, updateStatement } from '../data/sql/writes.js';
import { encodeValue, type Dialect } from '../data/sql/values.js';
import { transactionSql } from '../db/transaction-sql.js';
import { ordersInJavaScript, rowComparator, type OrderItem } from '../data/sort-rows.js';
import { readGroup } from './read-group.js';

/** The model a generic command targets, with RBAC checked for `op`. */
export function targetModel(env: Env, payload: Record<string, unknown>, op: AccessOp): ResolvedModel {
  if (typeof payload.model !== 'string') throw new BadRequest('payload.model must name a model', undefined, 'INVALID_PAYLOAD');
  const model = env.registry.model(payload.model);
  checkAccess(model, env.principal, op);
  return model;
}

const hiddenFor = (env: Env) => (m: ResolvedModel, f: Parameters<typeof canReadField>[1]) => !canReadField(m, f, env.principal);

/** The caller's filter ANDed with the record rules for `op` (src/kernel/data/rules.ts). */
export function scopedWhere(env: Env, model: ResolvedModel, op: AccessOp, domain?: unknown): Where {
  const rules = { registry: env.registry, provider: env.provider, principal: env.principal };
  const ctx: DomainContext = {
    registry: env.registry,
    provider: env.provider,
    placeholder: principalPlaceholder(env.principal),
    hidden: hiddenFor(env),
    // a filter through a relation may only look at records the caller could read directly
    scope: readScope(rules),
  };
  const user = domainToWhere(model, domain, ctx);
  // rules may name fields the caller cannot read; they are ours, so no `hidden` check there
  const ruled = ruleWhere(rules, model, op);
  if (!ruled) return user;
  return Object.keys(user).length ? { AND: [user, ruled] } : ruled;
}

/** `scopedWhere` for a Prisma query (reads in a transaction, writes): followed pairs resolved in `env.db`. */
export async function scopedPrismaWhere(env: Env, model: ResolvedModel, op: AccessOp, domain?: unknown, extra?: Where): Promise<Where> {
  const where = scopedWhere(env, model, op, domain);
  return prismaWhere(env.db, env.registry, model, extra ? { AND: [extra, where] } : where);
}

function orderBy(model: ResolvedModel, order: unknown, env: Env): Record<string, 'asc' | 'desc'>[] {
  const parsed = order === undefined || order === null || order === ''
    ? model.defaultOrder
    : typeof order === 'string' ? parseOrderOrBad(order) : badOrder(order);
  for (const o of parsed) {
    const f = model.fields.get(o.field);
    if (!f || !f.stored || f.type === 'json' || !canReadField(model, f, env.principal)) {
      throw new BadRequest(`cannot order ${model.key} by "${o.field}"`, { field: o.field }, 'INVALID_ORDER');
    }
  }
  const out = parsed.map((o) => ({ [o.field]: o.direction }));
  // a unique tiebreaker keeps offset paging stable
  if (!parsed.some((o) => o.field === 'dbid')) out.push({ dbid: 'asc' });
  return out;
}

function parseOrderOrBad(text: string) {
  try {
    return parseOrder(text, 'order');
  } catch (err) {
    throw new BadRequest((err as Error).message, undefined, 'INVALID_ORDER');
  }
}
const badOrder = (o: unknown): never => {
  throw new BadRequest(`order must be text like "name asc", got ${JSON.stringify(o)}`, undefined, 'INVALID_ORDER');
};

/** The stored fields a read returns: the requested ones (always the id), or every readable one. */
function readableFields(model: ResolvedModel, fields: unknown, env: Env): ResolvedField[] {
  const names = fields === undefined || fields === null ? null : fields;
  if (names !== null && (!Array.isArray(names) || names.some((n) => typeof n !== 'string'))) {
    throw new BadRequest('fields must be a list of field names', undefined, 'INVALID_FIELDS');
  }
  const out: ResolvedField[] = [];
  for (const f of model.fields.values()) {
    if (!f.stored || (f.name !== 'record_uuid' && (f.private || !canReadField(model, f, env.principal)))) continue;
    if (names && !names.includes(f.name) && f.name !== 'record_uuid') continue;
    out.push(f);
  }
  for (const n of (names as string[] | null) ?? []) {
    if (n !== 'id' && !out.some((f) => f.name === n)) throw new BadRequest(`${model.key} has no readable field "${n}"`, { field: n }, 'INVALID_FIELDS');
  }
  return out;
}

const selectOf = (fields: ResolvedField[]): Record<string, true> => Object.fromEntries(fields.map((f) => [f.name, true]));

/**
 * `fw.search`'s `include: { <reference field>: [<target field>, …] }`: References to read in the
 * same statement as the records (a list and the names of the countries it shows, in one round
 * trip instead of a second search). Each one is read as the caller would read it through its own
 * search: the target's readable fields, its read rules in the join. It is a hint: a Reference is
 * left out (its records then come from a search of their own, which also reports why not) when
 * the caller may not read the target, when the target has read hooks (they run per record
 * searched), or on the Prisma path; `included` holds only what was joined.
 */
function includedReferences(env: Env, model: ResolvedModel, include: unknown, fields: ResolvedField[]): SearchJoin[] {
  if (include === undefined || include === null) return [];
  if (typeof include !== 'object' || Array.isArray(include)) {
    throw new BadRequest('include must map Reference fields to lists of field names', undefined, 'INVALID_INCLUDE');
  }
  const out: SearchJoin[] = [];
  for (const [name, targetFields] of Object.entries(include)) {
    const field = model.fields.get(name);
    if (!field || field.type !== 'reference' || !fields.some((f) => f.name === name)) {
      throw new BadRequest(`"${name}" is not a Reference of ${model.key} read by this search`, { field: name }, 'INVALID_INCLUDE');
    }
    // a Reference whose target app is not loaded reads as a plain id: nothing to join
    if (!field.target || !env.registry.models.has(field.target)) continue;
    const target = env.registry.model(field.target);
    const read = readableFields(target, targetFields, env);
    if (!canAccess(target, env.principal, 'read') || env.registry.hooksAt(`post.${target.key}.read`).length) continue;
    out.push({ field: name, target, fields: read, where: ruleWhere({ registry: env.registry, provider: env.provider, principal: env.principal }, target, 'read') });
  }
  return out;
}

/**
 * An ordered read through Prisma (inside a transaction) whose order names a text or enum field:
 * Prisma can name neither a collation, a function nor an enum's declaration order, so the
 * matching rows are read whole and sorted here as the compiled reader's ORDER BY sorts them
 * (src/kernel/data/sort-rows.ts), then paged.
 * It reads every matching row, but only inside transactions; plain reads use SQL.
 */
async function findManySortedHere(env: Env, model: ResolvedModel, where: Where, order: OrderItem[],
  page: { take?: number; skip: number; select: Record<string, true> }): Promise<Record<string, unknown>[]> {
  const orderFields = order.map((o) => Object.keys(o)[0]);
  const rows = await delegateOf(env.db, model).findMany({ where, select: { ...page.select, ...Object.fromEntries(orderFields.map((f) => [f, true])) } });
  rows.sort(rowComparator(model, order, env.provider));
  const slice = rows.slice(page.skip, page.take === undefined ? undefined : page.skip + page.take);
  // order fields that were not asked for are not returned
  return slice.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => page.select[k])));
}

/** Plain reads outside a transaction go to SQL directly (src/kernel/data/sql); inside one, through Prisma. */
const sqlReads = (env: Env) => (env.reader ? { registry: env.registry, dialect: env.provider, reader: env.reader } : null);

function pageNumber(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  // safe integers only: 1e300 is an integer to JavaScript, but no database takes it as LIMIT/OFFSET
  if (!Number.isSafeInteger(v) || (v as number) < 0) throw new BadRequest(`${name} must be a non-negative integer`, undefined, 'INVALID_PAGING');
  return v as number;
}


const recordNotFound = (model: ResolvedModel, id: unknown) =>
  new NotFound(`${model.key} ${String(id)} not found`, { model: model.key, id }, 'RECORD_NOT_FOUND');

/** A record id from the outside: not a UUID means no such record (PostgreSQL would reject the cast). */
function recordId(model: ResolvedModel, id: unknown): string {
  if (typeof id !== 'string') throw new BadRequest('payload.id must be a record id', undefined, 'INVALID_PAYLOAD');
  if (!isRecordId(id)) throw recordNotFound(model, id);
  return id.toLowerCase();
}

/**
 * One record by id, if the record rules of `op` let the caller reach it; otherwise 404, so a
 * record outside the caller's scope looks the same as one that does not exist.
 */
export async function findScoped(env: Env, model: ResolvedModel, id: unknown, op: AccessOp, select?: Record<string, true>) {
  const row = await delegateOf(env.db, model).findFirst({
    where: await scopedPrismaWhere(env, model, op, undefined, { record_uuid: recordId(model, id) }),
    ...(select ? { select } : {}),
  });
  if (!row) throw recordNotFound(model, id);
  return row;
}

/**
 * Record rules also bind what a write produces: the created or updated record must still be
 * one the caller may see under the rules of `op` (no moving a lead into another organization).
 */
async function checkWrittenRecord(env: Env, model: ResolvedModel, dbid: unknown, op: AccessOp): Promise<void> {
  if (!rulesFor(model, env.principal, op).length) return;
  const row = await delegateOf(env.db, model).findFirst({ where: await scopedPrismaWhere(env, model, op, undefined, { dbid }), select: { dbid: true } });
  if (!row) throw writtenOutside(model, op);
}

const writtenOutside = (model: ResolvedModel, op: AccessOp) =>
  new AccessDenied(`the record would fall outside what your role may ${op} in ${model.key}`, { model: model.key, op });


/** A record as the caller gets it: through the model's `post.<model>.read` hooks (masking). */
async function shown(env: Env, model: ResolvedModel, rec: Record<string, unknown>): Promise<Record<string, unknown>> {
  await runReadHooks(env, model.key, [rec]);
  return rec;
}

const record = (env: Env, model: ResolvedModel, row: Record<string, unknown>) =>
  toRecord(model, row, (f) => !canReadField(model, f, env.principal));

/**
 * A record sent back as it was read (REST's GET → PUT, a client saving what it loaded): its `id`,
 * and the fields the caller may not write (automatic, read-only, not theirs to write) holding
 * their stored value, are no change and are left out, so only a real change of such a field is
 * refused. An `id` naming another record is 422 ID_MISMATCH: an id never changes.
 */
function withoutEchoes(env: Env, model: ResolvedModel, values: Record<string, unknown>, before: Record<string, unknown>): Record<string, unknown> {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return values;
  let out: Record<string, unknown> | null = null;
  const drop = (key: string) => {
    out ??= { ...values };
    delete out[key];
  };
  for (const [key, value] of Object.entries(values)) {
    if (key === 'id') {
      if (value !== before.id) {
        throw new ValidationError(`${model.key}: the id sent (${JSON.stringify(value)}) is not the record's (${String(before.id)}); a record's id never changes`, { model: model.key, field: 'id' }, 'ID_MISMATCH');
      }
      drop(key);
      continue;
    }
    const field = model.fields.get(key);
    // a field the caller cannot read is never compared: "no change" would tell them its value
    if (!field || field.private || !canReadField(model, field, env.principal)) continue;
    const system = env.principal.kind === 'system';
    const writable = !field.auto && field.type !== 'one2many' && (system || (!field.readonly && canWriteField(model, field, env.principal)));
    if (!writable && key in before && sameValue(field, before[key], value)) drop(key);
  }
  return out ?? values;
}

/** Whether a value sent equals the stored one as the record shows it (an instant in any notation). */
function sameValue(field: ResolvedField, stored: unknown, sent: unknown): boolean {
  if (field.type === 'datetime' && typeof sent === 'string' && stored !== null && stored !== undefined) {
    const a = Date.parse(stored instanceof Date ? stored.toISOString() : String(stored));
    return !Number.isNaN(a) && a === Date.parse(sent);
  }
  return isDeepStrictEqual(stored ?? null, sent ?? null);
}

/** Strict check of caller-supplied values; system code may also write read-only fields. */
function checkUserValues(env: Env, model: ResolvedModel, values: Record<string, unknown>): void {
  toWriteData(model, values, 'update', {
    allowReadonly: env.principal.kind === 'system',
    canWrite: (f) => canWriteField(model, f, env.principal),
  });
}

/**
 * A Reference the caller writes must point at a record the caller may read (the target's read
 * permission and record rules), as `storage.folder` parents always did: otherwise 422
 * INVALID_REFERENCE, the very answer a missing record gets, so writing ids is no way to learn
 * which exist in another organization. An update that keeps a Reference's stored value (a form
 * sending back what it read) is not checked again. The system principal is not restricted.
 */
async function checkReferences(env: Env, model: ResolvedModel, values: Record<string, unknown>, before?: Record<string, unknown>): Promise<void> {
  if (env.principal.kind === 'system') return;
  for (const [name, value] of Object.entries(values)) {
    const field = model.fields.get(name);
    if (field?.type !== 'reference' || !field.target || typeof value !== 'string') continue;
    if (before && typeof before[name] === 'string' && (before[name] as string).toLowerCase() === value.toLowerCase()) continue;
    const target = env.registry.model(field.target);
    if (!canAccess(target, env.principal, 'read') || !isRecordId(value)) throw invalidReference(model, name, value);
    const found = await delegateOf(env.db, target)
      .findFirst({ where: await scopedPrismaWhere(env, target, 'read', undefined, { record_uuid: value.toLowerCase() }), select: { dbid: true } })
      // a rule of the target reaching a model the caller may not read: not readable either
      .catch((err: unknown) => { if (err instanceof AccessDenied) return null; throw err; });
    if (!found) throw invalidReference(model, name, value);
  }
}

/**
 * References declared `default_principal` that the caller left out: the caller's current
 * organization or the caller. Not checked as written references: they are the caller's own.
 */
function principalDefaults(env: Env, model: ResolvedModel, given: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of model.fields.values()) {
    if (!field.defaultPrincipal || given[field.name] !== undefined) continue;
    const value = env.principal[field.defaultPrincipal];
    if (value) out[field.name] = value;
  }
  return out;
}

/** 422 INVALID_REFERENCE, the same whether the record is missing or out of the caller's reach. */
export const invalidReference = (model: ResolvedModel, field: string, id: string) =>
  new ValidationError(`${model.key}: ${field} ${id} does not exist`, { model: model.key, field, id }, 'INVALID_REFERENCE');

function checkRevision(payload: Record<string, unknown>): number | undefined {
  const r = payload.revision;
  if (r === undefined || r === null) return undefined;
  if (!Number.isInteger(r)) throw new ValidationError('revision must be an integer', { field: 'revision' }, 'INVALID_TYPE');
  return r as number;
}

/** The record an update starts from: where it is, its revision, and all of it (as `toRecord` gives it). */
interface Found { dbid: number; revision: number; before: Record<string, unknown> }

/**
 * The storage steps of fw.update: read the record the rules of `update` let the caller reach,
 * write it, and check the written record is still one the caller may update. Through Prisma,
 * or, in a write transaction, as compiled statements on the transaction's own connection
 * (src/kernel/db/transaction-sql.ts), which cost a tenth of Prisma's queries. Both give records
 * as `toRecord` does (the SQL reads' decoders promise that output), so the command, its hooks
 * and its answer cannot tell them apart (`hasJson`: JSON values stay with Prisma).
 */
interface UpdateStore {
  find(id: unknown): Promise<Found>;
  write(found: Found, data: Record<string, unknown>, atRevision: boolean, stale: () => FwError): Promise<Record<string, unknown>>;
  checkWritten(dbid: number): Promise<void>;
}

function updateStore(env: Env, model: ResolvedModel): UpdateStore {
  const prisma: UpdateStore = {
    async find(id) {
      const row = await findScoped(env, model, id, 'update');
      return { dbid: row.dbid as number, revision: row.revision as number, before: record(env.sudo(), model, row) };
    },
    async write(found, data, atRevision, stale) {
      const where = atRevision ? { dbid: found.dbid, revision: found.revision } : { dbid: found.dbid };
      const updated = await delegateOf(env.db, model)
        .update({ where, data: { ...data, revision: { increment: 1 } } })
        .catch(mapDbError(model, { onMissing: stale }));
      return record(env.sudo(), model, updated);
    },
    checkWritten: (dbid) => checkWrittenRecord(env, model, dbid, 'update'),
  };
  const d = directWrites(env, model);
  if (!d) return prisma;
  return {
    async find(id) {
      const where = { AND: [{ record_uuid: { equals: recordId(model, id) } }, scopedWhere(env, model, 'update')] };
      const [rec] = await searchRecords(d.sql, model, { where, orderBy: [], take: 1, fields: d.fields });
      if (!rec) throw recordNotFound(model, id);
      return { dbid: rec.dbid as number, revision: rec.revision as number, before: rec };
    },
    async write(found, data, atRevision, stale) {
      if (hasJson(model, data)) return prisma.write(found, data, atRevision, stale);
      const { dialect } = d.sql;
      const set: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(data)) set[k] = encodeValue(model.fields.get(k)!, v, dialect);
      // Prisma's @updatedAt (data never holds these automatic fields: toWriteData refuses them)
      const now = new Date();
      for (const f of d.updatedAt) set[f.name] = encodeValue(f, now, dialect);
      const c = updateStatement(model, set, { dbid: found.dbid, ...(atRevision ? { revision: found.revision } : {}) }, d.fields, dialect);
      const rows = await d.sql.reader.rows(c.sql, c.params).catch(mapDbError(model));
      if (!rows.length) throw stale();
      return d.build(rows[0]!);
    },
    checkWritten: (dbid) => d.checkWritten(dbid, 'update'),
  };
}

/**
 * The storage steps of fw.create: insert the row, then check it is one the caller may create.
 * Through Prisma, or on a write transaction's own connection (as `updateStore`), where
 * the row gets what Prisma's client would send for the columns left out: the model's column
 * defaults (`columnDefault`, which the Prisma schema is printed from), one time for all its times.
 */
interface CreateStore {
  insert(data: Record<string, unknown>, uuid: string): Promise<Record<string, unknown>>;
  checkWritten(dbid: number): Promise<void>;
}

function createStore(env: Env, model: ResolvedModel): CreateStore {
  const prisma: CreateStore = {
    async insert(data, uuid) {
      const row = await delegateOf(env.db, model).create({ data: { ...data, record_uuid: uuid } }).catch(mapDbError(model));
      return record(env.sudo(), model, row);
    },
    checkWritten: (dbid) => checkWrittenRecord(env, model, dbid, 'create'),
  };
  const d = directWrites(env, model);
  if (!d) return prisma;
  return {
    async insert(data, uuid) {
      if (hasJson(model, data)) return prisma.insert(data, uuid);
      const { dialect } = d.sql;
      const now = new Date();
      const values: Record<string, unknown> = {};
      for (const f of model.fields.values()) {
        if (!f.stored) continue;
        if (f.name === 'record_uuid') values[f.name] = uuid;
        else if (f.name in data) values[f.name] = encodeValue(f, data[f.name], dialect);
        else {
          const def = columnDefault(f);
          if (def?.kind === 'now' || def?.kind === 'updatedAt') values[f.name] = encodeValue(f, now, dialect);
          else if (def?.kind === 'value') values[f.name] = encodeValue(f, def.value, dialect);
        }
      }
      const c = insertStatement(model, values, d.fields, dialect);
      const [row] = await d.sql.reader.rows(c.sql, c.params).catch(mapDbError(model));
      return d.build(row!);
    },
    checkWritten: (dbid) => d.checkWritten(dbid, 'create'),
  };
}

/** JSON values are left to Prisma, which owns their encoding (its JSON null forms among them). */
const hasJson = (model: ResolvedModel, data: Record<string, unknown>) => Object.keys(data).some((k) => model.fields.get(k)?.type === 'json');

/**
 * A model's columns as fw.create and fw.update read them back without Prisma: every column
 * `toRecord` gives (id first, in its order), how a row of them becomes the record, and the
 * columns Prisma's `@updatedAt` sets. Derived once per model (the registry's models do not
 * change), not on every write.
 */
type DirectColumns = { fields: ResolvedField[]; build: (row: unknown[]) => Record<string, unknown>; updatedAt: ResolvedField[] };
const directColumns: Record<Dialect, WeakMap<ResolvedModel, DirectColumns>> = { sqlite: new WeakMap(), postgresql: new WeakMap() };
function directColumnsOf(model: ResolvedModel, dialect: Dialect): DirectColumns {
  let c = directColumns[dialect].get(model);
  if (!c) {
    const stored = [...model.fields.values()].filter((f) => f.stored);
    const fields = [model.fields.get('record_uuid')!, ...stored.filter((f) => !f.private && f.name !== 'record_uuid')];
    c = { fields, build: recordBuilder(fields, dialect), updatedAt: stored.filter((f) => columnDefault(f)?.kind === 'updatedAt') };
    directColumns[dialect].set(model, c);
  }
  return c;
}

/**
 * What fw.create and fw.update need to run their statements on a write transaction's own
 * connection (src/kernel/db/transaction-sql.ts), or null when `env.db` is not such a
 * transaction: the reads' context on it, the model's columns (`directColumnsOf`), and the check
 * that a written record is one the caller may `op`.
 */
function directWrites(env: Env, model: ResolvedModel) {
  const reader = transactionSql(env.db);
  if (!reader) return null;
  const sql = { registry: env.registry, dialect: env.provider, reader };
  const columns = directColumnsOf(model, env.provider);
  return {
    ...columns,
    sql,
    async checkWritten(dbid: number, op: AccessOp): Promise<void> {
      if (!rulesFor(model, env.principal, op).length) return;
      const where = { AND: [{ dbid: { equals: dbid } }, scopedWhere(env, model, op)] };
      if (!(await searchRecords(sql, model, { where, orderBy: [], take: 1, fields: [columns.fields[0]!] })).length) throw writtenOutside(model, op);
    },
  };
}

/** A written record as its caller gets it (fields it may not read left out), taken before the post hooks get `after`. */
const callerView = (env: Env, model: ResolvedModel, rec: Record<string, unknown>) =>
  toRecord(model, { ...rec, record_uuid: rec.id }, (f) => !canReadField(model, f, env.principal));

/** Batch writes run each record through the single-record command, so hooks and rules apply per record. */
const MAX_BATCH = 1000;

async function idsMatching(env: Env, model: ResolvedModel, domain: unknown, op: AccessOp): Promise<string[]> {
  const where = await scopedPrismaWhere(env, model, op, domain);
  const rows = await delegateOf(env.db, model).findMany({ where, select: { record_uuid: true }, orderBy: { dbid: 'asc' }, take: MAX_BATCH + 1 });
  if (rows.length > MAX_BATCH) throw new BadRequest(`a batch may touch at most ${MAX_BATCH} records; narrow the filter`, { max: MAX_BATCH }, 'BATCH_TOO_LARGE');
  return rows.map((r) => r.record_uuid as string);
}

const batchCommands: CommandDecl[] = [
  {
    name: 'fw.create_many',
    op: 'create',
    description: 'Create several records in one transaction: { model, values: [ … ] }',
    async handler(env, payload) {
      const model = targetModel(env, payload, 'create');
      const list = payload.values;
      if (!Array.isArray(list)) throw new BadRequest('values must be a list of objects', undefined, 'INVALID_PAYLOAD');
      if (list.length > MAX_BATCH) throw new BadRequest(`at most ${MAX_BATCH} records per batch`, { max: MAX_BATCH }, 'BATCH_TOO_LARGE');
      const out: unknown[] = [];
      for (const [i, values] of list.entries()) {
        try {
          out.push(model.createCommand
            ? await env.dispatch(model.createCommand, values as Record<string, unknown>)
            : await env.dispatch('fw.create', { model: model.key, values }));
        } catch (err) {
          // the whole batch rolls back; the caller learns which record to fix
          throw err instanceof FwError ? aboutItem(err, 'values', i) : err;
        }
      }
      return out;
    },
  },
  {
    name: 'fw.update_many',
    op: 'update',
    description: 'Apply the same change to every record matching a domain: { model, domain, values }',
    async handler(env, payload) {
      const model = targetModel(env, payload, 'update');
      const ids = await idsMatching(env, model, payload.domain, 'update');
      for (const id of ids) await env.dispatch('fw.update', { model: model.key, id, values: payload.values });
      // the ids let a client undo exactly this change (the web client's bulk archive)
      return { count: ids.length, ids };
    },
  },
  {
    name: 'fw.delete_many',
    op: 'delete',
    description: 'Delete every record matching a domain: { model, domain }',
    async handler(env, payload) {
      const model = targetModel(env, payload, 'delete');
      const ids = await idsMatching(env, model, payload.domain, 'delete');
      for (const id of ids) await env.dispatch('fw.delete', { model: model.key, id });
      return { count: ids.length, ids };
    },
  },
];

/**
 * The values a delete notice carries (`RecordChange.before`, src/kernel/bus/pipeline.ts): the
 * fields the model's rules read (`ruleFields`), as records carry them. Set on fw.delete's result
 * under this key, which JSON leaves out, so the answer to the client does not change.
 */
export const DELETED_VALUES = Symbol('deleted values');
function deletedValues(model: ResolvedModel, row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(ruleFields(model).map((n) => [n, row[n] instanceof Date ? (row[n] as Date).toISOString() : row[n] ?? null]));
}

/**
 * `fw.could_read_deleted`: whether the caller's read rules would have let it read a record now
 * deleted, given the values its delete notice carries. No values (a model with rules whose
 * notice carries none) is no; a model without rules for the caller is yes (RBAC was checked).
 */
async function couldReadDeleted(env: Env, payload: Record<string, unknown>): Promise<{ readable: boolean }> {
  const model = targetModel(env, payload, 'read');
  if (!rulesFor(model, env.principal, 'read').length) return { readable: true };
  const values = payload.values;
  const sql = sqlReads(env);
  if (!sql || !values || typeof values !== 'object' || Array.isArray(values)) return { readable: false };
  const where = scopedWhere(env, model, 'read');
  const c = compileMatch(env.registry, model, where, env.provider, values as Record<string, unknown>);
  return { readable: (await sql.reader.rows(c.sql, c.params)).length > 0 };
}

/** The n-th record of a model in a deterministic-ids tenant: its uuid depends on the model and n only. */
async function nextDeterministicId(env: Env, model: ResolvedModel): Promise<string> {
  const last = await delegateOf(env.db, model).findFirst({ orderBy: { dbid: 'desc' }, select: { dbid: true } });
  return deterministicUuid(`record:${model.key}`, Number(last?.dbid ?? 0) + 1);
}

export const crudCommands: CommandDecl[] = [
  {
    name: 'fw.create',
    op: 'create',
    description: 'Create a record: { model, values }',
    async handler(env, payload) {
      const model = targetModel(env, payload, 'create');
      const given = (payload.values ?? {}) as Record<string, unknown>;
      // user input is validated strictly first; pre hooks (trusted code) may then add fields
      checkUserValues(env, model, given);
      await checkReferences(env, model, given);
      const values = { ...principalDefaults(env, model, given), ...given };
      const ctx = { env, model: model.key, op: 'create', payload: { ...values } };
      await runPreHooks(ctx);
      const data = toWriteData(model, ctx.payload, 'create', { allowReadonly: true });
      const uuid = env.principal.kind === 'system' && typeof payload.record_uuid === 'string' ? payload.record_uuid
        : env.deterministicIds ? await nextDeterministicId(env, model) : crypto.randomUUID();
      const store = createStore(env, model);
      const after = await store.insert(data, uuid);
      await store.checkWritten(after.dbid as number);
      const answer = callerView(env, model, after);
      await runPostHooks({ ...ctx, after });
      return shown(env, model, answer);
    },
  },
  {
    name: 'fw.read_one',
    op: 'read',
    mutates: false,
    description: 'One record by id: { model, id, fields? }',
    async handler(env, payload) {
      const model = targetModel(env, payload, 'read');
      const fields = readableFields(model, payload.fields, env);
      const sql = sqlReads(env);
      if (!sql) return shown(env, model, record(env, model, await findScoped(env, model, payload.id, 'read', selectOf(fields))));
      const where = { AND: [{ record_uuid: { equals: recordId(model, payload.id) } }, scopedWhere(env, model, 'read')] };
      const [found] = await searchRecords(sql, model, { where, orderBy: [], take: 1, fields });
      if (!found) throw recordNotFound(model, payload.id);
      return shown(env, model, found);
    },
  },
  {
    name: 'fw.search',
    op: 'read',
    mutates: false,
    description: 'Records matching a domain: { model, domain?, order?, limit?, offset?, fields?, count?, include? }',
    async handler(env, payload) {
      const model = targetModel(env, payload, 'read');
      let where = scopedWhere(env, model, 'read', payload.domain);
      const limit = pageNumber(payload.limit, 'limit');
      const offset = pageNumber(payload.offset, 'offset') ?? 0;
      const fields = readableFields(model, payload.fields, env);
      const order = orderBy(model, payload.order, env);
      const include = includedReferences(env, model, payload.include, fields);
      const sql = sqlReads(env);
      if (sql) {
        const { items, included } = await searchWithJoins(sql, model, { where, orderBy: order, take: limit, skip: offset, fields, joins: include });
        await runReadHooks(env, model.key, items);
        const total = payload.count ? await countRecords(sql, model, where) : undefined;
        return { items, total, limit: limit ?? null, offset, ...(include.length ? { included } : {}) };
      }
      const d = delegateOf(env.db, model);
      where = await prismaWhere(env.db, env.registry, model, where);
      const rows = ordersInJavaScript(model, order)
        ? await findManySortedHere(env, model, where, order, { take: limit, skip: offset, select: selectOf(fields) })
        : await d.findMany({ where, orderBy: order, take: limit, skip: offset, select: selectOf(fields) });
      const items = rows.map((r) => record(env, model, r));
      await runReadHooks(env, model.key, items);
      const total = payload.count ? await d.count({ where }) : undefined;
      return { items, total, limit: limit ?? null, offset };
    },
  },
  {
    name: 'fw.count',
    op: 'read',
    mutates: false,
    description: 'Number of records matching a domain: { model, domain? }',
    async handler(env, payload) {
      const model = targetModel(env, payload, 'read');
      const where = scopedWhere(env, model, 'read', payload.domain);
      const sql = sqlReads(env);
      return { count: sql ? await countRecords(sql, model, where) : await delegateOf(env.db, model).count({ where: await prismaWhere(env.db, env.registry, model, where) }) };
    },
  },
  {
    name: 'fw.read_group',
    op: 'read',
    mutates: false,
    description: 'Grouped counts and aggregates: { model, groupby, domain?, aggregates? }',
    async handler(env, payload) {
      const model = targetModel(env, payload, 'read');
      return readGroup(env, model, payload, await scopedPrismaWhere(env, model, 'read', payload.domain));
    },
  },
  {
    name: 'fw.update',
    op: 'update',
    description: 'Change fields of a record: { model, id, values, revision? }',
    async handler(env, payload) {
      const model = targetModel(env, payload, 'update');
      const given = (payload.values ?? {}) as Record<string, unknown>;
      const store = updateStore(env, model);
      const found = await store.find(payload.id);
      // a stale copy sent back with its revision is a conflict first, whatever else it holds
      const expected = checkRevision(payload);
      if (expected !== undefined && expected !== found.revision) {
        throw new StaleRevision(model.key, String(payload.id), expected, found.revision);
      }
      const values = withoutEchoes(env, model, given, found.before);
      checkUserValues(env, model, values);
      const before = found.before;
      await checkReferences(env, model, values, before);
      const ctx = { env, model: model.key, op: 'update', payload: { ...values }, before };
      await runPreHooks(ctx);
      // nothing to write (`{}`, or only echoes of what is there): the record as it is, its revision
      // and updated_at left alone, so no other client's copy turns stale over a change that is none
      if (Object.keys(ctx.payload).length === 0) return shown(env, model, callerView(env, model, before));
      const data = toWriteData(model, ctx.payload, 'update', { allowReadonly: true });
      // with a revision from the caller, the revision in the WHERE makes check-and-write atomic;
      // without one, the caller asked for last-writer-wins and concurrent writers must not fail
      const after = await store.write(found, data, expected !== undefined,
        () => new StaleRevision(model.key, String(payload.id), found.revision, null));
      await store.checkWritten(after.dbid as number);
      const answer = callerView(env, model, after);
      await runPostHooks({ ...ctx, after });
      return shown(env, model, answer);
    },
  },
  {
    name: 'fw.delete',
    op: 'delete',
    description: 'Delete a record: { model, id }',
    async handler(env, payload) {
      const model = targetModel(env, payload, 'delete');
      const row = await findScoped(env, model, payload.id, 'delete');
      const before = record(env.sudo(), model, row);
      const ctx = { env, model: model.key, op: 'delete', payload: { ...payload }, before };
      await runPreHooks(ctx);
      // counted after the hooks (they may detach what they own); the database's refusal of a
      // restrict Reference would not say what is in the way
      const refs = await countReferences(env, model, before.id as string, ['restrict']);
      if (refs.length) throw referencedError(model, before, refs);
      await delegateOf(env.db, model).delete({ where: { dbid: row.dbid } }).catch(mapDbError(model, { op: 'delete' }));
      await runPostHooks(ctx);
      const result = { id: before.id, deleted: true };
      // the delete notice carries what the rules read, so subscribers' rules are checked against it
      if (model.access.rules.length) Object.defineProperty(result, DELETED_VALUES, { value: deletedValues(model, row), enumerable: false });
      return result;
    },
  },
  {
    name: 'fw.could_read_deleted',
    op: 'read',
    mutates: false,
    internal: true,
    description: 'Whether the caller could have read a deleted record, from its delete notice: { model, values }',
    handler: (env, payload) => couldReadDeleted(env, payload),
  },
  ...batchCommands,
];
