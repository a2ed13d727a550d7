/**
 * Workload 8, in-process: the real kernel and Fastify app (buildServer) on their own data, seeded
 * through the API with server.inject, and every SQL statement of one warmed request of workload 1
 * at page sizes 5, 50 and 500 counted with the clients' query listener (`onQuery`). Settings come
 * from the environment. Prints one JSON line.
 */
import { onQuery } from '../../src/kernel/db/clients.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import { buildServer } from '../../src/server/index.ts';
import { gqlListOf, REST_LIST } from './queries.ts';

const SIZES = [5, 50, 500];
const kernel = await Kernel.boot({ worker: false, log: () => {} });
const server = await buildServer(kernel);
await kernel.tenants.get(kernel.settings.DEFAULT_TENANT);

async function call(method: 'GET' | 'POST', url: string, token: string | null, payload?: object) {
  const res = await server.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {}, ...(payload ? { payload } : {}) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return JSON.parse(res.body);
}

async function counted(fn: () => Promise<unknown>) {
  const queries: string[] = [];
  const off = onQuery((e) => queries.push(e.query));
  try {
    const result = await fn();
    return { result, queries };
  } finally {
    off();
  }
}

try {
  const { access_token: token } = await call('POST', '/api/auth/login', null, { email: process.env.ADMIN_EMAIL, password: process.env.ADMIN_PASSWORD });
  const countries = (await call('GET', '/api/data/res.country?limit=250&fields=code', token)).items as Array<{ id: string }>;
  for (let i = 0; i < Math.max(...SIZES); i++) {
    await call('POST', '/api/data/res.organization', token, { name: `SQL Org ${String(i).padStart(4, '0')}`, country: countries[i % countries.length]!.id });
  }
  const out: Array<{ operation: string; limit: number; records: number; count: number; queries: string[] }> = [];
  for (const limit of SIZES) {
    const body = { query: gqlListOf(limit) };
    await call('POST', '/graphql', token, body); // warm: session cache, prepared plans
    const { result, queries } = await counted(() => call('POST', '/graphql', token, body));
    const r = result as { data?: { resOrganizations?: unknown[] }; errors?: unknown[] };
    if (r.errors) throw new Error(`limit ${limit}: ${JSON.stringify(r.errors).slice(0, 300)}`);
    out.push({ operation: 'graphql', limit, records: r.data?.resOrganizations?.length ?? 0, count: queries.length, queries });
  }
  await call('GET', REST_LIST, token);
  const rest = await counted(() => call('GET', REST_LIST, token));
  out.push({ operation: 'rest', limit: 50, records: (rest.result as { items: unknown[] }).items.length, count: rest.queries.length, queries: rest.queries });
  console.log(JSON.stringify(out));
} finally {
  await server.close();
}
process.exit(0);
