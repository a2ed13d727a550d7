import crypto from 'node:crypto';

/** JSON with object keys sorted at every level, so equal values hash equally (AI proposals, QA seeds). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/**
 * A version-8 (custom) UUID from the SHA-256 of a name and a value: the same inputs give the same
 * uuid on every run (QA seeds and sandbox tenants, where reruns must find the same records).
 */
export function deterministicUuid(name: string, value: unknown): string {
  const h = crypto.createHash('sha256').update(`${name}\n${canonicalJson(value)}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x80; // version 8
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
