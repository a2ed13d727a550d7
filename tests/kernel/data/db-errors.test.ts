/**
 * How src/kernel/data/db-errors.ts turns the database errors of a write into our errors: Prisma's
 * codes (P2002 unique, P2003 foreign key, P2025 missing record, P2000 too long) and the driver
 * adapter's error kinds, and which fields a unique violation names when PostgreSQL only names the
 * index. The inputs are the error shapes Prisma and its driver adapters produce, and node-postgres's
 * own errors raised by the machine's server; the writes that raise them for real are in
 * tests/kernel/commands.test.ts and tests/kernel/db/transaction-sql.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { mapDbError } from '../../../src/kernel/data/db-errors.ts';
import { defineModel, f } from '../../../src/kernel/declare.ts';
import { FwError, NotFound } from '../../../src/kernel/errors.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import { fixtureApp, PG_URL, withPgClient } from '../../helpers/kernel.ts';

const registry = createRegistry([fixtureApp('fixture_dbe', {
  models: [defineModel({
    key: 'dbe.item',
    description: 'Item',
    fields: { code: f.char(10, { unique: true }), org_id: f.uuid(), org: f.uuid(), name: f.char(10) },
  })],
})]);
const model = registry.model('dbe.item');
const table = model.names.table;

function mapped(err: unknown, opts?: Parameters<typeof mapDbError>[1]): unknown {
  try {
    mapDbError(model, opts)(err);
  } catch (e) {
    return e;
  }
  throw new Error('mapDbError must throw');
}
const adapter = (kind: string, constraint?: { fields?: string[]; index?: string }) => ({ meta: { driverAdapterError: { cause: { kind, constraint } } } });

describe('unique violations → 409 UNIQUE_VIOLATION naming the fields', () => {
  it('P2002 with its target (a list or one name)', () => {
    expect(mapped({ code: 'P2002', meta: { target: ['code'] } })).toMatchObject({
      status: 409, code: 'UNIQUE_VIOLATION', message: 'dbe.item: a record with the same code already exists', details: { model: 'dbe.item', fields: ['code'] },
    });
    expect(mapped({ code: 'P2002', meta: { target: 'code' } })).toMatchObject({ details: { fields: ['code'] } });
    expect(mapped({ code: 'P2002', meta: { target: ['org', 'name'] } })).toMatchObject({ message: 'dbe.item: a record with the same org, name already exists' });
  });

  it('the driver adapter\'s UniqueConstraintViolation with the fields (SQLite)', () => {
    expect(mapped(adapter('UniqueConstraintViolation', { fields: ['code'] }))).toMatchObject({ code: 'UNIQUE_VIOLATION', details: { fields: ['code'] } });
  });

  it('PostgreSQL names only the index <table>_<fields>_key: the fields are read back from it, longest names first', () => {
    const fields = (index: string) => (mapped(adapter('UniqueConstraintViolation', { index })) as FwError).details!.fields;
    expect(fields(`${table}_code_key`)).toEqual(['code']);
    expect(fields(`${table}_org_id_name_key`)).toEqual(['org_id', 'name']);
    expect(fields(`${table}_org_name_key`)).toEqual(['org', 'name']);
    expect(fields(`${table}_name_org_id_key`)).toEqual(['name', 'org_id']);
    // an index that names no known field is reported as it is; one of another table names nothing
    expect(fields(`${table}_weird_key`)).toEqual(['weird']);
    expect(fields(`${table}_code_zzz_key`)).toEqual(['code_zzz']);
    expect(fields(`other_code_key`)).toEqual([]);
    expect(fields(`${table}_code_idx`)).toEqual([]);
    expect((mapped(adapter('UniqueConstraintViolation')) as FwError).details!.fields).toEqual([]);
  });
});

describe('foreign keys, missing records, long values', () => {
  it('P2003 on a write is 422 INVALID_REFERENCE; on a delete 409 RECORD_REFERENCED', () => {
    for (const err of [{ code: 'P2003' }, adapter('ForeignKeyConstraintViolation')]) {
      expect(mapped(err)).toMatchObject({ status: 422, code: 'INVALID_REFERENCE', message: 'dbe.item: a referenced record does not exist', details: { model: 'dbe.item' } });
      expect(mapped(err, { op: 'write' })).toMatchObject({ code: 'INVALID_REFERENCE' });
      expect(mapped(err, { op: 'delete' })).toMatchObject({ status: 409, code: 'RECORD_REFERENCED', message: 'dbe.item: other records still refer to this one', details: { model: 'dbe.item' } });
    }
  });

  it('P2025 is 404 RECORD_NOT_FOUND, or the caller\'s own error', () => {
    expect(mapped({ code: 'P2025' })).toMatchObject({ status: 404, code: 'RECORD_NOT_FOUND', message: 'dbe.item: record not found', details: { model: 'dbe.item' } });
    const own = new NotFound('gone', undefined, 'GONE');
    expect(mapped({ code: 'P2025' }, { onMissing: () => own })).toBe(own);
  });

  it('P2000 is 422 TOO_LONG', () => {
    expect(mapped({ code: 'P2000' })).toMatchObject({ status: 422, code: 'TOO_LONG', message: 'dbe.item: a value is too long for its column' });
  });

  it('node-postgres\'s own errors (a compiled write on a transaction\'s connection) map as Prisma\'s adapter maps them: unique by index, foreign key, too long', async () => {
    // real errors of the machine's server, on a temporary table named like the model's
    const errors = await withPgClient(PG_URL, async (c) => {
      await c.query(`create temporary table ${table}_ref (id int primary key)`);
      await c.query(`create temporary table ${table} (code varchar(10), ref int references ${table}_ref (id))`);
      await c.query(`create unique index ${table}_code_key on ${table} (code)`);
      await c.query(`insert into ${table} (code) values ('taken')`);
      const failing = (text: string) => c.query(text).then(() => { throw new Error(`${text} succeeded`); }, (e: unknown) => e);
      return {
        unique: await failing(`insert into ${table} (code) values ('taken')`),
        foreign: await failing(`insert into ${table} (code, ref) values ('other', 42)`),
        long: await failing(`insert into ${table} (code) values ('much too long a code')`),
        other: await failing('select 1 / 0'),
      };
    });
    expect(mapped(errors.unique)).toMatchObject({ status: 409, code: 'UNIQUE_VIOLATION', details: { model: 'dbe.item', fields: ['code'] } });
    expect(mapped(errors.foreign)).toMatchObject({ status: 422, code: 'INVALID_REFERENCE' });
    expect(mapped(errors.foreign, { op: 'delete' })).toMatchObject({ status: 409, code: 'RECORD_REFERENCED' });
    expect(mapped(errors.long)).toMatchObject({ status: 422, code: 'TOO_LONG' });
    expect(mapped(errors.other)).toBe(errors.other);
  });

  it('anything else is thrown as it came', () => {
    for (const err of [new Error('boom'), { code: 'P1001' }, adapter('TooManyConnections'), 'text']) expect(mapped(err)).toBe(err);
  });
});
