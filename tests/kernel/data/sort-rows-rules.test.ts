/**
 * Rules of rowComparator (src/kernel/data/sort-rows.ts) that sort-rows.test.ts leaves open:
 * equal big integers tie (so the next key decides), a missing value is NULL on either side,
 * numbers far apart still order, and values that are not text keep their UTF-8 byte order
 * (what SQLite's ORDER BY gives them) even where JavaScript's UTF-16 string order differs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { rowComparator, type OrderItem } from '../../../src/kernel/data/sort-rows.ts';
import { defineModel, f } from '../../../src/kernel/declare.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import { fixtureApp } from '../../helpers/kernel.ts';

const registry = createRegistry([fixtureApp('fixture_srr', {
  models: [defineModel({
    key: 'srr.row',
    description: 'Row',
    fields: { name: f.char(20), n: f.integer(), x: f.float(), ref: f.uuid() },
  })],
})]);
const model = registry.model('srr.row');
type Row = Record<string, unknown>;
const sorted = (rows: Row[], order: OrderItem[], dialect: 'sqlite' | 'postgresql', field: string) =>
  [...rows].sort(rowComparator(model, order, dialect)).map((r) => r[field]);

describe('rowComparator', () => {
  it('big integers compare as less, greater or equal; equal ones leave the order to the next key', () => {
    const compare = rowComparator(model, [{ n: 'asc' }, { name: 'asc' }], 'sqlite');
    expect(Math.sign(compare({ n: 2n, name: 'a' }, { n: 3n, name: 'a' }))).toBe(-1);
    expect(Math.sign(compare({ n: 3n, name: 'a' }, { n: 2n, name: 'a' }))).toBe(1);
    expect(compare({ n: 3n, name: 'a' }, { n: 3n, name: 'a' })).toBe(0);
    // equal on n: the name decides, in both directions
    expect(Math.sign(compare({ n: 3n, name: 'b' }, { n: 3n, name: 'a' }))).toBe(1);
    expect(Math.sign(compare({ n: 3n, name: 'a' }, { n: 3n, name: 'b' }))).toBe(-1);
    const rows: Row[] = [{ n: 10n, name: 'b' }, { n: 2n, name: 'z' }, { n: 10n, name: 'a' }, { n: -1n, name: 'y' }];
    expect(sorted(rows, [{ n: 'desc' }, { name: 'asc' }], 'postgresql', 'name')).toEqual(['a', 'b', 'z', 'y']);
  });

  it('a missing value (undefined) is NULL whichever side of the comparison it is on', () => {
    const sqlite = rowComparator(model, [{ n: 'asc' }], 'sqlite');
    // SQLite: NULL first ascending
    expect(Math.sign(sqlite({ n: undefined }, { n: 1 }))).toBe(-1);
    expect(Math.sign(sqlite({ n: 1 }, { n: undefined }))).toBe(1);
    expect(Math.sign(sqlite({ n: 1 }, {}))).toBe(1);
    expect(sqlite({ n: undefined }, { n: null })).toBe(0);
    // PostgreSQL: NULL last ascending
    const pg = rowComparator(model, [{ name: 'asc' }], 'postgresql');
    expect(Math.sign(pg({ name: 'a' }, { name: undefined }))).toBe(-1);
    expect(Math.sign(pg({ name: undefined }, { name: 'a' }))).toBe(1);
  });

  it('numbers whose difference overflows to Infinity still order (±1e308)', () => {
    const compare = rowComparator(model, [{ x: 'asc' }, { name: 'asc' }], 'sqlite');
    expect(Math.sign(compare({ x: 1e308, name: 'a' }, { x: -1e308, name: 'b' }))).toBe(1);
    expect(Math.sign(compare({ x: -1e308, name: 'b' }, { x: 1e308, name: 'a' }))).toBe(-1);
    expect(sorted([{ x: 1e308 }, { x: 0 }, { x: -1e308 }], [{ x: 'desc' }], 'postgresql', 'x')).toEqual([1e308, 0, -1e308]);
  });

  it('values that are not text (ids, enum codes) keep SQLite\'s byte order, also beyond U+FFFF where UTF-16 order differs', () => {
    // UTF-8: ～ U+FF5E is EF BD 9E, 😀 U+1F600 is F0 9F 98 80, so ～ first; in UTF-16 😀 is the
    // surrogate D83D, below FF5E, so JavaScript's < would put 😀 first
    const values = ['😀', 'b', '～', 'a', 'B'];
    expect([...values].sort()).not.toEqual([...values].sort((p, q) => Buffer.compare(Buffer.from(p), Buffer.from(q))));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-sort-rows-'));
    try {
      const db = new Database(path.join(dir, 'order.db'));
      db.exec('CREATE TABLE t (x TEXT)');
      const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
      for (const v of values) insert.run(v);
      const bySqlite = db.prepare<[], string>('SELECT x FROM t ORDER BY x').pluck().all();
      db.close();
      expect(bySqlite.indexOf('～')).toBeLessThan(bySqlite.indexOf('😀'));
      expect(sorted(values.map((ref) => ({ ref })), [{ ref: 'asc' }], 'sqlite', 'ref')).toEqual(bySqlite);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
