/**
 * What src/kernel/data/values.ts accepts, converts and refuses, on fields resolved by the real
 * registry, no database: each type's check and conversion (`coerceScalar`), the bounds that bind
 * written values but not filters, every problem of a write reported at once with its code
 * (`toWriteData`), and what a stored row looks like to clients (`toRecord`).
 * tests/kernel/data/values.test.ts checks the NUL and date-time bounds through the server.
 */
import { DATETIME_EXPECTED } from '../../../src/kernel/data/datetime.ts';
import { describe, expect, it } from 'vitest';
import { coerceScalar, MAX_DATETIME, MIN_DATETIME, NUL_MESSAGE, toRecord, toWriteData } from '../../../src/kernel/data/values.ts';
import { defineModel, f } from '../../../src/kernel/declare.ts';
import { ValidationError } from '../../../src/kernel/errors.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import { fixtureApp } from '../../helpers/kernel.ts';

const registry = createRegistry([fixtureApp('fixture_vc', {
  models: [
    defineModel({ key: 'vc.parent', description: 'Parent', fields: { name: f.char(20), kids: f.one2many('vc.thing', 'parent') } }),
    defineModel({
      key: 'vc.thing',
      description: 'Thing',
      fields: {
        name: f.char(5, { required: true }),
        body: f.text(),
        count: f.integer({ min: 0, max: 10 }),
        big: f.integer(),
        ratio: f.float(),
        ok: f.boolean(),
        at: f.datetime(),
        ref: f.uuid(),
        stage: f.enum(['new', 'won'], { default: 'new' }),
        parent: f.reference('vc.parent'),
        data: f.json(),
        code: f.char(10, { readonly: true }),
        secret: f.char(10, { private: true }),
      },
    }),
  ],
})]);
const thing = registry.model('vc.thing');
const parent = registry.model('vc.parent');
const field = (name: string) => thing.fields.get(name) ?? parent.fields.get(name)!;

