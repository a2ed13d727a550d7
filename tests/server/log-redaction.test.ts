/**
 * Credentials in query strings never reach the log (src/server/log.ts): the event stream's
 * `?access_token=`, `?token=`, the OAuth callback's `code` and `state` are written as
 * `[REDACTED]` in the request lines Fastify logs at `info`; the rest of the URL stays readable.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/server/log.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let log = '';
beforeAll(async () => {
  const stream = new PassThrough();
  stream.on('data', (c: Buffer) => { log += c.toString(); });
  t = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation,connectors', LOG_LEVEL: 'info' }, { logStream: stream });
});
afterAll(async () => {
  await t?.close();
});

describe('the request log', () => {
  it('shows access tokens, tokens and OAuth codes and states of query strings as [REDACTED], and the rest of the URL as sent', async () => {
    const token = (await t.loginAdmin()).access_token;
    await t.request('GET', '/api/presentation/events?access_token=not-a-valid-token-SECRET1');
    await t.request('GET', `/health?token=SECRET2-${token.slice(-12)}&keep=visible`);
    await t.request('GET', '/api/connectors/oauth/callback/oauth_test?code=SECRET3&state=SECRET4');
    await t.request('GET', '/health?ACCESS%5FTOKEN=SECRET5&refresh_token=SECRET6#frag');
    const lines = log.trim().split('\n').map((l) => JSON.parse(l) as { msg?: string; req?: { url?: string } });
    const urls = lines.filter((l) => l.msg === 'incoming request').map((l) => l.req?.url);
    expect(urls).toEqual(expect.arrayContaining([
      '/api/presentation/events?access_token=[REDACTED]',
      '/health?token=[REDACTED]&keep=visible',
      '/api/connectors/oauth/callback/oauth_test?code=[REDACTED]&state=[REDACTED]',
      '/health?ACCESS%5FTOKEN=[REDACTED]&refresh_token=[REDACTED]',
    ]));
    for (const secret of ['SECRET1', 'SECRET2', 'SECRET3', 'SECRET4', 'SECRET5', 'SECRET6', token]) expect(log).not.toContain(secret);
  });
});

describe('redactUrl', () => {
  it('leaves URLs without credentials alone and redacts every credential parameter, repeated, empty or case-changed', () => {
    expect(redactUrl('/api/data/res.user?limit=3&fields=name')).toBe('/api/data/res.user?limit=3&fields=name');
    expect(redactUrl('/x')).toBe('/x');
    expect(redactUrl('/x?token=a&token=b&Token=&api_key=k&flag')).toBe('/x?token=[REDACTED]&token=[REDACTED]&Token=[REDACTED]&api_key=[REDACTED]&flag');
    expect(redactUrl('/x?%zz=1&code=c')).toBe('/x?%zz=1&code=[REDACTED]');
  });
});
