/** JSON requests to the servers of this run: 127.0.0.1 only, each bounded by a timeout. */
import net from 'node:net';

export const HOST = '127.0.0.1';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, HOST, () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface JsonRes<T = any> { status: number; body: T; ms: number }

export async function request<T = any>(base: string, method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<JsonRes<T>> {
  const url = new URL(path, base);
  if (url.hostname !== HOST) throw new Error(`refusing to send traffic to ${url.hostname}: only ${HOST}`);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const t0 = performance.now();
  const res = await fetch(url, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  let body: unknown = text;
  try { body = text ? JSON.parse(text) : undefined; } catch { /* keep the text */ }
  return { status: res.status, body: body as T, ms };
}

export async function ok<T = any>(base: string, method: string, path: string, opts: Parameters<typeof request>[3] = {}): Promise<T> {
  const r = await request<T>(base, method, path, opts);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  return r.body;
}

/** Polls `GET /health` (or `path`) until it answers 200, the child exits, or `timeoutMs` passes. */
export async function waitHealthy(base: string, timeoutMs: number, alive: () => boolean, path = '/health'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (!alive()) throw new Error('the process exited before answering');
    try {
      const r = await request(base, 'GET', path, { timeoutMs: 1_000 });
      if (r.status === 200) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no healthy answer from ${base}${path} within ${Math.round(timeoutMs / 1000)} s`);
}