function problem(name: string, v: unknown, purpose: 'write' | 'filter' = 'write'): string {
  try {
    coerceScalar(field(name), v, purpose);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${name} = ${JSON.stringify(v)} should be refused`);
}

function writeErrors(values: unknown, mode: 'create' | 'update' = 'update', opts: Parameters<typeof toWriteData>[3] = {}): ValidationError {
  try {
    toWriteData(thing, values as Record<string, unknown>, mode, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('the write should be refused');
}
const codes = (err: ValidationError) => Object.fromEntries((err.details!.errors as Array<{ field: string; code: string }>).map((e) => [e.field, e.code]));

describe('coerceScalar', () => {
  it('text: a string without NUL; a Char at most its size when written, any length in a filter', () => {
    expect(coerceScalar(field('name'), 'abcde')).toBe('abcde');
    expect(problem('name', 'abcdef')).toBe('longer than 5 characters');
    expect(coerceScalar(field('name'), 'abcdef', 'filter')).toBe('abcdef');
    // a size counts characters (code points), as PostgreSQL's varchar does: five emoji fit in
    // five, though JavaScript counts ten UTF-16 units; a lone surrogate counts one
    expect(coerceScalar(field('name'), '😀😀😀😀😀')).toBe('😀😀😀😀😀');
    expect(problem('name', '😀😀😀😀😀😀')).toBe('longer than 5 characters');
    expect(coerceScalar(field('name'), '\ud83dab😀é')).toBe('\ud83dab😀é');
    expect(problem('body', 42)).toBe('expected text, got number');
    expect(problem('name', 'a\u0000b')).toBe(NUL_MESSAGE);
    expect(problem('name', 'a\u0000b', 'filter')).toBe(NUL_MESSAGE);
    expect(coerceScalar(field('body'), 'x'.repeat(100_000))).toHaveLength(100_000);
  });

  it('integer: whole numbers within 32 bits; min and max bind writes only', () => {
    for (const v of [0, 10, 2 ** 31 - 1, -(2 ** 31 - 1)]) expect(coerceScalar(field('big'), v)).toBe(v);
    expect(problem('big', 1.5)).toBe('expected an integer, got 1.5');
    expect(problem('big', '3')).toBe('expected an integer, got "3"');
    expect(problem('big', 2 ** 31)).toBe('out of the 32-bit integer range');
    expect(problem('big', -(2 ** 31))).toBe('out of the 32-bit integer range');
    expect(problem('big', 2 ** 31, 'filter')).toBe('out of the 32-bit integer range');
    expect(coerceScalar(field('count'), 0)).toBe(0);
    expect(coerceScalar(field('count'), 10)).toBe(10);
    expect(problem('count', -1)).toBe('must be at least 0');
    expect(problem('count', 11)).toBe('must be at most 10');
    expect(coerceScalar(field('count'), -1, 'filter')).toBe(-1);
    expect(coerceScalar(field('count'), 11, 'filter')).toBe(11);
  });

  it('float: a finite number', () => {
    expect(coerceScalar(field('ratio'), 0.25)).toBe(0.25);
    expect(coerceScalar(field('ratio'), -3)).toBe(-3);
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY]) expect(problem('ratio', v)).toBe(`expected a number, got ${v}`);
    expect(problem('ratio', '1')).toBe('expected a number, got "1"');
  });

  it('a refused value is shown as JSON, except what JSON cannot say, and cut when long', () => {
    // JSON.parse reads 1e400 as Infinity, which JSON.stringify prints as null
    expect(problem('ratio', Infinity)).toBe('expected a number, got Infinity');
    expect(problem('ratio', -Infinity)).toBe('expected a number, got -Infinity');
    expect(problem('ratio', NaN)).toBe('expected a number, got NaN');
    expect(problem('ratio', 'n'.repeat(500))).toBe(`expected a number, got "${'n'.repeat(99)}…`);
  });

  it('boolean: true or false, nothing that looks like one', () => {
    expect(coerceScalar(field('ok'), false)).toBe(false);
    for (const v of ['true', 1, 0]) expect(problem('ok', v)).toBe(`expected true or false, got ${JSON.stringify(v)}`);
  });

  it('datetime: a Date or ISO 8601 text, within the years 1 to 9999 UTC; the result is a Date', () => {
    const d = coerceScalar(field('at'), '2026-03-04T05:06:07+02:00') as Date;
    expect(d).toBeInstanceOf(Date);
    expect(d.toISOString()).toBe('2026-03-04T03:06:07.000Z');
    const given = new Date('2026-01-01T00:00:00Z');
    expect(coerceScalar(field('at'), given)).toBe(given);
    expect((coerceScalar(field('at'), MIN_DATETIME.toISOString()) as Date).getTime()).toBe(MIN_DATETIME.getTime());
    expect((coerceScalar(field('at'), MAX_DATETIME) as Date).getTime()).toBe(MAX_DATETIME.getTime());
    expect(MIN_DATETIME.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(MAX_DATETIME.toISOString()).toBe('9999-12-31T23:59:59.999Z');
    const before = new Date(MIN_DATETIME.getTime() - 1);
    expect(problem('at', before)).toBe(`${JSON.stringify(before)} is outside the years 1 to 9999 (UTC) a date-time may hold`);
    expect(problem('at', new Date(MAX_DATETIME.getTime() + 1), 'filter')).toMatch(/is outside the years 1 to 9999/);
    for (const v of ['yesterday', 1_700_000_000_000, null, new Date('x')]) {
      expect(problem('at', v)).toBe(`expected ${DATETIME_EXPECTED}, got ${JSON.stringify(v)}`);
    }
  });

  it('datetime text is read strictly: no rolled-over days, no other formats, and a time without an offset is UTC on any server', () => {
    const at = (v: string) => (coerceScalar(field('at'), v) as Date).toISOString();
    expect(at('2026-03-31')).toBe('2026-03-31T00:00:00.000Z');
    expect(at('2026-01-15T10:00')).toBe('2026-01-15T10:00:00.000Z');
    expect(at('2026-01-15 10:00:05')).toBe('2026-01-15T10:00:05.000Z');
    expect(at('2026-01-15T10:00:05.1239Z')).toBe('2026-01-15T10:00:05.123Z');
    expect(at('2026-01-15T10:00:05,5+0530')).toBe('2026-01-15T04:30:05.500Z');
    expect(at('2026-01-15T10:00-02')).toBe('2026-01-15T12:00:00.000Z');
    expect(at('2024-02-29T23:59:59Z')).toBe('2024-02-29T23:59:59.000Z');
    expect(at('0099-06-01T00:00:00Z')).toBe('0099-06-01T00:00:00.000Z');
    // the server's own time zone plays no part (Node applies a changed TZ at once)
    const tz = process.env.TZ;
    try {
      process.env.TZ = 'America/New_York';
      expect(new Date('2026-01-15T10:00:00').getUTCHours(), 'JavaScript\'s own reading').toBe(15);
      expect(at('2026-01-15T10:00:00')).toBe('2026-01-15T10:00:00.000Z');
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
    for (const v of ['2026-02-30', '2025-02-29', '2100-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00',
      '2026-01-15T24:00', '2026-01-15T10:60', '2026-01-15T10:00:60', '2026-01-15T10:00+24:00', '2026-01-15T10:00+02:60',
      '2026', '2026-1-5', '2026-01', 'Thu, 15 Jan 2026 10:00:00 GMT', '01/15/2026', '2026-01-15T10', '2026-01-15Z',
      ' 2026-01-15', '2026-01-15T10:00:00 Z', '2026-01-15T10:00:00.Z', '2026-01-15T10:00:00.1234567891Z']) {
      expect(problem('at', v), v).toBe(`expected ${DATETIME_EXPECTED}, got ${JSON.stringify(v)}`);
    }
    // an expanded year parses, and is told it is out of range rather than not a date
    expect(problem('at', '+010000-01-01T00:00:00Z')).toMatch(/is outside the years 1 to 9999/);
  });

  it('uuid and reference: a UUID, kept in lowercase', () => {
    const id = '0F8FAD5B-D9CB-469F-A165-70867728950E';
    expect(coerceScalar(field('ref'), id)).toBe(id.toLowerCase());
    expect(coerceScalar(field('parent'), id)).toBe(id.toLowerCase());
    for (const v of [`${id}0`, id.slice(1), 42, 'not-a-uuid', ` ${id}`]) {
      expect(problem('ref', v)).toBe(`expected a record id (UUID), got ${JSON.stringify(v)}`);
    }
  });

  it('enum: one of the declared values, exactly', () => {
    expect(coerceScalar(field('stage'), 'won')).toBe('won');
    for (const v of ['WON', 'lost', 1]) expect(problem('stage', v)).toBe(`expected one of new, won, got ${JSON.stringify(v)}`);
  });

  it('json: any value without a NUL in a string or a key, however deep', () => {
    const v = { a: [1, { b: 'x' }], c: null };
    expect(coerceScalar(field('data'), v)).toBe(v);
    expect(coerceScalar(field('data'), 'plain')).toBe('plain');
    expect(problem('data', { a: [{ b: ['x\u0000'] }] })).toBe(NUL_MESSAGE);
    expect(problem('data', { a: { 'k\u0000': 1 } })).toBe(NUL_MESSAGE);
    expect(problem('data', 'a\u0000')).toBe(NUL_MESSAGE);
    let deep: unknown = 'end\u0000';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(problem('data', deep)).toBe(NUL_MESSAGE);
  });

  it('a One2Many holds no value', () => {
    expect(problem('kids', [])).toBe('one2many fields hold no value');
  });
});

