import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sendsEvents } from '../../kernel/app.js';
import { AuthenticationRequired, BootError } from '../../kernel/errors.js';
import type { KernelHandle } from '../../kernel/kernel-handle.js';
import { DEV_INSTANCE } from '../../kernel/dev/instance.js';
import { defineSettings } from '../../kernel/settings.js';
import { authenticatorOf, bearerToken, requestOrganization } from '../../server/authenticate.js';
import { exemptFromIdleTimeout } from '../../server/timeouts.js';
import '../../server/types.js';

export const presentationSettings = defineSettings('presentation', {
  SSE_HEARTBEAT_SECONDS: { kind: 'int', default: '15', doc: 'Interval of the comment line the event stream sends to keep proxies from closing it.' },
  SSE_REPLAY_BUFFER: { kind: 'int', default: '100', doc: 'Recent events per tenant kept to replay to a client reconnecting with Last-Event-ID.' },
  CURRENCY: { kind: 'string', default: 'EUR', doc: 'ISO 4217 code of the currency money fields are shown in (widget `money`), unless the view names another (`money:USD`) or a field of the record that holds one (`money:currency`). Three capital letters; anything else stops the boot.' },
});

/** The currency setting, checked: three capital letters (ISO 4217), or a BootError naming it. */
export function currencyOf(kernel: KernelHandle): string {
  const c = presentationSettings(kernel.settings).CURRENCY;
  if (!/^[A-Z]{3}$/.test(c)) throw new BootError(`CURRENCY must be an ISO 4217 code of three capital letters (EUR, USD, …), not "${c}"`, { setting: 'CURRENCY' }, 'INVALID_CURRENCY');
  return c;
}

interface Buffered { id: string; name: string; data: unknown }

/** The one event the stream sends (the presentation app's declared event). */
const RELOAD = 'web.client.reload';

/**
 * GET /api/presentation/events: the tenant's web.client.reload events as server-sent events
 * (`event: <name>`, JSON `data`, `id`). Browsers' EventSource cannot send headers, so the token
 * may come as `?access_token=`. Reconnecting with Last-Event-ID replays what was missed.
 */
export function eventStreamRoute(server: FastifyInstance, kernel: KernelHandle): void {
  const s = presentationSettings(kernel.settings);
  const buffers = new Map<string, Buffered[]>();
  const listening = new Map<string, Promise<() => void>>();
  const clients = new Map<string, Set<(e: Buffered) => void>>();
  const devInstance = kernel.settings.FW_DEV ? DEV_INSTANCE : null;

  const listen = (tenant: string) => {
    if (!listening.has(tenant)) {
      listening.set(tenant, kernel.subscribe(tenant, 'client.reload', (raw) => {
        const msg = raw as { event_id?: string; name?: string; payload?: unknown };
        const e: Buffered = { id: msg.event_id ?? crypto.randomUUID(), name: msg.name ?? RELOAD, data: msg.payload ?? msg };
        const buf = buffers.get(tenant) ?? [];
        buf.push(e);
        if (buf.length > s.SSE_REPLAY_BUFFER) buf.shift();
        buffers.set(tenant, buf);
        for (const c of clients.get(tenant) ?? []) c(e);
      }));
    }
    return listening.get(tenant)!;
  };
  server.addHook('onClose', async () => {
    for (const p of listening.values()) (await p)();
  });
  // open streams would hold the HTTP server's close (a SIGTERM shutdown) forever: end them first;
  // browsers reconnect (retry: 3000) to whichever instance answers
  const open = new Set<() => void>();
  server.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  // public to the route table: it checks the token itself, which may come as a parameter
  const described = sendsEvents({ events: [RELOAD], replay: true, tokenInQuery: true, query: { organization: 'string' } });
  server.get('/api/presentation/events', { config: { auth: 'public', ...described.config } }, async (req, reply) => {
    const token = bearerToken(req) ?? (req.query as { access_token?: string }).access_token;
    const auth = authenticatorOf(kernel);
    if (!token || !auth) throw new AuthenticationRequired('a bearer access token (header or access_token parameter) is required');
    // an EventSource cannot send headers: the organization comes as a parameter, like the token
    const org = (req.query as { organization?: string }).organization ?? requestOrganization(req);
    const principal = await auth.authenticate(token, { organization: typeof org === 'string' ? org : null });
    const tenant = principal.tenant_id;
    await listen(tenant);

    reply.hijack();
    // quiet between events for as long as it lives: the heartbeat, not the idle timeout, finds a dead peer
    exemptFromIdleTimeout(req);
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    const send = (e: Buffered) => res.write(`id: ${e.id}\nevent: ${e.name}\ndata: ${JSON.stringify(e.data)}\n\n`);
    res.write(`: connected\nretry: 3000\n\n`);
    const last = req.headers['last-event-id'];
    if (typeof last === 'string') {
      const buf = buffers.get(tenant) ?? [];
      const at = buf.findIndex((e) => e.id === last);
      for (const e of at >= 0 ? buf.slice(at + 1) : []) send(e);
      // under fw dev a stream that knew another server (an id this process never gave) comes
      // back after a restart: the tab reloads into the new code
      if (devInstance && at < 0 && last !== devInstance) send({ id: devInstance, name: RELOAD, data: { reason: 'fw_dev_restart' } });
    }
    // an id without data: the browser's Last-Event-ID from now on, naming this server
    if (devInstance) res.write(`id: ${devInstance}\n\n`);
    const set = clients.get(tenant) ?? new Set();
    set.add(send);
    clients.set(tenant, set);
    const beat = setInterval(() => res.write(`: heartbeat\n\n`), s.SSE_HEARTBEAT_SECONDS * 1000);
    let closed = false;
    let stopWatching: (() => void) | undefined;
    const cleanup = () => {
      if (closed) return;
      closed = true;
      clearInterval(beat);
      set.delete(send);
      stopWatching?.();
      open.delete(shutdown);
    };
    const shutdown = () => {
      cleanup();
      res.end(': server shutting down\n\n');
    };
    open.add(shutdown);
    // the token is checked once, above; the stream then lives as long as its session: a logout,
    // revocation, deactivation, expiry or a change of role or organization ends it (an
    // EventSource reconnects, and is refused with 401 if the session is gone)
    stopWatching = auth.watch?.(token, principal, (reason) => {
      cleanup();
      res.end(`: session ended (${reason.replace(/[\r\n]/g, ' ')})\n\n`);
    });
    req.raw.on('close', cleanup);
    res.on('close', cleanup);
  });
}
