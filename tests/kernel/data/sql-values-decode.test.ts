/**
 * Decoding rules of src/kernel/data/sql/values.ts that sql-values.test.ts leaves open: a SQLite
 * date-time text in another form than the adapter's (`YYYY-MM-DD HH:MM:SS` as SQLite's own
 * CURRENT_TIMESTAMP writes it, another offset, no fraction) is read as the instant it names in
 * UTC whatever the process time zone, text that is no date-time comes back as it is, PostgreSQL's
 * `infinity` and text pg cannot parse come back as their text instead of failing the read, and
 * the types stored as they are read have no decoder (null).
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decoderOf, isoFromPostgres } from '../../../src/kernel/data/sql/values.ts';
import type { FieldType } from '../../../src/kernel/declare.ts';
import type { ResolvedField } from '../../../src/kernel/registry/model.ts';
import { adminPrincipal, bootTestKernel, withPgClient, type TestKernel } from '../../helpers/kernel.ts';

const field = (type: FieldType) => ({ type }) as ResolvedField;
const VALUES_MODULE = new URL('../../../src/kernel/data/sql/values.ts', import.meta.url).href;

/**
 * Decodes texts in a process of its own whose time zone is America/New_York: TZ must be set when
 * a process starts (a test worker that is a thread cannot change it for itself).
 */
function decodeInNewYork(texts: string[]): { zoneOffsetMinutes: number; decoded: unknown[] } {
  const script = `
    import { decoderOf } from ${JSON.stringify(VALUES_MODULE)};
    const decode = decoderOf({ type: 'datetime' }, 'sqlite');
    const texts = JSON.parse(process.argv[1]);
    process.stdout.write(JSON.stringify({ zoneOffsetMinutes: new Date('2026-01-02T03:04:05').getTimezoneOffset(), decoded: texts.map(decode) }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, JSON.stringify(texts)], {
    env: { ...process.env, TZ: 'America/New_York' }, encoding: 'utf8',
  });
  return JSON.parse(out) as { zoneOffsetMinutes: number; decoded: unknown[] };
}

describe('SQLite date-time text, in a process whose time zone is not UTC', () => {
  const CASES: Array<[string, string, string]> = [
    ['"YYYY-MM-DD HH:MM:SS" (SQLite\'s CURRENT_TIMESTAMP) is UTC', '2026-01-02 03:04:05', '2026-01-02T03:04:05.000Z'],
    ['…with a fraction too', '2026-01-02 03:04:05.678', '2026-01-02T03:04:05.678Z'],
    ['ISO text without a zone (written by another tool) is UTC too, not the process\'s local time', '2026-01-02T03:04:05', '2026-01-02T03:04:05.000Z'],
    ['…with a fraction', '2026-01-02T03:04:05.678', '2026-01-02T03:04:05.678Z'],
    ['…without seconds', '2026-01-02T03:04', '2026-01-02T03:04:00.000Z'],
    ['the adapter\'s length (29 characters) with another offset is the instant it names', '2026-01-02T03:04:05.678+01:00', '2026-01-02T02:04:05.678Z'],
    ['the adapter\'s +00:00 without its length', '2026-01-02T03:04:05+00:00', '2026-01-02T03:04:05.000Z'],
    ['Z', '2026-01-02T03:04:05Z', '2026-01-02T03:04:05.000Z'],
    ['text that names no instant comes back as it is', 'soon', 'soon'],
    ['the adapter\'s own form becomes …Z', '2026-01-02T03:04:05.678+00:00', '2026-01-02T03:04:05.678Z'],
  ];
  let result: { zoneOffsetMinutes: number; decoded: unknown[] };
  beforeAll(() => {
    result = decodeInNewYork(CASES.map(([, text]) => text));
  });

  it('the process time zone really is another one (so the rules below are tested)', () => {
    expect(result.zoneOffsetMinutes).toBe(300);
  });

  CASES.forEach(([rule, text, expected], i) => {
    it(`${rule}: ${text} → ${expected}`, () => {
      expect(result.decoded[i]).toBe(expected);
    });
  });
});

describe('SQLite date-time text that names its zone, decoded in this process', () => {
  const fromSqlite = decoderOf(field('datetime'), 'sqlite')!;
  it('another offset, or the adapter\'s offset without its length, or Z, is the instant it names; other text comes back as it is', () => {
    expect(fromSqlite('2026-01-02T03:04:05.678+01:00')).toBe('2026-01-02T02:04:05.678Z');
    expect(fromSqlite('2026-01-02T03:04:05+00:00')).toBe('2026-01-02T03:04:05.000Z');
    expect(fromSqlite('2026-01-02T03:04:05Z')).toBe('2026-01-02T03:04:05.000Z');
    expect(fromSqlite('2026-01-02T03:04:05.678+00:00')).toBe('2026-01-02T03:04:05.678Z');
    expect(fromSqlite('soon')).toBe('soon');
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
