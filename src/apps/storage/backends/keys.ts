import { StorageKeyError } from './errors.js';

/**
 * Storage keys are `/`-joined segments. Empty segments, `.`, `..` and segments containing `/`
 * are refused, so a key can never climb out of its prefix on any backend.
 */
export function joinKey(segments: string[], backend_key = 'any'): string {
  for (const s of segments) checkSegment(s, segments.join('/'), backend_key);
  return segments.join('/');
}

function checkSegment(s: string, key: string, backend_key: string): void {
  if (s === '' || s === '.' || s === '..' || s.includes('/') || s.includes('\\') || s.includes('\0')) {
    throw new StorageKeyError({ backend_key, key, operation: 'key' }, `invalid key segment ${JSON.stringify(s)}`);
  }
}

/** Longest key in UTF-8 bytes: S3's limit (1024 bytes, not characters), kept by every backend. */
export const KEY_MAX_BYTES = 1024;

/** Validates a full key as the backends receive it. */
export function checkKey(key: string, backend_key: string, operation: string): string {
  if (typeof key !== 'string' || key.length === 0 || Buffer.byteLength(key) > KEY_MAX_BYTES) {
    throw new StorageKeyError({ backend_key, key: String(key), operation }, `a key has 1 to ${KEY_MAX_BYTES} bytes (UTF-8)`);
  }
  if (key.startsWith('/')) throw new StorageKeyError({ backend_key, key, operation }, 'a key may not start with /');
  for (const s of key.split('/')) {
    if (s === '' || s === '.' || s === '..' || s.includes('\\') || s.includes('\0')) {
      throw new StorageKeyError({ backend_key, key, operation }, `invalid key segment ${JSON.stringify(s)}`);
    }
  }
  return key;
}

/** A listing prefix ends with `/` (or is empty for everything). */
export function checkPrefix(prefix: string, backend_key: string): string {
  if (prefix === '') return prefix;
  if (!prefix.endsWith('/')) throw new StorageKeyError({ backend_key, key: prefix, operation: 'list' }, 'a listing prefix ends with /');
  checkKey(prefix.slice(0, -1), backend_key, 'list');
  return prefix;
}

/**
 * UTF-8 bytes of the file name in a document key. File systems allow 255 bytes per name, and the
 * local backend writes `.<name>.<12 hex>.fwtmp` (20 bytes more) before the rename: 200 leaves room.
 */
export const FILENAME_MAX_BYTES = 200;
/** Characters a display name keeps: `original_filename` is a char(255) (UTF-16 units, as char fields count). */
export const DISPLAY_FILENAME_MAX = 255;
/** An extension up to this long (in the unit being cut) survives a cut: `…long name.pdf`. */
const EXTENSION_MAX = 16;

/** What the local backend names its temp files (`.<name>.<hex>.fwtmp`): a stored name never looks like one. */
export const TEMP_NAME = /^\..*\.fwtmp$/;

const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
const utf16Units = (s: string): number => s.length;

let segmenter: Intl.Segmenter | null | undefined;
/** Grapheme clusters (a flag, an emoji with skin tone, a letter with combining marks stay whole); code points without ICU. */
function graphemes(text: string): Iterable<string> {
  if (segmenter === undefined) segmenter = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;
  if (!segmenter) return Array.from(text);
  const s = segmenter;
  return (function* () { for (const g of s.segment(text)) yield g.segment; })();
}

/**
 * The longest prefix of `text` within `max` (as `size` measures), cut between grapheme clusters.
 * A first cluster longer than `max` on its own (a base letter under hundreds of combining marks)
 * is cut between its code points instead, so the result is never empty for a non-empty text.
 */
export function cutText(text: string, max: number, size: (s: string) => number = utf8Bytes): string {
  if (size(text) <= max) return text;
  let out = '';
  let used = 0;
  for (const g of graphemes(text)) {
    const n = size(g);
    if (used + n > max) {
      if (out === '') {
        for (const cp of g) {
          const m = size(cp);
          if (used + m > max) break;
          out += cp;
          used += m;
        }
      }
      break;
    }
    out += g;
    used += n;
  }
  return out;
}

/** `name` within `max`, cut at the end of its stem so that a short extension stays (`….pdf`). */
function bounded(name: string, max: number, size: (s: string) => number): string {
  if (size(name) <= max) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot) : '';
  if (ext && size(ext) <= EXTENSION_MAX && !/\s/.test(ext)) {
    const stem = cutText(name.slice(0, dot), max - size(ext), size).trimEnd();
    if (stem) return stem + ext;
  }
  return cutText(name, max, size).trimEnd();
}

/**
 * A file name as the user gave it, made safe to show and to store (`original_filename`, the
 * download's Content-Disposition): its last path part, without control characters, unpaired
 * surrogates replaced, trimmed, not `.` or `..`, at most 255 characters (between graphemes,
 * keeping a short extension). Empty = `file`.
 */
export function displayFilename(name: string): string {
  const base = String(name).split(/[\\/]/).pop() ?? '';
  const clean = base
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/^\.+$/, '')
    .trim();
  return orFile(bounded(clean, DISPLAY_FILENAME_MAX, utf16Units));
}

/** A name cut to nothing, or to dots only (`.` and `..` are no file names), is `file`. */
const orFile = (name: string): string => (name === '' || /^\.+$/.test(name) ? 'file' : name);

/**
 * Filenames become one safe key segment: the display name (above) cut to at most 200 UTF-8
 * bytes, between graphemes, keeping a short extension, so that the name and the local backend's
 * temp name fit any file system's 255 bytes. A name shaped like the local backend's temp files
 * (`.<…>.fwtmp`) gets a `_` in front, so no stored object is ever taken for one and swept.
 */
export function sanitizeFilename(name: string): string {
  const key = orFile(bounded(displayFilename(name), FILENAME_MAX_BYTES, utf8Bytes));
  return TEMP_NAME.test(key) ? `_${cutText(key, FILENAME_MAX_BYTES - 1)}` : key;
}

/** The standard key: `{tenant_id}/{org_uuid}/storage.document/{doc_uuid}/v{N}/{filename}`. */
export function documentKey(tenant: string, org: string, doc: string, version: number, filename: string): string {
  return joinKey([tenant, org || 'no-org', 'storage.document', doc, `v${version}`, sanitizeFilename(filename)]);
}
