import bcrypt from 'bcrypt';
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

/** Hashing runs on libuv's thread pool, so logins never block the event loop. */
export function hashPassword(plain: string, cost: number): Promise<string> {
  return bcrypt.hash(plain, cost);
}

/** The spec's `verify_password(plain_password, stored_hash)`. */
export async function verifyPassword(plain: string, storedHash: string | null | undefined): Promise<boolean> {
  if (!storedHash) return false;
  return bcrypt.compare(plain, storedHash);
}
