/**
 * Ordering rows in JavaScript as each engine's ORDER BY does (src/kernel/data/sort-rows.ts), for
 * the reads that cannot ask the database: text by the root collation, other values by their
 * natural order, enums by their declaration order, NULL first ascending on SQLite and last on
 * PostgreSQL, several keys in turn.
 * tests/kernel/data/text-order.test.ts checks the same orders against the databases.
 */
import { describe, expect, it } from 'vitest';
import { ordersInJavaScript, rowComparator, type OrderItem } from '../../../src/kernel/data/sort-rows.ts';
import { defineModel, f } from '../../../src/kernel/declare.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import { fixtureApp } from '../../helpers/kernel.ts';

const registry = createRegistry([fixtureApp('fixture_sr', {
  models: [defineModel({
    key: 'sr.row',
    description: 'Row',
    fields: {
      name: f.char(20), body: f.text(), n: f.integer(), x: f.float(), ok: f.boolean(), at: f.datetime(), stage: f.enum(['b', 'a', 'B']), ref: f.uuid(),
    },
  })],
})]);
const model = registry.model('sr.row');
type Row = Record<string, unknown>;

const sorted = (rows: Row[], order: OrderItem[], dialect: 'sqlite' | 'postgresql', field = Object.keys(order[0])[0]) =>
  [...rows].sort(rowComparator(model, order, dialect)).map((r) => r[field]);
const rows = (field: string, values: unknown[]): Row[] => values.map((v) => ({ [field]: v }));

describe('ordersInJavaScript', () => {
  it('is true when a Char, text or enum field is among the keys, not for numbers, ids or unknown fields', () => {
    expect(ordersInJavaScript(model, [{ n: 'asc' }, { name: 'desc' }])).toBe(true);
    expect(ordersInJavaScript(model, [{ body: 'asc' }])).toBe(true);
    expect(ordersInJavaScript(model, [{ n: 'asc' }, { stage: 'asc' }])).toBe(true);
    expect(ordersInJavaScript(model, [{ ref: 'asc' }, { n: 'asc' }, { nope: 'asc' }])).toBe(false);
    expect(ordersInJavaScript(model, [])).toBe(false);
  });
});

describe('rowComparator', () => {
  it('text sorts as people read it, on both engines: case and accents after the letter', () => {
    const names = ['b', 'Ab', 'B', 'ab', 'Åb', 'a', 'Z', 'é', 'e'];
    const expected = ['a', 'ab', 'Ab', 'Åb', 'b', 'B', 'e', 'é', 'Z'];
    expect(sorted(rows('name', names), [{ name: 'asc' }], 'sqlite')).toEqual(expected);
    expect(sorted(rows('name', names), [{ name: 'asc' }], 'postgresql')).toEqual(expected);
    expect(sorted(rows('body', names), [{ body: 'desc' }], 'sqlite')).toEqual([...expected].reverse());
  });

  it('numbers, dates and booleans in their natural order; big integers too', () => {
    expect(sorted(rows('n', [10, -2, 9, 0]), [{ n: 'asc' }], 'sqlite')).toEqual([-2, 0, 9, 10]);
    expect(sorted(rows('x', [1.5, -0.5, 1.25]), [{ x: 'desc' }], 'postgresql')).toEqual([1.5, 1.25, -0.5]);
    expect(sorted(rows('n', [10n, 2n, 10n, -1n]), [{ n: 'asc' }], 'sqlite')).toEqual([-1n, 2n, 10n, 10n]);
    expect(sorted(rows('ok', [true, false, true]), [{ ok: 'asc' }], 'sqlite')).toEqual([false, true, true]);
    const d = (s: string) => new Date(s);
    expect(sorted(rows('at', [d('2026-01-02'), d('1999-12-31'), d('2026-01-01')]), [{ at: 'asc' }], 'postgresql').map((x) => (x as Date).toISOString().slice(0, 10)))
      .toEqual(['1999-12-31', '2026-01-01', '2026-01-02']);
  });

  it('ids by their bytes (uppercase before lowercase), not by reading order', () => {
    expect(sorted(rows('ref', ['b0', 'a9', 'a10', 'B1']), [{ ref: 'asc' }], 'postgresql')).toEqual(['B1', 'a10', 'a9', 'b0']);
  });

  it('enum values in their declaration order (b, a, B), not alphabetically nor by bytes, on both engines', () => {
    for (const d of ['sqlite', 'postgresql'] as const) {
      expect(sorted(rows('stage', ['B', 'a', 'b', 'a']), [{ stage: 'asc' }], d)).toEqual(['b', 'a', 'a', 'B']);
      expect(sorted(rows('stage', ['a', 'B', 'b']), [{ stage: 'desc' }], d)).toEqual(['B', 'a', 'b']);
    }
  });

  it('NULL and a value no longer declared rank alike (first ascending on SQLite, last on PostgreSQL), as the compiled CASE does', () => {
    const values = ['a', 'gone', 'b', null];
    expect(sorted(rows('stage', values), [{ stage: 'asc' }], 'sqlite')).toEqual(['gone', null, 'b', 'a']);
    expect(sorted(rows('stage', values), [{ stage: 'asc' }], 'postgresql')).toEqual(['b', 'a', 'gone', null]);
  });

  it('NULL sorts first ascending on SQLite and last on PostgreSQL; descending the other way round', () => {
    const values = [2, null, 1, undefined];
    expect(sorted(rows('n', values), [{ n: 'asc' }], 'sqlite')).toEqual([null, undefined, 1, 2]);
    expect(sorted(rows('n', values), [{ n: 'desc' }], 'sqlite')).toEqual([2, 1, null, undefined]);
    expect(sorted(rows('n', values), [{ n: 'asc' }], 'postgresql')).toEqual([1, 2, null, undefined]);
    expect(sorted(rows('n', values), [{ n: 'desc' }], 'postgresql')).toEqual([null, undefined, 2, 1]);
    expect(sorted(rows('name', ['b', null, 'a']), [{ name: 'asc' }], 'sqlite')).toEqual([null, 'a', 'b']);
  });

  it('the next key breaks ties, and rows equal on every key compare as 0', () => {
    const data: Row[] = [
      { stage: 'a', n: 2, name: 'x' }, { stage: 'b', n: 1, name: 'y' }, { stage: 'a', n: 1, name: 'z' }, { stage: 'a', n: 2, name: 'w' },
    ];
    const order: OrderItem[] = [{ stage: 'asc' }, { n: 'desc' }, { name: 'asc' }];
    expect(sorted(data, order, 'sqlite', 'name')).toEqual(['y', 'w', 'x', 'z']);
    expect(sorted(data, order, 'postgresql', 'name')).toEqual(['y', 'w', 'x', 'z']);
    const compare = rowComparator(model, order, 'sqlite');
    expect(compare({ stage: 'a', n: 1, name: 'q' }, { stage: 'a', n: 1, name: 'q' })).toBe(0);
    expect(compare({ stage: 'a', n: 1, name: 'q' }, { stage: 'a', n: 2, name: 'q' })).toBeGreaterThan(0);
    expect(rowComparator(model, [], 'sqlite')({ n: 1 }, { n: 2 })).toBe(0);
  });
});
