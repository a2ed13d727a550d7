/**
 * API-layer test helpers on top of tests/helpers/server.ts: GraphQL over HTTP (`gql`), a real
 * listening port for graphql-ws and SSE clients, subscription collectors, a deterministic
 * "the server has subscribed" signal and counting SQL statements.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print, type DocumentNode } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { expect } from 'vitest';
import WebSocket from 'ws';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onQuery } from '../../src/kernel/db/clients.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import type { LoadedApp } from '../../src/kernel/registry/registry.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { buildServer } from '../../src/server/index.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, type Res, type TestServer } from './server.ts';

export interface GqlBody<T = any> {
  data?: T | null;
  errors?: Array<{ message: string; path?: string[]; extensions?: { code?: string; details?: Record<string, any>; [k: string]: unknown } }>;
}

export interface GqlOptions {
  token?: string;
  headers?: Record<string, string>;
}

type Query<T> = string | DocumentNode | TypedDocumentNode<T, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** POST /graphql; `query` is SDL text or a (typed) document node, whose result type is inferred. */
export async function gql<T = any>(ts: Pick<TestServer, 'request'>, query: Query<T>, variables?: Record<string, unknown>, o: GqlOptions = {}): Promise<Res<GqlBody<T>>> {
  const text = typeof query === 'string' ? query : print(query);
  return ts.request<GqlBody<T>>('POST', '/graphql', { token: o.token, headers: o.headers, body: { query: text, variables } });
}

/** A GraphQL call that must succeed: no errors, returns `data`. */
export async function gqlOk<T = any>(ts: Pick<TestServer, 'request'>, query: Query<T>, variables?: Record<string, unknown>, o: GqlOptions = {}): Promise<T> {
  const res = await gql<T>(ts, query, variables, o);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body.data as T;
}

/** The first error of a GraphQL response, checked for code (and HTTP status when given). */
export function gqlError(res: Res<GqlBody>, code: string, status?: number): NonNullable<GqlBody['errors']>[number] {
  expect(res.body.errors?.length, JSON.stringify(res.body)).toBeGreaterThan(0);
  const err = res.body.errors![0];
  expect(err.extensions?.code, JSON.stringify(res.body.errors)).toBe(code);
  if (status !== undefined) expect(res.status, JSON.stringify(res.body)).toBe(status);
  return err;
}

/** Listens on an ephemeral port of 127.0.0.1; returns `http://127.0.0.1:<port>`. */
export async function listen(ts: TestServer): Promise<string> {
  return ts.server.listen({ port: 0, host: '127.0.0.1' });
}

/**
 * Resolves once the server side of a subscription has subscribed to its topic (for Redis: the
 * SUBSCRIBE was acknowledged), so a change made afterwards cannot be missed. Wraps
 * `kernel.subscribe`, which every subscription stream goes through.
 */
export function trackSubscribes(kernel: Kernel): { next(topicPart?: string): Promise<string> } {
  const waiters: Array<{ part: string; resolve: (t: string) => void }> = [];
  const original = kernel.subscribe.bind(kernel);
  (kernel as { subscribe: Kernel['subscribe'] }).subscribe = async (tenant, topic, handler) => {
    const off = await original(tenant, topic, handler);
    const i = waiters.findIndex((w) => topic.includes(w.part));
    if (i >= 0) waiters.splice(i, 1)[0].resolve(`${tenant}:${topic}`);
    return off;
  };
  return {
    next: (part = '') => new Promise<string>((resolve) => { waiters.push({ part, resolve }); }),
  };
}

/** A stream of results with promise-based waiting, for subscription tests. */
export class Inbox<T = any> {
  readonly items: T[] = [];
  error: unknown = null;
  done = false;
  private wake: Array<() => void> = [];

  push(item: T): void {
    this.items.push(item);
    this.notify();
  }

  fail(err: unknown): void {
    this.error = err;
    this.done = true;
    this.notify();
  }

  finish(): void {
    this.done = true;
    this.notify();
  }

  private notify(): void {
    for (const w of this.wake.splice(0)) w();
  }

  /** Waits until `pred` holds for some item (returns it), or fails after `timeoutMs`. */
  async waitFor(pred: (item: T) => boolean, what: string, timeoutMs = 5000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.items.find(pred);
      if (hit !== undefined) return hit;
      if (this.done) throw new Error(`stream ended before ${what}: ${String((this.error as Error)?.message ?? JSON.stringify(this.error))}; got ${JSON.stringify(this.items)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.items)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.wake.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }

  /** Waits until the stream ends (error or completion). */
  async ended(timeoutMs = 5000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    while (!this.done) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`stream did not end; got ${JSON.stringify(this.items)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.wake.push(() => { clearTimeout(t); resolve(); });
      });
    }
    return this.error;
  }
}

/**
 * A graphql-ws client against `base` (http URL); the token travels in connectionParams, with
 * `params` (e.g. the `organization` the connection works in).
 */
