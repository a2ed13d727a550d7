/**
 * Where connectors may connect (src/apps/connectors/services/network.ts): with NODE_ENV=production
 * a webhook, an S3 endpoint or an SMTP host reaches public addresses only, plus the networks the
 * operator lists in CONNECTOR_PRIVATE_NETWORKS; a tenant administrator's connector cannot probe
 * the server's loopback services, its private network or a cloud metadata address (SSRF).
 * Checked on the address a connection is opened to, after DNS. Real sockets, real local servers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressNotAllowedError } from '../../src/apps/connectors/errors.ts';
import { createS3Provider } from '../../src/apps/connectors/providers/s3/index.ts';
import { createSmtpProvider } from '../../src/apps/connectors/providers/smtp/index.ts';
import { createWebhookProvider } from '../../src/apps/connectors/providers/webhook/index.ts';
import { outboundPolicy } from '../../src/apps/connectors/services/network.ts';
import { BootError } from '../../src/kernel/errors.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { tempDir } from '../helpers/kernel.ts';
import { providerContextOf } from '../../src/apps/connectors/providers/context.ts';

const production = (networks = '') => loadSettings({ NODE_ENV: 'production', DATA_DIR: tempDir('net'), CONNECTOR_PRIVATE_NETWORKS: networks });

let hook: http.Server;
let url = '';
const received: string[] = [];
beforeAll(async () => {
  hook = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((r) => hook.close(() => r())));

describe('the policy', () => {
  it('in production refuses loopback, private, link-local (cloud metadata), shared and reserved addresses, IPv4-mapped ones too, and allows public ones', () => {
    const p = outboundPolicy({ NODE_ENV: 'production', CONNECTOR_PRIVATE_NETWORKS: [] });
    for (const [a, f] of [['127.0.0.1', 4], ['10.1.2.3', 4], ['172.20.0.1', 4], ['192.168.1.1', 4], ['169.254.169.254', 4], ['100.64.0.1', 4], ['0.0.0.0', 4], ['::1', 6], ['::', 6], ['fd00::1', 6], ['fe80::1', 6], ['::ffff:127.0.0.1', 6], ['::ffff:169.254.169.254', 6]] as const) {
      expect(p.allows(a, f), a).toBe(false);
    }
    for (const [a, f] of [['93.184.216.34', 4], ['8.8.8.8', 4], ['2606:4700::1111', 6], ['::ffff:8.8.8.8', 6]] as const) expect(p.allows(a, f), a).toBe(true);
  });

  it('CONNECTOR_PRIVATE_NETWORKS opens the networks it lists, and only those; outside production every address is allowed', () => {
    const p = outboundPolicy({ NODE_ENV: 'production', CONNECTOR_PRIVATE_NETWORKS: ['10.0.0.0/8', '192.168.1.5', 'fd00::/8'] });
    expect(p.allows('10.9.9.9', 4)).toBe(true);
    expect(p.allows('192.168.1.5', 4)).toBe(true);
    expect(p.allows('192.168.1.6', 4)).toBe(false);
    expect(p.allows('fd12::1', 6)).toBe(true);
    expect(p.allows('127.0.0.1', 4)).toBe(false);
    const dev = outboundPolicy({ NODE_ENV: 'development', CONNECTOR_PRIVATE_NETWORKS: [] });
    expect(dev.allows('127.0.0.1', 4) && dev.allows('169.254.169.254', 4)).toBe(true);
  });

  it('a bad CONNECTOR_PRIVATE_NETWORKS entry is a BootError CONNECTOR_SETTINGS_INVALID naming it', () => {
    for (const entry of ['intranet', '10.0.0.0/33', '10.0.0.0/x', 'fd00::/129']) {
      const err = (() => { try { outboundPolicy({ NODE_ENV: 'production', CONNECTOR_PRIVATE_NETWORKS: [entry] }); } catch (e) { return e; } return null; })();
      expect(err, entry).toBeInstanceOf(BootError);
      expect(err).toMatchObject({ code: 'CONNECTOR_SETTINGS_INVALID' });
      expect((err as BootError).message).toContain(entry);
    }
  });

  it('a name is checked on every address it resolves to: localhost is loopback', async () => {
    const p = outboundPolicy({ NODE_ENV: 'production', CONNECTOR_PRIVATE_NETWORKS: [] });
    await expect(p.resolve('localhost')).rejects.toBeInstanceOf(AddressNotAllowedError);
    await expect(p.resolve('[::1]')).rejects.toMatchObject({ code: 'CONNECTOR_ADDRESS_NOT_ALLOWED', status: 403 });
  });
});

describe('connectors in production', () => {
  it('a webhook to a loopback address is refused before anything is sent: the test says why, naming the setting, and send throws 403 CONNECTOR_ADDRESS_NOT_ALLOWED', async () => {
    received.length = 0;
    for (const target of [url, url.replace('127.0.0.1', 'localhost')]) {
      const instance = createWebhookProvider().from_config({ url: target }, providerContextOf(production(), 'default'));
      const result = await instance.test_connection();
      expect(result.success, target).toBe(false);
      expect(result.message).toMatch(/connectors may not reach (127\.0\.0\.1|localhost) \(127\.0\.0\.1\).*CONNECTOR_PRIVATE_NETWORKS/);
      expect(result.details).toMatchObject({ code: 'CONNECTOR_ADDRESS_NOT_ALLOWED' });
      await expect(instance.send({ text: 'hi' })).rejects.toMatchObject({ code: 'CONNECTOR_ADDRESS_NOT_ALLOWED', status: 403 });
    }
    expect(received).toEqual([]);
  });

  it('a webhook to a network the operator listed goes through', async () => {
    received.length = 0;
    const instance = createWebhookProvider().from_config({ url }, providerContextOf(production('127.0.0.0/8'), 'default'));
    expect(await instance.test_connection()).toMatchObject({ success: true });
    expect(received).toEqual(['POST /hook']);
  });

  it('an SMTP host and an S3 endpoint on a private address are refused the same way, nothing sent', async () => {
    received.length = 0;
    const smtp = await createSmtpProvider().from_config({ host: '127.0.0.1', port: '2525', from: 'fw@example.com' }, providerContextOf(production(), 'default')).test_connection();
    expect(smtp).toMatchObject({ success: false, details: { code: 'CONNECTOR_ADDRESS_NOT_ALLOWED' } });
    expect(smtp.message).toContain('CONNECTOR_PRIVATE_NETWORKS');
    const s3 = await createS3Provider().from_config(
      { bucket: 'b', endpoint: url.replace('/hook', ''), access_key_id: 'k', secret_access_key: 's' }, providerContextOf(production(), 'default'),
    ).test_connection();
    expect(s3.success).toBe(false);
    expect(s3.message).toContain('CONNECTOR_PRIVATE_NETWORKS');
    expect(received).toEqual([]);
  });
});

describe("a provider's own HTTP (ctx.network.fetch, as an OAuth code exchange makes)", () => {
  it('in production a loopback address or a name resolving to one is refused with the policy\'s own 403 CONNECTOR_ADDRESS_NOT_ALLOWED, nothing sent; a listed network goes through', async () => {
    received.length = 0;
    const ctx = providerContextOf(production(), 'default');
    await expect(ctx.network.fetch(url, { method: 'POST', body: 'code=abc' })).rejects.toMatchObject({ code: 'CONNECTOR_ADDRESS_NOT_ALLOWED', status: 403 });
    await expect(ctx.network.fetch(url.replace('127.0.0.1', 'localhost'))).rejects.toBeInstanceOf(AddressNotAllowedError);
    expect(received).toEqual([]);
    const listed = providerContextOf(production('127.0.0.1'), 'default');
    // taken out of the policy, as a provider may keep it
    const { fetch: post } = listed.network;
    const res = await post(url, { method: 'POST', body: 'code=abc' });
    expect([res.status, await res.text()]).toEqual([200, 'ok']);
    expect(received).toEqual(['POST /hook']);
  });

  it('a redirect to a refused address is refused too: every connection is checked, not the first URL', async () => {
    const redirector = http.createServer((_req, res) => { res.writeHead(302, { location: url }); res.end(); });
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.2', r));
    try {
      received.length = 0;
      // 127.0.0.2 listed, 127.0.0.1 (where the redirect points) not
      const ctx = providerContextOf(production('127.0.0.2'), 'default');
      await expect(ctx.network.fetch(`http://127.0.0.2:${(redirector.address() as AddressInfo).port}/start`)).rejects.toMatchObject({ code: 'CONNECTOR_ADDRESS_NOT_ALLOWED' });
      expect(received).toEqual([]);
    } finally {
      await new Promise<void>((r) => redirector.close(() => r()));
    }
  });
});
