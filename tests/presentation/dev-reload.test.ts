/**
 * Under fw dev (FW_DEV) a browser tab learns that the server was replaced when its live
 * connection comes back: the event stream's ids and the graphql-ws acknowledgement name the
 * server process, and a stream reconnecting with an id of another server is told to reload
 * (`web.client.reload`, reason `fw_dev_restart`). Outside dev neither is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { adminToken, listen, readSseBlocks } from '../helpers/api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The blocks a stream sends until its first `id:` line (or the connected comment, outside dev). */
async function firstBlocks(base: string, token: string, lastEventId?: string): Promise<string[]> {
  const ctrl = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) };
  const res = await fetch(`${base}/api/presentation/events`, { headers, signal: ctrl.signal });
  const blocks: string[] = [];
  await new Promise<void>((resolve) => {
    void readSseBlocks(res.body!, (b) => {
      blocks.push(b);
      // the dev id is written right after connecting (and any replay); a heartbeat (1 s) ends a stream without one
      if (/^id: fw-dev-/m.test(b) && !b.includes('event:') || b.includes('heartbeat')) resolve();
    }).then(resolve, resolve);
  });
  ctrl.abort();
  return blocks;
}

function ackPayload(base: string, token: string): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
    ws.on('message', (m) => {
      const msg = JSON.parse(m.toString()) as { type: string; payload?: Record<string, unknown> };
      if (msg.type === 'connection_ack') resolve(msg.payload);
      ws.close();
    });
    ws.on('error', reject);
  });
}

const MODULES = 'base,auth,presentation';

describe('fw dev reloads open tabs after a restart', () => {
  let dev: TestServer;
  let plain: TestServer;
  let devBase: string;
  let plainBase: string;
  let devToken: string;
  let plainToken: string;
  beforeAll(async () => {
    dev = await startTestServer({ ACTIVE_MODULES: MODULES, FW_DEV: 'true', SSE_HEARTBEAT_SECONDS: '1' });
    plain = await startTestServer({ ACTIVE_MODULES: MODULES, SSE_HEARTBEAT_SECONDS: '1' });
    devToken = await adminToken(dev);
    plainToken = await adminToken(plain);
    devBase = await listen(dev);
    plainBase = await listen(plain);
  }, 120_000);
  afterAll(async () => {
    await dev?.close();
    await plain?.close();
  });

  it('a stream reconnecting with an id of another server is told to reload; one of this server is not', async () => {
    const fresh = await firstBlocks(devBase, devToken);
    const own = /^id: (fw-dev-\S+)$/m.exec(fresh.join('\n'))?.[1];
    expect(own).toBeTruthy();
    expect(fresh.join('\n')).not.toContain('web.client.reload');

    const again = await firstBlocks(devBase, devToken, own);
    expect(again.join('\n')).not.toContain('web.client.reload');

    const restarted = await firstBlocks(devBase, devToken, 'fw-dev-another-server');
    const reload = restarted.find((b) => b.includes('event: web.client.reload'));
    expect(reload).toBeTruthy();
    expect(reload).toContain('"reason":"fw_dev_restart"');
  });

  it('outside dev the stream sends no server id and a reconnect with an unknown id is not told to reload', async () => {
    const blocks = await firstBlocks(plainBase, plainToken, 'fw-dev-another-server');
    expect(blocks.join('\n')).not.toMatch(/^id: /m);
    expect(blocks.join('\n')).not.toContain('web.client.reload');
  });

  it('the graphql-ws acknowledgement names the dev server, and nothing outside dev', async () => {
    expect((await ackPayload(devBase, devToken))?.fw_dev_instance).toMatch(/^fw-dev-/);
    expect((await ackPayload(plainBase, plainToken))?.fw_dev_instance).toBeUndefined();
  });
});
