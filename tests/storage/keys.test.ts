/**
 * File names in storage keys (src/apps/storage/backends/keys.ts). The name of a document key is
 * cut at 200 UTF-8 bytes, not characters: a name of 100 CJK characters (300 bytes) or 60 emoji
 * (240 bytes) was cut at 200 *characters*, kept whole, and the local backend's temp name
 * `.<name>.<12 hex>.fwtmp` passed the file system's 255 bytes (ENAMETOOLONG, a 500 on every upload
 * path: the fuzzer's `storage-long-unicode-filename`). The cut falls between grapheme clusters
 * (never inside a character, a flag, an emoji sequence or a letter with its accents) and keeps a
 * short extension. The display name (`original_filename`) keeps up to 255 characters.
 */
import { describe, expect, it } from 'vitest';
import { StorageKeyError } from '../../src/apps/storage/backends/errors.ts';
import { checkKey, cutText, DISPLAY_FILENAME_MAX, displayFilename, FILENAME_MAX_BYTES, sanitizeFilename } from '../../src/apps/storage/backends/keys.ts';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
/** The local backend's temp name of an object named `name`. */
const tempName = (name: string) => `.${name}.0123456789ab.fwtmp`;
/** A string that survives a round trip through UTF-8 has no broken surrogate pair. */
const wellFormed = (s: string) => Buffer.from(s, 'utf8').toString('utf8') === s;

const FAMILY = '👨‍👩‍👧‍👦'; // one grapheme, 7 code points, 25 bytes
const FLAG = '🇯🇵'; // one grapheme, 2 regional indicators, 8 bytes
const ACCENTED = 'e\u0301'; // one grapheme, 3 bytes

describe('sanitizeFilename: the key name is at most 200 UTF-8 bytes, cut between graphemes', () => {
  it('100 CJK characters (300 bytes) become the first 66 (198 bytes); the temp name fits 255 bytes', () => {
    const key = sanitizeFilename('漢'.repeat(100));
    expect(key).toBe('漢'.repeat(66));
    expect(bytes(key)).toBeLessThanOrEqual(FILENAME_MAX_BYTES);
    expect(bytes(tempName(key))).toBeLessThanOrEqual(255);
  });

  it('60 emoji (240 bytes) become the first 50 (200 bytes), never half a surrogate pair', () => {
    const key = sanitizeFilename('😀'.repeat(60));
    expect(key).toBe('😀'.repeat(50));
    expect(wellFormed(key)).toBe(true);
    expect(bytes(tempName(key))).toBeLessThanOrEqual(255);
  });

  it('emoji sequences, flags and combining accents are kept whole or dropped whole', () => {
    expect(sanitizeFilename(FAMILY.repeat(10))).toBe(FAMILY.repeat(8)); // 8 × 25 = 200 bytes
    expect(sanitizeFilename(FLAG.repeat(30))).toBe(FLAG.repeat(25)); // 25 × 8 = 200 bytes
    expect(sanitizeFilename(ACCENTED.repeat(100))).toBe(ACCENTED.repeat(66)); // 66 × 3 = 198 bytes
    expect(sanitizeFilename(`${'a'.repeat(195)}${FAMILY}`)).toBe('a'.repeat(195));
  });

  it('a single grapheme longer than the bound on its own is cut between its code points', () => {
    const zalgo = `a${'\u0301'.repeat(300)}`; // 601 bytes, one grapheme
    const key = sanitizeFilename(zalgo);
    expect(key).toBe(`a${'\u0301'.repeat(99)}`); // 1 + 99 × 2 = 199 bytes
  });

  it('a short extension survives the cut; a long one is cut like the rest', () => {
    const pdf = sanitizeFilename(`${'漢'.repeat(100)}.pdf`);
    expect(pdf).toBe(`${'漢'.repeat(65)}.pdf`); // 195 + 4 bytes
    expect(sanitizeFilename(`${'x'.repeat(300)}.tar.gz`)).toBe(`${'x'.repeat(197)}.gz`);
    const long = sanitizeFilename(`a.${'漢'.repeat(100)}`);
    expect(long).toBe(`a.${'漢'.repeat(66)}`);
    expect(bytes(long)).toBeLessThanOrEqual(FILENAME_MAX_BYTES);
  });

  it('a name within the bound is unchanged, and sanitizing twice changes nothing', () => {
    const names = ['report.pdf', 'Résumé – 東京.pdf', '漢'.repeat(66), '😀'.repeat(50), '漢'.repeat(100), '😀'.repeat(60), `${'漢'.repeat(100)}.pdf`, FAMILY.repeat(10), '.hidden'];
    for (const n of names) {
      const once = sanitizeFilename(n);
      expect(sanitizeFilename(once), n).toBe(once);
      expect(bytes(once), n).toBeLessThanOrEqual(FILENAME_MAX_BYTES);
      expect(bytes(tempName(once)), n).toBeLessThanOrEqual(255);
      expect(wellFormed(once), n).toBe(true);
    }
    expect(sanitizeFilename('Résumé – 東京.pdf')).toBe('Résumé – 東京.pdf');
  });

  it('a name shaped like a local temp file (`.….fwtmp`) gets a `_` in front, so no stored object is ever swept as one', () => {
    expect(sanitizeFilename('.report.0123456789ab.fwtmp')).toBe('_.report.0123456789ab.fwtmp');
    expect(sanitizeFilename('..fwtmp')).toBe('_..fwtmp');
    expect(sanitizeFilename('report.fwtmp')).toBe('report.fwtmp');
  });

  it('a name cut down to dots only (`..` before one oversized grapheme) is `file`, never the segment `..`', () => {
    expect(sanitizeFilename(`..a${'\u0301'.repeat(300)}`)).toBe('file');
    expect(displayFilename(`..a${'\u0301'.repeat(300)}`)).toBe('file');
  });
});

