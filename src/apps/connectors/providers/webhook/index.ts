import crypto from 'node:crypto';
import type { Response } from 'undici';
import { AddressNotAllowedError, ConnectionFailedError } from '../../errors.js';
import type { ConnectorInstance, ConnectorProvider } from '../types.js';
import { configText, configUrl, failure, requireConfig } from '../values.js';

export interface WebhookInstance extends ConnectorInstance {
  /** POSTs `{ type: 'message', …message }`; ConnectionFailedError unless the receiver answers 2xx. */
  send(message: Record<string, unknown>): Promise<{ status: number }>;
}

const TIMEOUT_MS = 10_000;

/**
 * Messaging through a webhook: JSON POSTs to `url`. With a `secret`, each request carries
 * `X-Fw-Timestamp` and `X-Fw-Signature: sha256=<HMAC-SHA256 of "<timestamp>.<body>">` so the
 * receiver can check origin and freshness. The connection test POSTs a ping and expects 2xx.
 */
export function createWebhookProvider(): ConnectorProvider<WebhookInstance> {
  const provider: ConnectorProvider<WebhookInstance> = {
    category: 'messaging',
    provider_type: 'webhook',
    display_name: 'Webhook (HTTP POST)',
    config_schema: [
      { key: 'url', label: 'URL', required: true, secret: false },
      { key: 'secret', label: 'Signing secret', required: false, secret: true },
    ],
    from_config(config, ctx) {
      requireConfig(provider, config);
      const url = configUrl(config, 'url')!;
      const policy = ctx.network;
      const secret = configText(config, 'secret');
      const post = async (payload: Record<string, unknown>): Promise<Response> => {
        const body = JSON.stringify(payload);
        const timestamp = String(Math.floor(Date.now() / 1000));
        const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'fw-connectors/1', 'x-fw-timestamp': timestamp };
        if (secret) headers['x-fw-signature'] = `sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
        // connections go where the deployment's policy lets a connector go (services/network.ts)
        return policy.fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
      };
      return {
        async test_connection() {
          try {
            const res = await post({ type: 'ping', sent_at: new Date().toISOString() });
            await res.arrayBuffer().catch(() => undefined);
            const said = { message_values: { status: res.status }, details: { status: res.status } };
            if (res.status >= 200 && res.status < 300) return { success: true, message: `webhook answered ${res.status}`, message_id: 'connectors.test.webhook_ok', ...said };
            return { success: false, message: `webhook answered ${res.status}; expected 2xx`, message_id: 'connectors.test.webhook_refused', ...said };
          } catch (err) {
            return failure(err);
          }
        },
        async send(message) {
          let res: Response;
          try {
            res = await post({ ...message, type: 'message', sent_at: new Date().toISOString() });
            await res.arrayBuffer().catch(() => undefined);
          } catch (err) {
            if (err instanceof AddressNotAllowedError) throw err;
            throw new ConnectionFailedError(`webhook POST failed: ${(err as Error).message}`);
          }
          if (res.status < 200 || res.status >= 300) throw new ConnectionFailedError(`webhook answered ${res.status}`, { status: res.status });
          return { status: res.status };
        },
      };
    },
  };
  return provider;
}
