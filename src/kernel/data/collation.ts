/**
 * How text is sorted: the way people read it ("Afghanistan" < "Åland Islands" < "Albania"), the
 * Unicode root collation (CLDR "und"), on both engines and every read path.
 *
 * - PostgreSQL: `ORDER BY … COLLATE "und-x-icu"` (the ICU root collation every ICU-enabled server
 *   has; deterministic, so equal-looking strings still tie-break by their bytes).
 * - SQLite has no ICU and better-sqlite3 cannot register a collation, only functions: the reader
 *   orders by `fw_sortkey(column)`, a BLOB built here whose byte order (SQLite compares BLOBs with
 *   memcmp) is the collation's order.
 * - Where the database cannot be asked (read_group's keys, ordered reads inside a transaction,
 *   which go through Prisma and cannot name a collation or a function), `textComparator` sorts
 *   in JavaScript the same way: the same key on SQLite, ICU's root collation (Intl.Collator) on
 *   PostgreSQL.
 *
 * The key follows the Unicode Collation Algorithm's three levels: base letters (case and
 * accents ignored), then accents, then case (lower first), then the text's own UTF-8 bytes.
 * Base-letter weights are not typed here: they are ranked once, at first use, by Intl.Collator
 * (ICU's root collation, as in PostgreSQL) over Latin, Greek, Cyrillic, punctuation, currency and
 * digits; other characters follow in code point order (symbols such as emoji before the digits,
 * other scripts after Cyrillic). tests/kernel/data/text-order.test.ts compares the key's order
 * with PostgreSQL's.
 */
import { createHash } from 'node:crypto';
import type { Dialect } from './sql/values.js';

/** The SQL function the SQLite reader registers (src/kernel/db/readers/sqlite). */
export const SQLITE_SORT_KEY_FUNCTION = 'fw_sortkey';
/** The PostgreSQL collation of text ORDER BY. */
export const POSTGRES_TEXT_COLLATION = 'und-x-icu';

/** Field types sorted as text; enum values are codes and keep their stored (byte) order. */
export const COLLATED_TYPES: ReadonlySet<string> = new Set(['char', 'text']);

/** Letters that no Unicode decomposition splits, but the root collation expands to two. */
const EXPANSIONS: Record<string, string> = { ß: 'ss', ẞ: 'SS', æ: 'ae', Æ: 'AE', œ: 'oe', Œ: 'OE' };
/** Ranked by Intl.Collator: whitespace, ASCII, Latin, Greek, Cyrillic, general punctuation, currency. */
const RANGES: Array<[number, number]> = [[0x09, 0x0d], [0x20, 0x7e], [0xa0, 0x24f], [0x370, 0x3ff], [0x400, 0x4ff], [0x2000, 0x206f], [0x20a0, 0x20cf]];
const MARK = /\p{M}/u;
/** Controls (but tab and line breaks) and format characters weigh nothing in the root collation. */
const IGNORABLE = /[\p{Cf}\x00-\x08\x0e-\x1f\x7f-\x9f]/u;
/** Unranked punctuation and symbols (emoji) sort with the symbols, before digits, as in the root collation. */
const SYMBOL = /[\p{P}\p{S}\p{Z}]/u;

interface Weights { primary: Map<string, number>; accent: Map<string, number>; mark: Map<string, number>; atomic: Set<string>; symbol: number; other: number }
let weights: Weights | null = null;

function rankGroups(chars: string[], collator: Intl.Collator): Map<string, number> {
  const sorted = [...chars].sort(collator.compare);
  const out = new Map<string, number>();
  let rank = 0;
  sorted.forEach((c, i) => {
    if (i > 0 && collator.compare(sorted[i - 1], c) !== 0) rank++;
    out.set(c, rank);
  });
  return out;
}

