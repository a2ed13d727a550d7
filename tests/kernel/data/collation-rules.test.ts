/**
 * Rules of the SQLite sort key (src/kernel/data/collation.ts) that collation.test.ts leaves
 * open, each checked against ICU's root collation (Intl.Collator "und", what PostgreSQL's
 * und-x-icu uses): the ends of the ranked ranges, letters kept whole, compatibility characters,
 * accents before case, where unranked symbols go, the accent weight of ß; and, against the two
 * databases themselves, that the JavaScript comparator of each engine orders as its ORDER BY.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sortKey, textComparator } from '../../../src/kernel/data/collation.ts';
import { createSqliteReader } from '../../../src/kernel/db/readers/sqlite/index.ts';
import { PG_URL, withPgClient } from '../../helpers/kernel.ts';

const icu = new Intl.Collator('und');
const byKey = (a: string, b: string) => Buffer.compare(sortKey(a), sortKey(b));

/** Each list is in ICU root order, strictly; the key must give the same order, pair by pair. */
function expectOrder(list: string[]): void {
  for (let i = 0; i + 1 < list.length; i++) {
    const [a, b] = [JSON.stringify(list[i]), JSON.stringify(list[i + 1])];
    expect(Math.sign(icu.compare(list[i], list[i + 1])), `ICU: ${a} < ${b}`).toBe(-1);
    expect(Math.sign(byKey(list[i], list[i + 1])), `key: ${a} < ${b}`).toBe(-1);
    expect(Math.sign(byKey(list[i + 1], list[i])), `key: ${b} > ${a}`).toBe(1);
  }
}

describe('the sort key follows the root collation', () => {
  it('the last character of each ranked range is ranked too (lower case before upper, as for every letter)', () => {
    // U+000D ends the whitespace range, U+024F Latin Extended-B, U+04FF Cyrillic: unranked, they
    // would sort by code point (Ɏ U+024E before ɏ, Ӿ U+04FE before ӿ) among other scripts
    expectOrder(['\t', '\r', ' ']);
    expectOrder(['y', 'ɏ', 'Ɏ', 'z']);
    expectOrder(['ӿ', 'Ӿ']);
  });

  it('a letter the root collation keeps whole though Unicode decomposes it (Cyrillic й) is a letter of its own, not и with a breve', () => {
    // as и + breve, "йа" would sort before "иб" (the breve only breaks ties)
    expectOrder(['и', 'иб', 'й', 'йа', 'к']);
    // the same for symbols: ‾ (overline) is not a space with a combining overline
    expectOrder([' ', ' b', '‾']);
  });

  it('compatibility characters weigh as their decomposition, after it: ĳ as i j, … as three dots, ǆ as d ž', () => {
    expectOrder(['ij', 'ĳ', 'ijk', 'ik']);
    expectOrder(['..', '‥', '...', '…', '...a']);
    expectOrder(['dž', 'ǆ', 'Dž', 'ǅ', 'dža']);
  });

  it('an accent outranks case: a, A, ä, Ä (case only breaks ties between equal accents)', () => {
    expectOrder(['a', 'A', 'ä', 'Ä']);
    expectOrder(['resume', 'Resume', 'résumé', 'Résumé']);
  });

  it('unranked symbols (emoji) come after every ranked punctuation and symbol and before the first currency sign', () => {
    // ⁄ (U+2044) is the last ranked symbol before the currency signs in the root collation
    expectOrder([' ', '_', '⁄', '😀', '¤', '$', '0']);
  });

  it('ß differs from ss at its first s: after "sś" and "śs", before "st"', () => {
    expectOrder(['ss', 'sś', 'ß', 'st']);
    expectOrder(['ss', 'śs', 'ß', 'st']);
  });

  it('a letter that decomposes into an expanding one (ǽ, Ǣ into æ, Æ with an accent) sorts with it, between "ae" and "af", not after other scripts', () => {
    expectOrder(['ae', 'æ', 'ǽ', 'af', 'b', 'я']);
    expectOrder(['AE', 'Æ', 'Ǣ', 'AF', 'B', 'Я']);
    expectOrder(['ae', 'ǣ', 'af']);
    expectOrder(['AE', 'Ǽ', 'AF']);
  });
});

describe('the JavaScript comparator of each engine orders text as that engine\'s ORDER BY', () => {
  // Other scripts follow Cyrillic in code point order in the SQLite key (Hebrew א U+05D0 before
  // Georgian ა U+10D0), while ICU puts Georgian first: the engines disagree on this pair, so
  // each comparator is checked against its own engine.
  const texts = ['ა', 'b', 'א', 'a', 'я', 'B', 'Å', 'é', 'e\u0301', 'ß', 'ss', ''];

  it('the two engines really order these texts differently (so the test tells the comparators apart)', () => {
    const sqlite = [...texts].sort(textComparator('sqlite'));
    const postgres = [...texts].sort(textComparator('postgresql'));
    expect(sqlite.indexOf('א')).toBeLessThan(sqlite.indexOf('ა'));
    expect(postgres.indexOf('ა')).toBeLessThan(postgres.indexOf('א'));
  });

  it('SQLite: the reader\'s ORDER BY fw_sortkey(x)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-collation-'));
    const file = path.join(dir, 'order.db');
    const w = new Database(file);
    w.exec('CREATE TABLE t (x TEXT)');
    const insert = w.prepare('INSERT INTO t (x) VALUES (?)');
    for (const t of texts) insert.run(t);
    w.close();
    const reader = createSqliteReader(file);
    try {
      const ordered = (await reader.rows('SELECT x FROM t ORDER BY fw_sortkey(x), x', [])).map((r) => r[0]);
      expect([...texts].sort(textComparator('sqlite'))).toEqual(ordered);
    } finally {
      await reader.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: ORDER BY x COLLATE "und-x-icu"', async () => {
    const ordered = await withPgClient(PG_URL, async (c) =>
      (await c.query<{ x: string }>('SELECT x FROM unnest($1::text[]) AS x ORDER BY x COLLATE "und-x-icu"', [texts])).rows.map((r) => r.x));
    expect([...texts].sort(textComparator('postgresql'))).toEqual(ordered);
  });

  it('a comparator gives the same answer for a text it has seen before (its keys are kept per comparator)', () => {
    const compare = textComparator('sqlite');
    expect(Math.sign(compare('a', 'b'))).toBe(-1);
    expect(Math.sign(compare('b', 'a'))).toBe(1);
    expect(compare('a', 'a')).toBe(0);
  });
});
