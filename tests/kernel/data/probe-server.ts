/**
 * The server the limit tests of tests/kernel/data (domain.test.ts, values.test.ts) run against: a
 * real kernel (SQLite files in a temp folder, or PostgreSQL databases under a unique prefix)
 * behind the real Fastify app, driven with `inject`, with two fixture commands:
 *   - `limitprobe.read` runs in a transaction, so the `fw.search`, `fw.count` and `fw.read_group`
 *     it dispatches read through Prisma (the transaction path; plain reads use the compiled SQL);
 *     payload `{ model, domain, fields? }`;
 *   - `limitprobe.store` takes a JSON input (checked by the command pipeline like any written value).
 */
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Env } from '../../../src/kernel/env.ts';
import { f } from '../../../src/kernel/declare.ts';
import { buildServer } from '../../../src/server/index.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, bootTestKernel, fixtureApp, type Provider, type TestKernel } from '../../helpers/kernel.ts';

export interface ProbeRead { items: Array<Record<string, unknown>>; names: string[]; total: number; count: number; groups: number; viaPrisma: boolean }

const probeApp = fixtureApp('limitprobe', {
  commands: [
    {
      name: 'limitprobe.read',
      description: 'Reads a domain inside a transaction (test fixture)',
      transaction: true,
      mutates: false,
      returns: 'json',
      async handler(env: Env, payload: Record<string, unknown>) {
        const { model, domain, fields = ['name'] } = payload as { model: string; domain: unknown; fields?: string[] };
        const search = await env.dispatch<{ items: Array<Record<string, unknown> & { name: string }>; total: number }>(
          'fw.search', { model, domain, fields, order: 'name asc', count: true });
        const count = await env.dispatch<{ count: number }>('fw.count', { model, domain });
        const grouped = await env.dispatch<{ groups: unknown[] }>('fw.read_group', { model, groupby: ['name'], domain });
        return {
          items: search.items, names: search.items.map((r) => r.name), total: search.total, count: count.count, groups: grouped.groups.length,
          viaPrisma: env.reader === undefined,
        } satisfies ProbeRead;
      },
    },
    {
      name: 'limitprobe.store',
      description: 'Takes a JSON value (test fixture)',
      mutates: false,
      returns: 'json',
      input: { data: f.json({ required: true }) },
      async handler(_env: Env, payload: Record<string, unknown>) {
        return { stored: payload.data };
      },
    },
  ],
});

export interface Reply { status: number; body: any } // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ProbeServer {
  provider: Provider;
  kernel: TestKernel['kernel'];
  /** A request as `token` (the admin's unless given). */
  request(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body?: unknown, token?: string): Promise<Reply>;
  /** POST /graphql with a document (literals and all) and optional variables. */
  gql(query: string, variables?: Record<string, unknown>, token?: string): Promise<Reply>;
  adminToken: string;
  /** Logs a user in; returns the access token. */
  login(email: string, password: string): Promise<string>;
  close(): Promise<void>;
}

export async function startProbeServer(provider: Provider): Promise<ProbeServer> {
  // the domain layer's own limits are probed on every path, GraphQL included: the GraphQL document
  // bounds (tests/graphql/bounds.test.ts) are raised so a 500-term `where` reaches the domain check
  const tk = await bootTestKernel({ provider, apps: [probeApp], settings: { GRAPHQL_MAX_TOKENS: '200000', GRAPHQL_MAX_FIELDS: '100000' } });
  let server: FastifyInstance;
  try {
    server = await buildServer(tk.kernel);
    await tk.kernel.tenants.get(tk.kernel.settings.DEFAULT_TENANT);
  } catch (err) {
    await tk.cleanup();
    throw err;
  }
  const send = async (method: string, url: string, body: unknown, token: string | undefined): Promise<Reply> => {
    const res = await server.inject({
      method: method as 'GET', url,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    let parsed: unknown = res.body;
    try {
      parsed = res.body ? JSON.parse(res.body) : undefined;
    } catch { /* not JSON: keep the text */ }
    return { status: res.statusCode, body: parsed };
  };
  const login = async (email: string, password: string) => {
    const res = await send('POST', '/api/auth/login', { email, password }, undefined);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.access_token as string;
  };
  const adminToken = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
  return {
    provider,
    kernel: tk.kernel,
    adminToken,
    login,
    request: (method, url, body, token = adminToken) => send(method, url, body, token),
    gql: (query, variables, token = adminToken) => send('POST', '/graphql', { query, ...(variables ? { variables } : {}) }, token),
    async close() {
      try {
        await server.close();
      } finally {
        await tk.cleanup();
      }
    },
  };
}

/** A REST refusal: this status and code in the error envelope; returns the error. */
export function refused(res: Reply, status: number, code: string, where = ''): { code: string; message: string; details?: Record<string, unknown> } {
  expect(res.status, `${where} ${JSON.stringify(res.body)}`).toBe(status);
  expect(res.body?.error?.code, `${where} ${JSON.stringify(res.body)}`).toBe(code);
  return res.body.error;
}

/** A GraphQL refusal: no data for the field, `extensions.code`, and the HTTP status; returns the error. */
export function gqlRefused(res: Reply, status: number, code: string, where = ''): { message: string; extensions: { code: string; details?: Record<string, unknown> } } {
  expect(res.status, `${where} ${JSON.stringify(res.body)}`).toBe(status);
  expect(res.body?.errors?.[0]?.extensions?.code, `${where} ${JSON.stringify(res.body)}`).toBe(code);
  return res.body.errors[0];
}
