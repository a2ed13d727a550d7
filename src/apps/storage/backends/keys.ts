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

/** Validates a full key as the backends receive it. */
export function checkKey(key: string, backend_key: string, operation: string): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > 1024) {
    throw new StorageKeyError({ backend_key, key: String(key), operation }, 'a key has 1 to 1024 characters');
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

/** Filenames become one safe key segment: no path parts, no control characters, bounded length. */
export function sanitizeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').replace(/^\.+$/, '').trim().slice(0, 200);
  return clean || 'file';
}

/** The standard key: `{tenant_id}/{org_uuid}/storage.document/{doc_uuid}/v{N}/{filename}`. */
export function documentKey(tenant: string, org: string, doc: string, version: number, filename: string): string {
  return joinKey([tenant, org || 'no-org', 'storage.document', doc, `v${version}`, sanitizeFilename(filename)]);
}
