/**
 * bcrypt runs on libuv's thread pool but never fills it: at most pool size − 1 hashes run at
 * once, so JWT signatures (WebCrypto), file I/O and DNS always find a free thread during a login
 * burst. The rest of the hashes wait in JavaScript, in order.
 */
import bcrypt from 'bcrypt';
import { afterEach, expect, it, vi } from 'vitest';
import { BCRYPT_CONCURRENCY, hashPassword, verifyPassword } from '../../src/apps/base/services/passwords.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

it('leaves one thread of the pool free (3 of the default 4)', () => {
  const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  expect(BCRYPT_CONCURRENCY).toBe(pool === 4 ? 3 : Math.max(1, pool - 1));
});

it('runs at most BCRYPT_CONCURRENCY compares and hashes at once; the next starts when one ends', async () => {
  const pending: Array<() => void> = [];
  const started: string[] = [];
  const held = (label: string) => new Promise<never>((resolve) => {
    started.push(label);
    pending.push(() => (resolve as (v: unknown) => void)(label.startsWith('hash') ? `$2b$hash-${label}` : true));
  });
  vi.spyOn(bcrypt, 'compare').mockImplementation(((plain: string) => held(`compare-${plain}`)) as unknown as typeof bcrypt.compare);
  vi.spyOn(bcrypt, 'hash').mockImplementation(((plain: string) => held(`hash-${plain}`)) as unknown as typeof bcrypt.hash);

  const results = [
    ...Array.from({ length: 6 }, (_, i) => verifyPassword(`p${i}`, '$2b$stored')),
    hashPassword('h0', 4),
  ];
  await vi.waitFor(() => expect(started).toHaveLength(BCRYPT_CONCURRENCY));
  expect(started).toEqual(Array.from({ length: BCRYPT_CONCURRENCY }, (_, i) => `compare-p${i}`));

  pending.shift()!();
  await vi.waitFor(() => expect(started).toHaveLength(BCRYPT_CONCURRENCY + 1));
  expect(started.at(-1)).toBe(`compare-p${BCRYPT_CONCURRENCY}`);

  while (started.length < 7 || pending.length) {
    const next = pending.shift();
    if (next) next();
    await new Promise((r) => setImmediate(r));
  }
  expect(await Promise.all(results)).toEqual([true, true, true, true, true, true, '$2b$hash-hash-h0']);
  expect(started.at(-1)).toBe('hash-h0');
});

it('a missing stored hash is false without touching bcrypt', async () => {
  const spy = vi.spyOn(bcrypt, 'compare');
  expect(await verifyPassword('anything', null)).toBe(false);
  expect(spy).not.toHaveBeenCalled();
});