export function wsClient(base: string, token?: string, params: Record<string, string> = {}): Client {
  return createClient({
    url: `${base.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}`, ...params } : undefined,
    retryAttempts: 0,
    lazy: true,
  });
}

/** Subscribes over graphql-ws; every `next` payload lands in the inbox. Returns it and an unsubscribe. */
export function wsSubscribe<T = any>(client: Client, query: string | DocumentNode, variables?: Record<string, unknown>): { inbox: Inbox<{ data?: T; errors?: unknown[] }>; stop: () => void } {
  const inbox = new Inbox<{ data?: T; errors?: unknown[] }>();
  const stop = client.subscribe<T>(
    { query: typeof query === 'string' ? query : print(query), variables },
    {
      next: (v) => inbox.push(v as { data?: T; errors?: unknown[] }),
      error: (e) => inbox.fail(e),
      complete: () => inbox.finish(),
    },
  );
  return { inbox, stop };
}

/** Reads a `text/event-stream` body one block (lines up to a blank line) at a time; settles when the stream ends or fails. */
export async function readSseBlocks(body: ReadableStream<Uint8Array>, onBlock: (block: string) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      onBlock(buf.slice(0, cut));
      buf = buf.slice(cut + 2);
    }
  }
}

/**
 * A subscription over server-sent events (graphql-yoga's "distinct connections" mode): a POST
 * with `accept: text/event-stream`; each `event: next` data line is parsed into the inbox.
 */
export async function sseSubscribe<T = any>(base: string, query: string, token?: string, variables?: Record<string, unknown>): Promise<{ inbox: Inbox<{ data?: T; errors?: unknown[] }>; status: number; contentType: string | null; stop: () => void }> {
  const ctrl = new AbortController();
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    signal: ctrl.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query, variables }),
  });
  const inbox = new Inbox<{ data?: T; errors?: unknown[] }>();
  void readSseBlocks(res.body!, (block) => {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
    if (event === 'next' && data) inbox.push(JSON.parse(data));
    if (event === 'complete') inbox.finish();
  }).then(() => inbox.finish(), (err) => {
    if ((err as Error).name === 'AbortError') inbox.finish();
    else inbox.fail(err);
  });
  return { inbox, status: res.status, contentType: res.headers.get('content-type'), stop: () => ctrl.abort() };
}

/** Counts the SQL statements run while `fn` runs (every tenant of this process). */
export async function countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; count: number; queries: string[] }> {
  const queries: string[] = [];
  const off = onQuery((e) => queries.push(e.query));
  try {
    const result = await fn();
    return { result, count: queries.length, queries };
  } finally {
    off();
  }
}

/** Resolves after `ms`; only for asserting that nothing (more) arrives. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Logs the admin in to `tenant` (default: the default tenant), opening the tenant first:
 * anonymous requests never create a tenant database, the operator (here: the test) does.
 */
export async function adminToken(ts: TestServer, tenant?: string): Promise<string> {
  await ts.kernel.tenants.get(tenant ?? ts.kernel.settings.DEFAULT_TENANT);
  return (await ts.loginAdmin(tenant)).access_token;
}

/** What tests/helpers/server.ts offers, for a server booted here (with fixture apps). */
export type ApiServer = Pick<TestServer, 'server' | 'kernel' | 'request' | 'close'> & { adminToken(): Promise<string> };

/**
 * Like startTestServer (SQLite in a temp folder, silent, cheap bcrypt) but with fixture apps
 * appended to the registry, e.g. a command whose handler fails unexpectedly.
 */
export async function startServerWithApps(apps: LoadedApp[], overrides: Record<string, string> = {}): Promise<ApiServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-api-'));
  const kernel = await Kernel.boot({
    settings: loadSettings({
      DATA_DIR: dataDir, ACTIVE_MODULES: 'base,auth', ACTIVE_DOMAINS: 'crm', BCRYPT_COST: '4',
      ADMIN_EMAIL, ADMIN_PASSWORD, LOG_LEVEL: 'silent', EVENT_WORKER: 'false', ...overrides,
    }),
    worker: false,
    apps,
    log: () => {},
  });
  const server = await buildServer(kernel);
  const request = async <T = any>(method: string, url: string, o: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Res<T>> => {
    const res = await server.inject({
      method: method as 'GET', url,
      headers: { ...(o.headers ?? {}), ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) },
      ...(o.body !== undefined ? { payload: o.body as object } : {}),
    });
    let body: unknown = res.body;
    try { body = res.body ? JSON.parse(res.body) : undefined; } catch { /* keep the text */ }
    return { status: res.statusCode, body: body as T, headers: res.headers };
  };
  return {
    server, kernel, request,
    async adminToken() {
      await kernel.tenants.get(kernel.settings.DEFAULT_TENANT);
      const res = await request('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.access_token as string;
    },
    async close() {
      try {
        await server.close();
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
