import crypto from 'node:crypto';

/** JSON with object keys sorted at every level, so equal arguments hash equally. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

export const sha256 = (s: string): string => crypto.createHash('sha256').update(s).digest('hex');

/** UTC day of a moment, as usage and caps count it. */
export const utcDay = (d = new Date()): string => d.toISOString().slice(0, 10);
