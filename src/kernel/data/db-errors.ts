import { Conflict, FwError, NotFound, UniqueViolation, ValidationError } from '../errors.js';
import type { ResolvedModel } from '../registry/model.js';

interface PrismaLikeError {
  code?: string;
  meta?: {
    target?: string[] | string;
    modelName?: string;
    driverAdapterError?: { cause?: { kind?: string; constraint?: { fields?: string[]; index?: string } } };
  };
}

/**
 * Turns a database error of a write on `model` into our error classes. Known Prisma codes:
 * P2002 unique, P2003 foreign key, P2025 record to update/delete not found.
 */
export function mapDbError(model: ResolvedModel, opts: { op?: 'write' | 'delete'; onMissing?: () => FwError } = {}) {
  const { op = 'write', onMissing } = opts;
  return (err: unknown): never => {
    const e = err as PrismaLikeError;
    const cause = e.meta?.driverAdapterError?.cause ?? sqliteCause(err) ?? postgresCause(err);
    if (e.code === 'P2002' || cause?.kind === 'UniqueConstraintViolation') {
      const target = e.meta?.target ?? cause?.constraint?.fields ?? fieldsOfIndex(model, cause?.constraint?.index) ?? [];
      throw new UniqueViolation(model.key, (Array.isArray(target) ? target : [target]).map(String));
    }
    if (e.code === 'P2003' || cause?.kind === 'ForeignKeyConstraintViolation') {
      if (op === 'delete') {
        throw new Conflict(`${model.key}: other records still refer to this one`, { model: model.key }, 'RECORD_REFERENCED');
      }
      throw new ValidationError(`${model.key}: a referenced record does not exist`, { model: model.key }, 'INVALID_REFERENCE');
    }
    if (e.code === 'P2025') throw onMissing ? onMissing() : new NotFound(`${model.key}: record not found`, { model: model.key }, 'RECORD_NOT_FOUND');
    if (e.code === 'P2000' || cause?.kind === 'LengthMismatch') throw new ValidationError(`${model.key}: a value is too long for its column`, { model: model.key }, 'TOO_LONG');
    throw err;
  };
}

type Cause = NonNullable<NonNullable<NonNullable<PrismaLikeError['meta']>['driverAdapterError']>['cause']>;

/**
 * A constraint error of better-sqlite3 itself (a statement run on a transaction's connection
 * without Prisma, src/kernel/db/transaction-sql.ts), read as Prisma's SQLite adapter reads it:
 * "UNIQUE constraint failed: res_organization.code, …" names the fields.
 */
function sqliteCause(err: unknown): Cause | undefined {
  if (!(err instanceof Error) || !('code' in err) || typeof err.code !== 'string') return undefined;
  if (err.code === 'SQLITE_CONSTRAINT_UNIQUE' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const fields = err.message.split('constraint failed: ').at(1)?.split(', ').map((c) => c.split('.').pop()!);
    return { kind: 'UniqueConstraintViolation', ...(fields ? { constraint: { fields } } : {}) };
  }
  if (err.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || err.code === 'SQLITE_CONSTRAINT_TRIGGER') return { kind: 'ForeignKeyConstraintViolation' };
  return undefined;
}

/**
 * An error of node-postgres itself (a statement run on a transaction's connection without
 * Prisma, src/kernel/db/transaction-sql.ts), read as Prisma's PostgreSQL adapter reads it: by
 * SQLSTATE, the unique violation naming its index (`fieldsOfIndex`).
 */
function postgresCause(err: unknown): Cause | undefined {
  if (!(err instanceof Error) || !('code' in err) || typeof err.code !== 'string' || !('severity' in err)) return undefined;
  const constraint = 'constraint' in err && typeof err.constraint === 'string' ? err.constraint : undefined;
  if (err.code === '23505') return { kind: 'UniqueConstraintViolation', ...(constraint ? { constraint: { index: constraint } } : {}) };
  if (err.code === '23503') return { kind: 'ForeignKeyConstraintViolation' };
  if (err.code === '22001') return { kind: 'LengthMismatch' };
  return undefined;
}

/**
 * PostgreSQL names only the violated index (`<table>_<field>_key`, Prisma's naming); the fields
 * are read back from it so the error says which value clashed, as it does on SQLite.
 */
function fieldsOfIndex(model: ResolvedModel, index: string | undefined): string[] | undefined {
  const prefix = `${model.names.table}_`;
  if (!index?.startsWith(prefix) || !index.endsWith('_key')) return undefined;
  const rest = index.slice(prefix.length, -'_key'.length);
  // one field or a compound key: the longest field names first, so names containing "_" are
  // matched whole (a field that is the whole rest is found before any shorter one)
  const names = [...model.fields.keys()].sort((a, b) => b.length - a.length);
  const out: string[] = [];
  let left = rest;
  while (left) {
    const hit = names.find((n) => left === n || left.startsWith(`${n}_`));
    if (!hit) return [rest];
    out.push(hit);
    left = left.slice(hit.length + 1);
  }
  return out;
}