describe('displayFilename: the name as given, safe to show, at most 255 characters', () => {
  it('keeps a long Unicode name whole up to 255 characters: 100 CJK characters, 60 emoji', () => {
    expect(displayFilename('漢'.repeat(100))).toBe('漢'.repeat(100));
    expect(displayFilename('😀'.repeat(60))).toBe('😀'.repeat(60));
    expect(displayFilename(`${'漢'.repeat(100)}.pdf`)).toBe(`${'漢'.repeat(100)}.pdf`);
  });

  it('cuts a longer one at 255 UTF-16 units (as char(255) fields count), between graphemes, keeping the extension', () => {
    const long = displayFilename(`${'x'.repeat(300)}.txt`);
    expect(long).toBe(`${'x'.repeat(251)}.txt`);
    expect(long.length).toBe(DISPLAY_FILENAME_MAX);
    const emoji = displayFilename('😀'.repeat(200));
    expect(emoji).toBe('😀'.repeat(127)); // 254 units: a 128th would be 256
    expect(wellFormed(emoji)).toBe(true);
  });

  it('drops path parts and control characters, trims, refuses dot-only names, and replaces unpaired surrogates', () => {
    expect(displayFilename('C:\\Users\\me\\report.pdf')).toBe('report.pdf');
    expect(displayFilename('../../secret')).toBe('secret');
    expect(displayFilename('bad\u0000na\nme\u007f.txt')).toBe('badname.txt');
    expect(displayFilename('  spaced.txt  ')).toBe('spaced.txt');
    expect(displayFilename('..')).toBe('file');
    expect(displayFilename('')).toBe('file');
    expect(displayFilename('a\uD800b.txt')).toBe('a\uFFFDb.txt');
    expect(displayFilename('\uDC00.txt')).toBe('\uFFFD.txt');
  });
});

describe('cutText', () => {
  it('returns the longest prefix within the bound, measured by the given unit', () => {
    expect(cutText('abc', 10)).toBe('abc');
    expect(cutText('漢字', 5)).toBe('漢');
    expect(cutText('😀😀', 3, (s) => s.length)).toBe('😀');
    expect(cutText('', 0)).toBe('');
  });
});

describe('checkKey counts bytes', () => {
  it('a key over 1024 UTF-8 bytes is refused even with fewer than 1024 characters (S3\'s limit is in bytes)', () => {
    const key = `t/${'漢'.repeat(341)}`; // 2 + 1023 bytes, 343 characters
    expect(() => checkKey(key, 'kb', 'put')).toThrow(StorageKeyError);
    expect(checkKey(`t/${'漢'.repeat(340)}`, 'kb', 'put')).toBe(`t/${'漢'.repeat(340)}`);
  });
});
