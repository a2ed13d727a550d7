/**
 * The SQLite sort key of src/kernel/data/collation.ts, character class by character class, with
 * ICU's root collation (Intl.Collator "und", what PostgreSQL's und-x-icu uses) as the reference:
 * base letters first, then accents, then case (lower first), then the bytes; letters the root
 * collation expands (ß, æ, œ), characters it ignores, symbols and emoji before digits, Greek and
 * Cyrillic in their own ranges, other scripts after them. tests/kernel/data/text-order.test.ts
 * compares a thousand names against PostgreSQL itself.
 */
import { describe, expect, it } from 'vitest';
import { COLLATED_TYPES, POSTGRES_TEXT_COLLATION, sortKey, SQLITE_SORT_KEY_FUNCTION, sqliteSortKey, textComparator } from '../../../src/kernel/data/collation.ts';

const icu = new Intl.Collator('und');
const byKey = (a: string, b: string) => Buffer.compare(sortKey(a), sortKey(b));
const sign = (n: number) => Math.sign(n);

/** Each list is in ICU root order, strictly; the key must give the same order, pair by pair. */
function expectOrder(list: string[]): void {
  for (let i = 0; i + 1 < list.length; i++) {
    expect(sign(icu.compare(list[i], list[i + 1])), `ICU: ${list[i]} < ${list[i + 1]}`).toBe(-1);
    expect(sign(byKey(list[i], list[i + 1])), `key: ${list[i]} < ${list[i + 1]}`).toBe(-1);
    expect(sign(byKey(list[i + 1], list[i])), `key: ${list[i + 1]} > ${list[i]}`).toBe(1);
  }
  expect([...list].reverse().sort(byKey)).toEqual(list);
}

describe('sortKey', () => {
  it('base letters first, whatever the case and accents; a prefix sorts before the longer text', () => {
    expectOrder(['a', 'ab', 'Ab', 'Åb', 'abc', 'b', 'Ba', 'c']);
    expectOrder(['Afghanistan', 'Åland Islands', 'Albania']);
  });

  it('then accents: the plain letter first, then each accent in the root collation\'s order', () => {
    expectOrder(['e', 'é', 'è', 'ê', 'ë']);
    expectOrder(['o', 'ó', 'ö', 'ø']);
    expectOrder(['cote', 'coté', 'côte', 'côté']);
  });

  it('then case: lower before upper', () => {
    expectOrder(['a', 'A', 'b', 'B']);
    expectOrder(['ab', 'aB', 'Ab', 'AB']);
    expectOrder(['é', 'É']);
  });

  it('equal texts have equal keys; texts equal but for their bytes (NFC and NFD) are told apart by the bytes', () => {
    expect(byKey('Zoë', 'Zoë')).toBe(0);
    const nfc = 'é';
    const nfd = 'e\u0301';
    expect(icu.compare(nfc, nfd)).toBe(0);
    expect(byKey(nfc, nfd)).not.toBe(0);
    expect(sign(byKey(nfc, 'f'))).toBe(-1);
    expect(sign(byKey(nfd, 'f'))).toBe(-1);
    expect(sign(byKey(nfc, 'e'))).toBe(1);
    expect(sign(byKey(nfd, 'e'))).toBe(1);
  });

  it('ß, æ and œ weigh as ss, ae and oe, after them at the accent level', () => {
    expectOrder(['ss', 'ß', 'st']);
    expectOrder(['ae', 'æ', 'Æ', 'af']);
    expectOrder(['oe', 'œ', 'of']);
    expectOrder(['Strasse', 'Straße', 'Strassen']);
  });

  it('control and format characters weigh nothing (but the text\'s bytes still break the tie)', () => {
    for (const ignorable of ['\u00ad', '\u200b', '\u0001']) {
      const withIt = `ab${ignorable}c`;
      expect(sign(byKey(withIt, 'abd')), JSON.stringify(withIt)).toBe(-1);
      expect(sign(byKey(withIt, 'abb')), JSON.stringify(withIt)).toBe(1);
      expect(byKey(withIt, 'abc')).not.toBe(0);
    }
  });

  it('spaces and punctuation before symbols, symbols (emoji too) before digits, digits before letters', () => {
    expectOrder([' ', '_', '-', ',', '!', '(', '@', '&', '+', '$', '0', '1', '9', 'a']);
    expectOrder(['🙂', '0', 'a']);
    expectOrder(['€', '0']);
  });

  it('Latin, then Greek, then Cyrillic, then other scripts', () => {
    expectOrder(['z', 'α', 'β', 'ω', 'а', 'я']);
    expectOrder(['я', '中']);
    expectOrder(['ж', 'й', 'к']);
    expectOrder(['и', 'й']);
  });

  it('text outside ASCII and the same text in ASCII get the same primary order', () => {
    expectOrder(['naive', 'naïve', 'naïver', 'navy']);
  });
});

describe('sqliteSortKey, textComparator and the names the readers use', () => {
  it('NULL stays NULL; any other value is keyed as its text', () => {
    expect(sqliteSortKey(null)).toBeNull();
    expect(sqliteSortKey(undefined)).toBeNull();
    expect(sqliteSortKey(12)).toEqual(sortKey('12'));
    expect(sqliteSortKey('x')).toEqual(sortKey('x'));
  });

  it('the SQLite comparator orders by the key, the PostgreSQL one by ICU and then by bytes', () => {
    const names = ['b', 'Å', 'a', 'B', 'é', 'e\u0301'];
    expect([...names].sort(textComparator('sqlite'))).toEqual([...names].sort(byKey));
    const pg = [...names].sort(textComparator('postgresql'));
    expect(pg.slice(0, 3)).toEqual(['a', 'Å', 'b']);
    // canonically equal: ICU ties, the bytes decide (0x65 "e" before 0xC3 of "é")
    expect(pg.indexOf('e\u0301')).toBeLessThan(pg.indexOf('é'));
    expect(textComparator('postgresql')('x', 'x')).toBe(0);
  });

  it('text and Char are collated; the names match what the readers register', () => {
    expect([...COLLATED_TYPES].sort()).toEqual(['char', 'text']);
    expect(SQLITE_SORT_KEY_FUNCTION).toBe('fw_sortkey');
    expect(POSTGRES_TEXT_COLLATION).toBe('und-x-icu');
  });
});
