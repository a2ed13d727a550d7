import bcrypt from 'bcrypt';
import pLimit from 'p-limit';
import { ValidationError } from '../../../kernel/errors.js';

export const MIN_PASSWORD_LENGTH = 8;
/** bcrypt only reads the first 72 bytes; longer inputs would be silently truncated. */
export const MAX_PASSWORD_BYTES = 72;

export function checkPasswordPolicy(plain: unknown): string {
  if (typeof plain !== 'string' || plain.length < MIN_PASSWORD_LENGTH) {
    throw new ValidationError(`password must have at least ${MIN_PASSWORD_LENGTH} characters`, { field: 'password' }, 'WEAK_PASSWORD');
  }
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
