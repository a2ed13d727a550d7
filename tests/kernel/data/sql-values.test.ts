/**
 * Column decoding on the SQL read path (src/kernel/data/sql/values.ts): timestamps read back as
 * text become the same ISO strings a record built by Prisma carries, whatever the session's
 * time zone or the stored precision, and SQLite's 1/0/NULL booleans keep their null.
 */
import { describe, expect, it } from 'vitest';
import { decoderOf, isoFromPostgres } from '../../../src/kernel/data/sql/values.ts';
import type { ResolvedField } from '../../../src/kernel/registry/model.ts';

describe('PostgreSQL timestamptz text', () => {
  it('UTC text becomes ISO with exactly three fraction digits', () => {
    expect(isoFromPostgres('2026-11-22 23:01:58.123+00')).toBe('2026-11-22T23:01:58.123Z');
    expect(isoFromPostgres('2026-02-01 10:20:30.4+00')).toBe('2026-02-01T10:20:30.400Z');
    expect(isoFromPostgres('2026-02-01 10:20:30+00')).toBe('2026-02-01T10:20:30.000Z');
    // microseconds (a column without precision 3) are cut to milliseconds, as a Date would
    expect(isoFromPostgres('2026-02-01 10:20:30.123987+00')).toBe('2026-02-01T10:20:30.123Z');
  });

  it('another session time zone is converted to UTC', () => {
    expect(isoFromPostgres('2026-11-23 00:01:58.12+01')).toBe('2026-11-22T23:01:58.120Z');
    expect(isoFromPostgres('2026-01-01 05:30:00+05:30')).toBe('2026-01-01T00:00:00.000Z');
    expect(isoFromPostgres('2025-12-31 19:00:00-05')).toBe('2026-01-01T00:00:00.000Z');
  });

  it('null stays null, and a Date (a column the reader did not keep as text) is printed', () => {
    expect(isoFromPostgres(null)).toBeNull();
    expect(isoFromPostgres(new Date('2026-03-04T05:06:07.089Z'))).toBe('2026-03-04T05:06:07.089Z');
  });

  it('the datetime decoder of each dialect agrees on the same instant', () => {
    const field = { type: 'datetime' } as ResolvedField;
    expect(decoderOf(field, 'postgresql')!('2026-01-02 03:04:05.678+00')).toBe('2026-01-02T03:04:05.678Z');
    expect(decoderOf(field, 'sqlite')!('2026-01-02T03:04:05.678+00:00')).toBe('2026-01-02T03:04:05.678Z');
  });
});

describe('SQLite booleans', () => {
  it('1 and 0 become true and false; a nullable column\'s null stays null', () => {
    const decode = decoderOf({ type: 'boolean' } as ResolvedField, 'sqlite')!;
    expect([decode(1), decode(0), decode(null)]).toEqual([true, false, null]);
    expect(decoderOf({ type: 'boolean' } as ResolvedField, 'postgresql')).toBeNull();
  });
});
