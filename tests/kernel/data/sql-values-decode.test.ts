/**
 * Decoding rules of src/kernel/data/sql/values.ts that sql-values.test.ts leaves open: a SQLite
 * date-time text in another form than the adapter's (`YYYY-MM-DD HH:MM:SS` as SQLite's own
 * CURRENT_TIMESTAMP writes it, another offset, no fraction) is read as the instant it names in
 * UTC whatever the process time zone, text that is no date-time comes back as it is, PostgreSQL's
 * `infinity` and text pg cannot parse come back as their text instead of failing the read, and
 * the types stored as they are read have no decoder (null).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decoderOf, isoFromPostgres } from '../../../src/kernel/data/sql/values.ts';
import type { FieldType } from '../../../src/kernel/declare.ts';
import type { ResolvedField } from '../../../src/kernel/registry/model.ts';
import { adminPrincipal, bootTestKernel, withPgClient, type TestKernel } from '../../helpers/kernel.ts';

const field = (type: FieldType) => ({ type }) as ResolvedField;

describe('SQLite date-time text, in a process whose time zone is not UTC', () => {
  const tz = process.env.TZ;
  const fromSqlite = decoderOf(field('datetime'), 'sqlite')!;
  beforeAll(() => {
    process.env.TZ = 'America/New_York';
  });
  afterAll(() => {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  });

  it('the process time zone really is another one (so the rules below are tested)', () => {
    expect(new Date('2026-01-02 03:04:05').toISOString()).not.toBe('2026-01-02T03:04:05.000Z');
  });

  it('"YYYY-MM-DD HH:MM:SS[.fff]" (SQLite\'s CURRENT_TIMESTAMP) is UTC', () => {
    expect(fromSqlite('2026-01-02 03:04:05')).toBe('2026-01-02T03:04:05.000Z');
    expect(fromSqlite('2026-01-02 03:04:05.678')).toBe('2026-01-02T03:04:05.678Z');
  });

  it('ISO text without a zone ("YYYY-MM-DDTHH:MM[:SS[.fff]]", written by another tool) is UTC too, not the process\'s local time', () => {
    expect(fromSqlite('2026-01-02T03:04:05')).toBe('2026-01-02T03:04:05.000Z');
    expect(fromSqlite('2026-01-02T03:04:05.678')).toBe('2026-01-02T03:04:05.678Z');
    expect(fromSqlite('2026-01-02T03:04')).toBe('2026-01-02T03:04:00.000Z');
  });

  it('ISO text with another offset, or without a fraction, is the instant it names', () => {
    // the adapter's length (29 characters), but not its +00:00
    expect(fromSqlite('2026-01-02T03:04:05.678+01:00')).toBe('2026-01-02T02:04:05.678Z');
    // the adapter's +00:00, but not its length
    expect(fromSqlite('2026-01-02T03:04:05+00:00')).toBe('2026-01-02T03:04:05.000Z');
    expect(fromSqlite('2026-01-02T03:04:05Z')).toBe('2026-01-02T03:04:05.000Z');
  });

  it('text that names no instant comes back as it is; the adapter\'s own form becomes …Z', () => {
    expect(fromSqlite('soon')).toBe('soon');
    expect(fromSqlite('2026-01-02T03:04:05.678+00:00')).toBe('2026-01-02T03:04:05.678Z');
  });
});

describe('PostgreSQL timestamptz text pg does not turn into a Date', () => {
  it('infinity and -infinity (which a timestamptz column can hold) come back as their text', () => {
    expect(isoFromPostgres('infinity')).toBe('infinity');
    expect(isoFromPostgres('-infinity')).toBe('-infinity');
    expect(decoderOf(field('datetime'), 'postgresql')!('infinity')).toBe('infinity');
  });

  it('text pg cannot parse comes back as it is, not as a failed read', () => {
    expect(isoFromPostgres('not a date')).toBe('not a date');
  });
});

describe('a timestamptz holding infinity, read from PostgreSQL', () => {
  let tk: TestKernel;
  const T = 'decodeinf';
  const admin = adminPrincipal(T);
  beforeAll(async () => {
    tk = await bootTestKernel({ provider: 'postgresql' });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('comes back as "infinity" on the compiled-SQL read path (another writer stored it)', async () => {
    const { id } = await tk.kernel.dispatch<{ id: string }>('fw.create', { model: 'crm.lead', values: { name: 'Forever' } }, admin);
    await withPgClient(tk.kernel.tenants.pgUrl(tk.kernel.tenants.pgDatabase(T)),
      (c) => c.query("update crm_lead set closed_at = 'infinity' where record_uuid = $1", [id]));
    const page = await tk.kernel.dispatch<{ items: unknown[] }>('fw.search', { model: 'crm.lead', domain: [['name', '=', 'Forever']], fields: ['closed_at'] }, admin);
    expect(page.items).toEqual([{ id, closed_at: 'infinity' }]);
  });
});

describe('columns read as they are stored', () => {
  it('text, numbers, ids and Enum values have no decoder on either engine', () => {
    for (const type of ['char', 'text', 'integer', 'float', 'uuid', 'reference', 'enum'] as const) {
      for (const dialect of ['sqlite', 'postgresql'] as const) expect(decoderOf(field(type), dialect), `${type} on ${dialect}`).toBeNull();
    }
  });
});