function buildWeights(): Weights {
  const base = new Intl.Collator('und', { sensitivity: 'base' });
  const chars: string[] = [];
  const atomic = new Set<string>();
  for (const [from, to] of RANGES) {
    for (let cp = from; cp <= to; cp++) {
      const c = String.fromCodePoint(cp);
      if (MARK.test(c) || IGNORABLE.test(c) || EXPANSIONS[c]) continue;
      const parts = c.normalize('NFKD');
      if (parts === c) chars.push(c);
      // a letter the root collation keeps whole though Unicode decomposes it (Cyrillic й)
      else if (base.compare(c, parts.replace(/\p{M}/gu, '')) !== 0) {
        chars.push(c);
        atomic.add(c);
      }
      // other precomposed letters reach the key decomposed (NFKD), their marks as accents
    }
  }
  const primary = rankGroups(chars, base);
  // among characters with one base letter (o, ø), the plain one first
  const accentOf = new Intl.Collator('und', { sensitivity: 'accent' });
  const accent = new Map<string, number>();
  const byPrimary = new Map<number, string[]>();
  for (const c of chars) byPrimary.set(primary.get(c)!, [...(byPrimary.get(primary.get(c)!) ?? []), c]);
  for (const group of byPrimary.values()) for (const [c, r] of rankGroups(group, accentOf)) accent.set(c, r);
  const marks: string[] = [];
  for (let cp = 0x300; cp <= 0x36f; cp++) marks.push(String.fromCodePoint(cp));
  const byMark = rankGroups(marks.map((m) => `a${m}`), accentOf);
  const mark = new Map(marks.map((m) => [m, byMark.get(`a${m}`)!]));
  // primary weights: 2 × rank + 2 for ranked characters, odd weights for the unranked ones:
  // symbols (emoji) just before the first currency sign, as in the root collation, and other
  // scripts after everything ranked
  const currency = Math.min(...chars.filter((c) => /\p{Sc}/u.test(c)).map((c) => primary.get(c)!));
  const top = Math.max(...primary.values());
  return { primary, accent, mark, atomic, symbol: 2 * currency + 1, other: 2 * top + 5 };
}

/**
 * One collation element: a primary weight (6 bytes: weight, then the code point among unranked
 * characters of one weight) or none (an accent), a secondary pair, and a case byte (0 = none).
 */
interface Element { primary: number[] | null; secondary: [number, number]; tertiary: number }

/** Elements per character, computed once: a key is then a few lookups per character. */
const elementsOf = new Map<string, Element[]>();

function computeElements(w: Weights, c: string): Element[] {
  // the first letter of an expansion (æ → a e, ß → s s) weighs like an accent; a character that
  // decomposes into one (ǽ → æ ́) expands that piece too, as ICU does
  const parts = (EXPANSIONS[c] || w.atomic.has(c) ? [c] : [...c.normalize('NFKD')])
    .flatMap((x): Array<[string, number | undefined]> => (EXPANSIONS[x]
      ? [...EXPANSIONS[x]].map((y, i) => [y, i === 0 ? 0xfe : undefined])
      : [[x, undefined]]));
  const out: Element[] = [];
  for (const [x, accentWeight] of parts) {
    if (IGNORABLE.test(x)) continue;
    // an accent adds a secondary weight only; unknown marks sort after the known ones
    if (MARK.test(x)) {
      out.push({ primary: null, secondary: [0x02, w.mark.get(x) ?? 0xff], tertiary: 0 });
      continue;
    }
    const lower = x.toLowerCase();
    const rank = w.primary.get(x) ?? w.primary.get(lower);
    // 0x01 first, so no element starts with the level separator
    const weight = 0x010000 + (rank !== undefined ? 2 * rank + 2 : SYMBOL.test(x) ? w.symbol : w.other);
    const cp = rank !== undefined ? 0 : x.codePointAt(0)!;
    out.push({
      primary: [weight >>> 16, (weight >>> 8) & 0xff, weight & 0xff, cp >>> 16, (cp >>> 8) & 0xff, cp & 0xff],
      secondary: [0x01, accentWeight ?? w.accent.get(x) ?? w.accent.get(lower) ?? 0],
      tertiary: x !== lower ? 0x02 : 0x01,
    });
  }
  return out;
}

const ASCII = /^[\x00-\x7f]*$/;
const asciiElements: Element[][] = [];

/**
 * The sort key of `text`: comparing two keys byte by byte orders the texts as the root
 * collation does. Levels are separated by a 0 byte, which no weight starts with, so a text that
 * is a prefix of another sorts first; the text's own bytes come last.
 */