describe('toWriteData', () => {
  it('converts every value, and null clears an optional field', () => {
    expect(toWriteData(thing, { name: 'ab', count: 3, at: '2026-01-01T00:00:00Z', body: null, ratio: undefined }, 'update')).toEqual({
      name: 'ab', count: 3, at: new Date('2026-01-01T00:00:00Z'), body: null, ratio: null,
    });
  });

  it('values that are not a JSON object are refused as a whole (400 INVALID_PAYLOAD, as every malformed payload)', () => {
    for (const v of [null, [], 'x']) {
      expect(() => toWriteData(thing, v as unknown as Record<string, unknown>, 'create')).toThrow(
        expect.objectContaining({ status: 400, code: 'INVALID_PAYLOAD', message: 'vc.thing: values must be a JSON object' }),
      );
    }
  });

  it('every problem is reported at once, each with its code, in one 422 VALIDATION_FAILED', () => {
    const err = writeErrors({
      nope: 1, dbid: 5, code: 'x', name: 'toolong', stage: 'lost', count: 'many', ok: 'yes', secret: 's',
    });
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.status).toBe(422);
    expect(codes(err)).toEqual({
      nope: 'UNKNOWN_FIELD', dbid: 'READONLY_FIELD', code: 'READONLY_FIELD', name: 'TOO_LONG', stage: 'INVALID_ENUM',
      count: 'INVALID_TYPE', ok: 'INVALID_TYPE', secret: 'UNKNOWN_FIELD',
    });
    expect(err.details!.model).toBe('vc.thing');
    expect(err.message).toBe([
      'vc.thing has no field "nope"', '"dbid" is read-only', '"code" is read-only', '"name": longer than 5 characters',
      '"stage": expected one of new, won, got "lost"', '"count": expected an integer, got "many"', '"ok": expected true or false, got "yes"',
      'vc.thing has no field "secret"',
    ].join('; '));
  });

  it('a One2Many is read-only', () => {
    expect(() => toWriteData(parent, { kids: [] }, 'update')).toThrow('"kids" is read-only');
  });

  it('allowReadonly lets trusted code write read-only and private fields, never automatic ones', () => {
    expect(toWriteData(thing, { code: 'c1', secret: 's1' }, 'update', { allowReadonly: true })).toEqual({ code: 'c1', secret: 's1' });
    expect(codes(writeErrors({ dbid: 1, record_uuid: '0f8fad5b-d9cb-469f-a165-70867728950e' }, 'update', { allowReadonly: true })))
      .toEqual({ dbid: 'READONLY_FIELD', record_uuid: 'READONLY_FIELD' });
  });

  it('a field the caller may not write is FIELD_ACCESS_DENIED, before its value is looked at', () => {
    const err = writeErrors({ count: 'bad', body: 'fine' }, 'update', { canWrite: (fld) => fld.name !== 'count' });
    expect(codes(err)).toEqual({ count: 'FIELD_ACCESS_DENIED' });
    expect(err.message).toBe('you may not write "count"');
  });

  it('null for a required field is REQUIRED', () => {
    expect(codes(writeErrors({ name: null }))).toEqual({ name: 'REQUIRED' });
    expect(writeErrors({ name: undefined }).message).toBe('"name" is required');
  });

  it('on create, a required field without a default must be given; on update it may be left out', () => {
    expect(codes(writeErrors({ body: 'x' }, 'create'))).toEqual({ name: 'REQUIRED' });
    expect(toWriteData(thing, { name: 'a' }, 'create')).toEqual({ name: 'a' });
    expect(toWriteData(thing, { body: 'x' }, 'update')).toEqual({ body: 'x' });
    // one problem per field: a required field with a bad value is not also missing
    expect(writeErrors({ name: 'toolong' }, 'create').details!.errors).toHaveLength(1);
  });
});

