/**
 * Rules of src/kernel/data/db-errors.ts that db-errors.test.ts leaves open: a P2002 that carries
 * no detail at all (no meta, no driver-adapter cause) is still 409 UNIQUE_VIOLATION (naming no
 * field, not a TypeError turned 500), P2000 names the model in its details, and the fields read
 * back from a PostgreSQL index name are matched longest first even when a shorter field whose
 * name starts the longer one is declared before it.
 */
import { describe, expect, it } from 'vitest';
import { mapDbError } from '../../../src/kernel/data/db-errors.ts';
import { defineModel, f } from '../../../src/kernel/declare.ts';
import { FwError } from '../../../src/kernel/errors.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import { fixtureApp } from '../../helpers/kernel.ts';

const registry = createRegistry([fixtureApp('fixture_dber', {
  models: [defineModel({
    key: 'dber.item',
    description: 'Item',
    // "org" is declared before "org_id", "name" before "name_en"
    fields: { org: f.uuid(), org_id: f.uuid(), name: f.char(10), name_en: f.char(10), code: f.char(5, { unique: true }) },
  })],
})]);
const model = registry.model('dber.item');
const table = model.names.table;

function mapped(err: unknown): FwError {
  try {
    mapDbError(model)(err);
  } catch (e) {
    expect(e).toBeInstanceOf(FwError);
    return e as FwError;
  }
  throw new Error('mapDbError must throw');
}
const pgIndex = (index: string) => ({ meta: { driverAdapterError: { cause: { kind: 'UniqueConstraintViolation', constraint: { index } } } } });

describe('unique violations', () => {
  it('a P2002 without meta or cause is 409 UNIQUE_VIOLATION naming no field: "the same unique values"', () => {
    const err = mapped({ code: 'P2002' });
    expect({ status: err.status, code: err.code, message: err.message, details: err.details }).toEqual({
      status: 409, code: 'UNIQUE_VIOLATION', message: 'dber.item: a record with the same unique values already exists', details: { model: 'dber.item', fields: [] },
    });
  });

  it('a P2002 whose meta has no target and whose cause has no constraint names no field', () => {
    expect(mapped({ code: 'P2002', meta: { modelName: 'DberItem' } }).details).toEqual({ model: 'dber.item', fields: [] });
    expect(mapped({ code: 'P2002', meta: { driverAdapterError: {} } }).details).toEqual({ model: 'dber.item', fields: [] });
  });

  it('fields read back from a PostgreSQL index: the longest name first, whatever the declaration order', () => {
    const fields = (index: string) => mapped(pgIndex(index)).details!.fields;
    expect(fields(`${table}_org_id_name_key`)).toEqual(['org_id', 'name']);
    expect(fields(`${table}_org_id_name_en_key`)).toEqual(['org_id', 'name_en']);
    expect(fields(`${table}_name_en_org_key`)).toEqual(['name_en', 'org']);
    expect(fields(`${table}_org_name_key`)).toEqual(['org', 'name']);
    expect(fields(`${table}_name_en_key`)).toEqual(['name_en']);
    expect(fields(`${table}_code_key`)).toEqual(['code']);
    expect(mapped(pgIndex(`${table}_org_id_name_key`)).message).toBe('dber.item: a record with the same org_id, name already exists');
  });
});

describe('too long', () => {
  it('P2000 is 422 TOO_LONG naming the model in its details', () => {
    const err = mapped({ code: 'P2000' });
    expect({ status: err.status, code: err.code, message: err.message, details: err.details }).toEqual({
      status: 422, code: 'TOO_LONG', message: 'dber.item: a value is too long for its column', details: { model: 'dber.item' },
    });
  });
});