export function sortKey(text: string): Buffer {
  const w = (weights ??= buildWeights());
  const elements: Element[] = [];
  const add = (c: string) => {
    let e = elementsOf.get(c);
    if (!e) {
      e = computeElements(w, c);
      // bounded: one entry per distinct character ever sorted
      if (elementsOf.size < 65_536) elementsOf.set(c, e);
    }
    for (const x of e) elements.push(x);
  };
  if (ASCII.test(text)) {
    for (let i = 0; i < text.length; i++) {
      const e = (asciiElements[text.charCodeAt(i)] ??= computeElements(w, text[i]));
      for (const x of e) elements.push(x);
    }
  } else for (const c of text.normalize('NFC')) add(c);
  // UTF-8, Buffer's default encoding
  const bytes = Buffer.byteLength(text);
  const key = Buffer.allocUnsafe(elements.length * 9 + 3 + bytes);
  let at = 0;
  for (const e of elements) if (e.primary) for (const b of e.primary) key[at++] = b;
  key[at++] = 0;
  for (const e of elements) {
    key[at++] = e.secondary[0];
    key[at++] = e.secondary[1];
  }
  key[at++] = 0;
  for (const e of elements) if (e.tertiary) key[at++] = e.tertiary;
  key[at++] = 0;
  at += key.write(text, at);
  return key.subarray(0, at);
}

/**
 * Keys already computed for `fw_sortkey`: SQLite calls it for every row an ORDER BY on text
 * reads, on every query, and lists read the same names again and again (a profile of the
 * uncached GraphQL list spent ~9 % of its time building the same keys). Bounded: emptied when
 * full, which costs one rebuild of what is still read.
 */
const keyCache = new Map<string, Buffer>();
const KEY_CACHE_MAX = 50_000;

/** `fw_sortkey` as registered on a SQLite connection: NULL stays NULL (it sorts first, as before). */
export function sqliteSortKey(value: unknown): Buffer | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  let key = keyCache.get(text);
  if (!key) {
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
    keyCache.set(text, (key = sortKey(text)));
  }
  return key;
}

/**
 * Bump when `sortKey`'s algorithm changes (tests/kernel/data/sort-key-version.test.ts pins keys
 * of sample texts and fails until it is bumped). Part of `sortKeyVersion`.
 */
export const KEY_FORMAT = 1;
let version: string | null = null;

/**
 * What the keys of this process are built from: the key format, the weights ranked from this
 * Node's ICU, and its Unicode version (decompositions, marks). SQLite indexes on `fw_sortkey`
 * store keys, so an index built under another version would be out of order: its name carries
 * this version, and a tenant opened under a new one builds its indexes again
 * (src/kernel/db/sort-indexes.ts).
 */
export function sortKeyVersion(): string {
  if (version) return version;
  const w = (weights ??= buildWeights());
  const h = createHash('sha256').update(JSON.stringify([
    KEY_FORMAT, process.versions.unicode ?? '', [...w.primary], [...w.accent], [...w.mark], [...w.atomic].sort(), w.symbol, w.other, EXPANSIONS, RANGES,
  ]));
  return (version = h.digest('hex').slice(0, 10));
}

/** The connection API `registerSortKey` needs: better-sqlite3's `Database#function`. */
export interface SqliteFunctionHost {
  function(name: string, options: { deterministic: boolean }, fn: (value: unknown) => Buffer | null): unknown;
}

/**
 * Registers `fw_sortkey` on a SQLite connection. Every connection that writes a tenant's file
 * needs it: text columns of a model's default order are indexed on their sort key
 * (src/kernel/db/sort-indexes.ts), so SQLite computes keys on insert and update, and a connection
 * without the function is refused those writes ("unknown function: fw_sortkey()").
 */
export function registerSortKey<T extends SqliteFunctionHost>(db: T): T {
  db.function(SQLITE_SORT_KEY_FUNCTION, { deterministic: true }, sqliteSortKey);
  return db;
}

const root = new Intl.Collator('und');

/**
 * Compares two non-null texts as the engine's ORDER BY does. A comparator serves one sort: on
 * SQLite it keeps one key per distinct text for its lifetime, not one per comparison.
 */
export function textComparator(dialect: Dialect): (a: string, b: string) => number {
  if (dialect === 'sqlite') {
    const keys = new Map<string, Buffer>();
    const keyOf = (s: string) => {
      let k = keys.get(s);
      if (!k) keys.set(s, (k = sortKey(s)));
      return k;
    };
    return (a, b) => Buffer.compare(keyOf(a), keyOf(b));
  }
  // a deterministic ICU collation breaks ties by (UTF-8) bytes, as PostgreSQL does
  return (a, b) => root.compare(a, b) || Buffer.compare(Buffer.from(a), Buffer.from(b));
}
