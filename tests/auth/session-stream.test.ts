/**
 * The auth app's stream watcher (`authenticator(kernel).watch` in src/apps/auth/index.ts): a
 * transport (graphql-ws, a GraphQL subscription over SSE, the presentation app's event stream)
 * asks it to watch the session of a stream it opened, and calls the returned function when the
 * stream closes. Once that function has run, the end of the session must not reach the closed
 * stream — whether the stream closed after the watch had started, or so soon that the auth
 * services had not yet handed the watch over (the transports close a stream whenever the client
 * goes away, which can be right after it opened).
 *
 * Each test watches one login twice: the watch under test, which is stopped, and a second one
 * that is left running. The login is then logged out; the second watch ending shows that the
 * logout reached the watchers, after which the stopped one must have heard nothing.
 * A real server with a SQLite file; the authenticator is the one the transports use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authServices } from '../../src/apps/auth/index.ts';
import type { Authenticator } from '../../src/kernel/app.ts';
import type { Principal } from '../../src/kernel/env.ts';
import { authenticatorOf } from '../../src/server/authenticate.ts';
import { sleep } from '../helpers/api.ts';
import { rand, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
/** Watches left running by a test, stopped in afterAll whatever happened. */
const running: Array<() => void> = [];

beforeAll(async () => {
  // a long session cache: only the logout itself can end a watch within a test
  t = await startTestServer({ AUTH_SESSION_CACHE_SECONDS: '600' });
  admin = (await t.loginAdmin()).access_token;
});
afterAll(async () => {
  for (const stop of running.splice(0)) stop();
  await t?.close();
});

/** The authenticator the transports use, with its stream watcher. */
function watcher(): Required<Authenticator> {
  const auth = authenticatorOf(t.kernel);
  if (!auth?.watch) throw new Error('the auth app offers no stream watcher');
  return auth as Required<Authenticator>;
}

/** A fresh user's login: its access token and the principal a stream opened with it runs as. */
async function streamer(): Promise<{ token: string; principal: Principal }> {
  const email = `stream-${rand()}@example.com`;
  await t.createUser(admin, { email, password: 'stream-pass-1' });
  const token = (await t.login(email, 'stream-pass-1')).access_token;
  return { token, principal: await watcher().authenticate(token) };
}

/**
 * A second watch of the same login, left running, then the login's logout: resolves once that
 * watch has ended (the logout has reached the watchers), plus a margin for any other watch of the
 * login to hear about it too. Returns the reason the running watch was given.
 */
async function logOutAndSettle(token: string, principal: Principal): Promise<string> {
  let ended!: (reason: string) => void;
  const control = new Promise<string>((resolve) => { ended = resolve; });
  running.push(watcher().watch(token, principal, (reason) => ended(reason)));
  // the running watch is registered once the services hand it over (a microtask): wait for that
  await authServices(t.kernel);
  const out = await t.request('POST', '/api/auth/logout', { token });
  expect(out.status, JSON.stringify(out.body)).toBe(200);
  const reason = await Promise.race([control, sleep(8000).then(() => 'the running watch did not end')]);
  // only for asserting that nothing more arrives: both watches were checked by the same logout
  await sleep(300);
  return reason;
}

describe('stopping a session watch', () => {
  it('a watch stopped at once, before the auth services handed it over, never reports the end of the session', async () => {
    const { token, principal } = await streamer();
    const heard: string[] = [];
    const stop = watcher().watch(token, principal, (reason) => heard.push(reason));
    // synchronously, as a transport does when the client has already gone: must not throw
    expect(() => stop()).not.toThrow();

    expect(await logOutAndSettle(token, principal)).toBe('the session has ended');
    expect(heard).toEqual([]);
  });

  it('a watch stopped after it started never reports the end of the session', async () => {
    const { token, principal } = await streamer();
    const heard: string[] = [];
    const stop = watcher().watch(token, principal, (reason) => heard.push(reason));
    // the services have handed the watch over by the time this resolves (registered after it)
    await authServices(t.kernel);
    stop();

    expect(await logOutAndSettle(token, principal)).toBe('the session has ended');
    expect(heard).toEqual([]);
  });

  it('a watch that is not stopped reports the end of its session once, with the reason', async () => {
    const { token, principal } = await streamer();
    const heard: string[] = [];
    running.push(watcher().watch(token, principal, (reason) => heard.push(reason)));
    await authServices(t.kernel);

    expect(await logOutAndSettle(token, principal)).toBe('the session has ended');
    expect(heard).toEqual(['the session has ended']);
  });
});
