/**
 * Redis going away (src/kernel/pubsub/redis/index.ts), on a redis-server of this file's own that
 * it stops and starts: a Redis that cannot be reached stops the boot naming REDIS_URL; once
 * running, an outage makes the shared store's commands fail at once, so the login throttle goes
 * on with its in-process counters instead of waiting on reconnects (a login took about 30 s), and
 * the outage and its end are each said once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoginThrottle } from '../../../src/apps/auth/services/throttle.ts';
import { BootError } from '../../../src/kernel/errors.ts';
import { createRedisPubSub } from '../../../src/kernel/pubsub/redis/index.ts';
import type { PubSub } from '../../../src/kernel/pubsub/types.ts';
import { tempDir, testSettings } from '../../helpers/kernel.ts';
import { uniqueRedisPrefix } from '../../helpers/redis.ts';
import { freePort } from '../../helpers/team-project.ts';

/** Polls until `fn` returns true (a deadline, not a timed assertion). */
async function until(what: string, fn: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Redis that cannot be reached', () => {
  let port: number;
  let server: ChildProcess | null = null;
  let pubsub: PubSub | null = null;
  const said: Array<{ level: string; msg: string }> = [];
  const start = async () => {
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  };
  const stop = async () => {
    const s = server;
    server = null;
    if (!s || s.exitCode !== null) return;
    await new Promise((r) => { s.once('exit', r); s.kill('SIGKILL'); });
  };

  beforeAll(async () => {
    port = await freePort();
  });
  afterAll(async () => {
    await pubsub?.close();
    await stop();
  });

  it('at boot: refused with REDIS_UNREACHABLE, naming REDIS_URL and not the password', async () => {
    const err = await createRedisPubSub(`redis://:s3cret@127.0.0.1:${port}`, uniqueRedisPrefix(), () => {}, { waitMs: 500 }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(BootError);
    expect(err).toMatchObject({ code: 'REDIS_UNREACHABLE', details: { url: `redis://:***@127.0.0.1:${port}` } });
    expect((err as Error).message).toMatch(new RegExp(`^cannot reach Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port} \\(REDIS_URL\\): .*ECONNREFUSED.*; start it, correct REDIS_URL, or leave REDIS_URL unset`));
    expect((err as Error).message).not.toContain('s3cret');
  });

  it('once running: the shared store fails at once, the login throttle counts in the process, and the outage and its end are said once each', async () => {
    await start();
    pubsub = await createRedisPubSub(`redis://127.0.0.1:${port}`, uniqueRedisPrefix(), (level, msg) => said.push({ level, msg }), { waitMs: 10_000 });
    const store = pubsub.store!;
    const throttle = new LoginThrottle(testSettings({ provider: 'sqlite', dataDir: tempDir('redis-outage'), pgPrefix: 'x', settings: { LOGIN_MAX_FAILURES_PER_EMAIL_AND_IP: '2' } }), store);
    await throttle.before('t|ana@example.com', '10.0.0.1');
    await throttle.succeeded('t|ana@example.com', '10.0.0.1');
    expect(said).toEqual([]);

    await stop();
    await until('the outage noticed', () => store.status !== 'ready');
    // no offline queue: not ioredis' "max retries per request" after its reconnect attempts
    await expect(store.get('anything')).rejects.toThrow(/enableOfflineQueue/);
    // the throttle's in-process twin answers, and still refuses a guesser over the limit
    for (let i = 0; i < 2; i++) {
      await throttle.before('t|bob@example.com', '10.0.0.2');
      await throttle.failed('t|bob@example.com', '10.0.0.2');
    }
    await expect(throttle.before('t|bob@example.com', '10.0.0.2')).rejects.toMatchObject({ code: 'THROTTLED' });
    // publishing while Redis is away loses the message, as documented, and says nothing each time
    await pubsub.publish({ name: 'default:x' } as never, { n: 1 });
    await until('the outage said', () => said.length > 0);
    expect(said).toEqual([{ level: 'warn', msg: expect.stringMatching(/^Redis at redis:\/\/127\.0\.0\.1:\d+ \(REDIS_URL\) cannot be reached: /) }]);

    await start();
    await until('Redis back', () => said.length > 1);
    expect(said[1]).toEqual({ level: 'info', msg: `Redis at redis://127.0.0.1:${port} (REDIS_URL) reachable again` });
    expect(said).toHaveLength(2);
    await until('the store ready again', () => store.status === 'ready');
    expect(await store.set('back', '1')).toBe('OK');
  }, 60_000);
});
