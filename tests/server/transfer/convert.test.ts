/**
 * Cells to field values (src/server/transfer/convert.ts) and the CSV reader's line numbers and
 * formula neutralising (src/server/transfer/formats.ts), without a server.
 */
import { describe, expect, it } from 'vitest';
import { convertCell } from '../../../src/server/transfer/convert.ts';
import type { TransferField } from '../../../src/server/transfer/fields.ts';
import { neutralise, readTable, unneutralise } from '../../../src/server/transfer/formats.ts';

const field = (type: string, values: string[] | null = null): TransferField => ({ name: 'f', label: 'F', source_label: 'F', type, required: false, relation: null, values });
const value = (type: string, cell: Parameters<typeof convertCell>[1], values: string[] | null = null) => convertCell(field(type, values), cell);

describe('convertCell', () => {
  it('an empty cell is no value, whatever the type', () => {
    for (const t of ['char', 'integer', 'float', 'boolean', 'datetime', 'enum', 'reference']) expect(value(t, '  ')).toEqual({ ok: true, value: null });
  });
  it('integers are whole numbers only; numbers take a point or a comma', () => {
    expect(value('integer', '42')).toEqual({ ok: true, value: 42 });
    expect(value('integer', 7)).toEqual({ ok: true, value: 7 });
    expect(value('integer', '4.2').ok).toBe(false);
    expect(value('integer', 4.2).ok).toBe(false);
    expect(value('integer', '99999999999999999999').ok).toBe(false);
    expect(value('float', '1,5')).toEqual({ ok: true, value: 1.5 });
    expect(value('float', '-2.5e3')).toEqual({ ok: true, value: -2500 });
    expect(value('float', '1.000,5').ok).toBe(false);
  });
  it('booleans read yes/no words and spreadsheet booleans', () => {
    expect(value('boolean', 'Yes')).toEqual({ ok: true, value: true });
    expect(value('boolean', '0')).toEqual({ ok: true, value: false });
    expect(value('boolean', false)).toEqual({ ok: true, value: false });
    expect(value('boolean', 'maybe').ok).toBe(false);
  });
  it('date-times are ISO text (a bare date is midnight UTC) or spreadsheet dates', () => {
    expect(value('datetime', '2026-03-31')).toEqual({ ok: true, value: '2026-03-31T00:00:00.000Z' });
    expect(value('datetime', '2026-03-31T14:00:00+02:00')).toEqual({ ok: true, value: '2026-03-31T12:00:00.000Z' });
    expect(value('datetime', new Date('2026-01-02T03:04:05Z'))).toEqual({ ok: true, value: '2026-01-02T03:04:05.000Z' });
    expect(value('datetime', 'next tuesday').ok).toBe(false);
    // read as the API reads it (src/kernel/data/datetime.ts): a day the calendar lacks is refused
    // instead of rolled over, and a spreadsheet's time without an offset is UTC
    expect(value('datetime', '2026-02-30').ok).toBe(false);
    expect(value('datetime', '2026-1-5').ok).toBe(false);
    expect(value('datetime', '2026-01-15 10:00')).toEqual({ ok: true, value: '2026-01-15T10:00:00.000Z' });
  });
  it('an Enum value is matched whatever its case; anything else is left for the bus to refuse', () => {
    expect(value('enum', 'WON', ['new', 'won'])).toEqual({ ok: true, value: 'won' });
    expect(value('enum', 'sleeping', ['new', 'won'])).toEqual({ ok: true, value: 'sleeping' });
  });
  it('JSON cells are parsed; text is kept as written, a neutralised formula loses its apostrophe', () => {
    expect(value('json', '{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(value('json', '{a').ok).toBe(false);
    expect(value('char', ' padded ')).toEqual({ ok: true, value: ' padded ' });
    expect(value('char', "'=SUM(A1)")).toEqual({ ok: true, value: '=SUM(A1)' });
    expect(value('char', "'quoted")).toEqual({ ok: true, value: "'quoted" });
  });
});

describe('formats', () => {
  it('neutralise and unneutralise round-trip every formula-looking text and leave the rest', () => {
    for (const s of ['=1+1', '+33 1 23', '-5', '@cmd', '\tx', 'plain', "'already"]) expect(unneutralise(neutralise(s))).toBe(s);
    expect(neutralise('=1+1')).toBe("'=1+1");
    expect(neutralise('plain')).toBe('plain');
  });
  it('CSV rows carry the line they start on (CRLF or LF), counting line breaks inside quoted cells and skipping blank lines', async () => {
    const t = await readTable(Buffer.from('A,B\r\none,1\r\n"two\r\nlines",2\r\n\r\nthree,3\r\n'), 100);
    expect(t.headers).toEqual(['A', 'B']);
    expect(t.rows.map((r) => [r.line, r.cells[0]])).toEqual([[2, 'one'], [3, 'two\nlines'], [6, 'three']]);
  });
});
