import crypto from 'node:crypto';

export { canonicalJson } from '../../../kernel/canonical.js';

export const sha256 = (s: string): string => crypto.createHash('sha256').update(s).digest('hex');

/** UTC day of a moment, as usage and caps count it. */
export const utcDay = (d = new Date()): string => d.toISOString().slice(0, 10);