describe('toRecord', () => {
  const row = {
    dbid: 7, record_uuid: 'u-1', revision: 2n, created_at_utc: new Date('2026-01-01T00:00:00Z'), updated_at_utc: new Date('2026-01-02T00:00:00Z'),
    name: 'a', body: null, count: 3, stage: 'won', secret: 's', code: 'c', parent: null,
  };

  it('id is the record_uuid; stored fields follow with dates as ISO text and big integers as numbers', () => {
    const r = toRecord(thing, row);
    expect(r).toEqual({
      id: 'u-1', dbid: 7, revision: 2, created_at_utc: '2026-01-01T00:00:00.000Z', updated_at_utc: '2026-01-02T00:00:00.000Z',
      name: 'a', body: null, count: 3, stage: 'won', code: 'c', parent: null,
    });
    expect(Object.keys(r)[0]).toBe('id');
    expect(r).not.toHaveProperty('record_uuid');
  });

  it('private fields, fields the row does not carry and fields the caller may not read are left out', () => {
    const r = toRecord(thing, row, (fld) => fld.name === 'count');
    expect(r).not.toHaveProperty('secret');
    expect(r).not.toHaveProperty('ratio');
    expect(r).not.toHaveProperty('count');
    expect(r).toHaveProperty('name', 'a');
    expect(toRecord(parent, { record_uuid: 'p', name: 'x', kids: [1] })).toEqual({ id: 'p', name: 'x' });
  });
});
