/**
 * Streams verify tokens like every request: a correctly signed token naming a tenant that does
 * not exist opens no event stream (401), no GraphQL subscription over SSE (401) and no graphql-ws
 * connection (closed 4403), and none of them creates the tenant.
 */
import crypto from 'node:crypto';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, sseSubscribe, wsClient } from '../helpers/api.ts';
import { decodeJwt, rand, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let base: string;
let forged: string;
const ghost = `ghost-${rand()}`;
beforeAll(async () => {
  t = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation' });
  base = await listen(t);
  const c = decodeJwt((await t.loginAdmin()).access_token).payload;
  // only someone holding the server's key could sign it; verifying it must still create nothing
  forged = await new jose.SignJWT({ tenant_id: ghost, role: 'admin', sid: c.sid })
    .setProtectedHeader({ alg: 'HS256' }).setSubject(c.sub).setJti(crypto.randomUUID())
    .setIssuedAt().setExpirationTime('10m').sign(new TextEncoder().encode(t.jwtKey));
});
afterAll(async () => {
  await t?.close();
});

describe('a signed token of a tenant that does not exist', () => {
  it('opens no event stream, SSE subscription or graphql-ws connection, and creates no tenant', async () => {
    const events = await fetch(`${base}/api/presentation/events?access_token=${forged}`);
    expect(events.status).toBe(401);
    expect(((await events.json()) as { error: { code: string } }).error.code).toBe('TOKEN_INVALID');

    const sse = await sseSubscribe(base, 'subscription { clientReload { reason } }', forged);
    sse.stop();
    expect(sse.status).toBe(401);

    const client = wsClient(base, forged);
    const closed = await new Promise<unknown>((resolve) => {
      client.subscribe({ query: 'subscription { clientReload { reason } }' }, { next: () => resolve('next'), error: resolve, complete: () => resolve('complete') });
    });
    await client.dispose();
    expect((closed as { code?: number }).code).toBe(4403);

    expect(await t.kernel.tenants.list()).not.toContain(ghost);
  });
});
