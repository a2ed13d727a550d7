import { dictionary } from '@zxcvbn-ts/language-common';
import bcrypt from 'bcrypt';
import pLimit from 'p-limit';
import { ValidationError } from '../../../kernel/errors.js';

/** NIST SP 800-63B asks for at least 8; 10 keeps the shortest allowed ones out of cheap exhaustive search. */
export const MIN_PASSWORD_LENGTH = 10;
/** bcrypt only reads the first 72 bytes; longer inputs would be silently truncated. */
export const MAX_PASSWORD_BYTES = 72;

/**
 * The common-password list zxcvbn-ts ships (@zxcvbn-ts/language-common, ranked by frequency in
 * leaked password dumps), lower-cased: a password on it is among the first an attacker tries.
 * Built on first use: decompressing it takes a few milliseconds.
 */
let common: Set<string> | undefined;
function commonPasswords(): Set<string> {
  common ??= new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()));
  return common;
}

/** Why `plain` may not be a password, or null when it may. Used wherever a password is set. */
export function passwordWeakness(plain: string): string | null {
  if (plain.length < MIN_PASSWORD_LENGTH) return `password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (commonPasswords().has(plain.toLowerCase())) {
    return `password is one of the ${commonPasswords().size.toLocaleString('en')} most common passwords, which attackers try first; choose another`;
  }
  return null;
}

/** The policy for every password a user sets: 422 WEAK_PASSWORD (too short or too common) or PASSWORD_TOO_LONG. */
export function checkPasswordPolicy(plain: unknown): string {
  if (typeof plain !== 'string') throw new ValidationError('password must be a string', { field: 'password' }, 'WEAK_PASSWORD');
  const weakness = passwordWeakness(plain);
  if (weakness) throw new ValidationError(weakness, { field: 'password' }, 'WEAK_PASSWORD');
  if (Buffer.byteLength(plain) > MAX_PASSWORD_BYTES) {
    throw new ValidationError(`password must be at most ${MAX_PASSWORD_BYTES} bytes`, { field: 'password' }, 'PASSWORD_TOO_LONG');
  }
  return plain;
}

/**
 * bcrypt runs on libuv's thread pool, so it never blocks the event loop; but it must not take
 * the whole pool either. WebCrypto (JWT signatures), file I/O and DNS share those threads, and
 * behind a queue of compares they wait seconds: logins then finish in waves (each one's token
 * signature waits behind the next compares) and uploads stall. At most pool size − 1 hashes run
 * at once; the rest wait here, in JavaScript, and one thread always stays free.
 */
export const BCRYPT_CONCURRENCY = Math.max(1, (Number(process.env.UV_THREADPOOL_SIZE) || 4) - 1);
const limit = pLimit(BCRYPT_CONCURRENCY);

export function hashPassword(plain: string, cost: number): Promise<string> {
  return limit(() => bcrypt.hash(plain, cost));
}

/** The spec's `verify_password(plain_password, stored_hash)`. */
export async function verifyPassword(plain: string, storedHash: string | null | undefined): Promise<boolean> {
  if (!storedHash) return false;
  return limit(() => bcrypt.compare(plain, storedHash));
}
