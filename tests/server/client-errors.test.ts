/**
 * What Node's HTTP parser refuses is answered in the error envelope with a stable code
 * (src/server/client-errors.ts), and a filter too long for a URL has a route that takes it in a
 * body: POST /api/data/{model}/search answers what GET /api/data/{model} answers.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientRefusal } from '../../src/server/client-errors.ts';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

let ts: TestServer;
let token: string;
let base: string;

beforeAll(async () => {
  ts = await startTestServer();
  token = (await ts.loginAdmin()).access_token;
  base = await ts.server.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await ts?.close();
});

/** Sends raw bytes on a new connection and answers everything the server wrote before closing. */
function raw(bytes: string): Promise<string> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.on('data', (d) => { text += d.toString(); });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string } };

describe('refusals of the HTTP parser', () => {
  it('a request head over 16 KiB (a filter of 1,500 ids in the URL) is 431 HEADERS_TOO_LARGE in the envelope, naming the POST alternative', async () => {
    const ids = Array.from({ length: 1500 }, () => crypto.randomUUID());
    const res = await fetch(`${base}/api/data/res.country?filter=${encodeURIComponent(JSON.stringify([['record_uuid', 'in', ids]]))}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json() as { error: { code: string; message: string } };
    expect(body.error.code).toBe('HEADERS_TOO_LARGE');
    expect(body.error.message).toMatch(/POST \/api\/data\/\{model\}\/search/);
  });

  it('bytes that are not HTTP are 400 BAD_REQUEST in the envelope, and the connection closes', async () => {
    const answer = await raw('HELLO THERE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/);
    expect(bodyOf(answer).error).toEqual({ code: 'BAD_REQUEST', message: 'the request is not valid HTTP' });
  });

  it('a request that did not arrive in time is 408 REQUEST_TIMEOUT; a reset connection gets nothing', () => {
    expect(clientRefusal(Object.assign(new Error('t'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }))).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
    expect(clientRefusal(Object.assign(new Error('r'), { code: 'ECONNRESET' }))).toBeNull();
  });
});

describe('POST /api/data/{model}/search', () => {
  it('answers what the GET list answers for the same filter, order, page and fields', async () => {
    const filter = [['code', 'in', ['FR', 'DE', 'IT', 'ES']]];
    const get = await ts.request('GET', `/api/data/res.country?filter=${encodeURIComponent(JSON.stringify(filter))}&order=name%20desc&limit=2&offset=1&fields=code,name`, { token });
    const post = await ts.request('POST', '/api/data/res.country/search', { token, body: { filter, order: 'name desc', limit: 2, offset: 1, fields: ['code', 'name'] } });
    expect(post.status).toBe(200);
    expect(post.body).toEqual(get.body);
    expect(post.body.items.map((c: { code: string }) => c.code)).toEqual(['IT', 'DE']);
  });

  it('takes a filter no URL could hold: 1,500 ids', async () => {
    const fr = (await ts.request('GET', `/api/data/res.country?filter=${encodeURIComponent('[["code","=","FR"]]')}&fields=code`, { token })).body.items[0].id;
    const ids = [...Array.from({ length: 1499 }, () => crypto.randomUUID()), fr];
    const res = await ts.request('POST', '/api/data/res.country/search', { token, body: { filter: [['record_uuid', 'in', ids]], fields: 'code' } });
    expect([res.status, res.body.items, res.body.total]).toEqual([200, [{ id: fr, code: 'FR' }], 1]);
  });

  it('refuses what the GET list refuses, with the same codes, and unknown parameters', async () => {
    const post = (body: unknown) => ts.request('POST', '/api/data/res.country/search', { token, body });
    expectError(await post({ limit: 501 }), 400, 'PAGE_TOO_LARGE');
    expectError(await post({ limit: 1.5 }), 400, 'INVALID_PAGING');
    expectError(await post({ limit: true }), 400, 'INVALID_PAGING');
    expectError(await post({ filter: [['nope', '=', 1]] }), 400, 'INVALID_DOMAIN');
    expectError(await post({ filter: { code: 'FR' } }), 400, 'INVALID_DOMAIN');
    expectError(await post({ order: 'bogus asc' }), 400, 'INVALID_ORDER');
    expectError(await post({ fields: [1] }), 400, 'INVALID_FIELDS');
    expectError(await post({ where: [] }), 400, 'INVALID_BODY');
    expectError(await ts.request('POST', '/api/data/res.country/search', { body: {} }), 401, 'UNAUTHENTICATED');
  });
});
