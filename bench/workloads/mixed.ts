/**
 * Workload 16 (issue 30): what many users feel. 20 users on 5 tenants (4 connections per tenant,
 * each tenant its own token and database), each reading other pages and filters of a 60-organization
 * list (GraphQL, with the country Reference) and one request in ten a write (an update of one of
 * the tenant's organizations), so the read cache is invalidated as real traffic does. Reported
 * against the same floors as workload 1 (the yoga and node:http servers of the run).
 */
import fs from 'node:fs';
import path from 'node:path';
import { yogaDbFloor } from '../floors/index.ts';
import { failures, job, measure, type Bench, type Measured } from '../lib/bench.ts';
import { ok } from '../lib/http.ts';
import { paired, turnsNote } from '../lib/paired.ts';
import { spawnScript, type LoadJob } from '../lib/load.ts';
import { waitExit } from '../lib/proc.ts';
import { seedOrganizations } from '../lib/seed.ts';
import { fwEnv, startFw, tenantDatabase, type FwServer } from '../lib/server.ts';

const TENANTS = 5;
const USERS_PER_TENANT = 4;

const LIST = `query Mixed($limit: Int, $offset: Int, $where: ResOrganizationWhere, $orderBy: [ResOrganizationOrderBy!]) {
  resOrganizations(limit: $limit, offset: $offset, where: $where, orderBy: $orderBy) { id name code country { id name code } }
}`;
const WRITE = 'mutation MixedWrite($id: ID!, $input: ResOrganizationUpdateInput!) { resOrganizationUpdate(id: $id, input: $input) { id revision } }';

/** Nine reads (pages, filters, orders) and one write, cycled by each connection of a tenant. */
export function bodiesOf(orgIds: string[]): string[] {
  const reads = [
    { limit: 20, offset: 0, orderBy: [{ name: 'asc' }] },
    { limit: 20, offset: 20, orderBy: [{ name: 'asc' }] },
    { limit: 20, offset: 40, orderBy: [{ name: 'asc' }] },
    { limit: 50, offset: 0, orderBy: [{ name: 'desc' }] },
    { limit: 20, where: { name: { contains: 'Org 001' } } },
    { limit: 20, where: { name: { contains: 'Org 002' } }, orderBy: [{ name: 'desc' }] },
    { limit: 30, where: { country: { is: { code: { in: ['FR', 'DE', 'AF', 'AL'] } } } } },
    { limit: 10, offset: 5, orderBy: [{ code: 'asc' }] },
    { limit: 25, orderBy: [{ created_at_utc: 'desc' }] },
  ].map((variables) => JSON.stringify({ query: LIST, variables }));
  const write = JSON.stringify({ query: WRITE, variables: { id: orgIds[7], input: { name: 'Mixed Org written' } } });
  return [...reads, write];
}

export async function mixedWorkload(b: Bench): Promise<void> {
  const name = 'mixed';
  const dataDir = path.join(b.ctx.tmp, `data-${name}`);
  fs.mkdirSync(dataDir, { recursive: true });
  const shared = { JWT_ACCESS_TOKEN_EXPIRE_MINUTES: '600' };
  b.log(`workload 16: provisioning ${TENANTS} tenants`);
  const out = path.join(b.ctx.tmp, 'mixed-tokens.json');
  const env = fwEnv(b.ctx, name, dataDir, { ...shared, EVENT_WORKER: 'false' });
  const provision = spawnScript('provision mixed', 'workloads/provision-tenants.ts', [out, '0', String(TENANTS), '300'], null, env);
  if ((await waitExit(provision, 420_000)) !== 0) throw new Error(`tenant provisioning failed: ${provision.err().slice(-1500)}`);
  const tokens = JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, string>;
  if (Object.keys(tokens).length !== TENANTS) throw new Error(`provisioned ${Object.keys(tokens).length} of ${TENANTS} tenants`);

  // seeded by a server of its own, so that the two measured servers start alike: both fresh
  // processes on databases nobody has written since (until 2026-12-01 the cache-on server also
  // seeded, and was measured in the wake of 300 inserts while the cache-off one was not)
  const bodiesByTenant = new Map<string, string[]>();
  const seeder = await startFw(b.ctx, name, shared);
  try {
    for (const [tenant, token] of Object.entries(tokens)) {
      b.log(`  seeding 60 organizations in ${tenant}`);
      bodiesByTenant.set(tenant, bodiesOf(await seedOrganizations(seeder.base, token, 60, 'Org')));
    }
  } finally {
    await seeder.stop();
  }
  // the same data measured twice: read cache on (the default), then off (issue 30)
  for (const cache of ['on', 'off'] as const) {
    const server = await startFw(b.ctx, name, cache === 'off' ? { ...shared, READ_CACHE_ROWS: '0' } : shared);
    try {
      await measureMixed(b, server, tokens, bodiesByTenant, cache);
    } finally {
      await server.stop();
    }
  }
}

async function measureMixed(b: Bench, server: FwServer, tokens: Record<string, string>, bodiesByTenant: Map<string, string[]>, cache: 'on' | 'off'): Promise<void> {
  const jobs: LoadJob[] = [];
  for (const [tenant, token] of Object.entries(tokens)) {
    const bodies = bodiesByTenant.get(tenant)!;
    // every body answers without errors before it is measured
    for (const body of bodies) {
      const r = await ok<{ data?: unknown; errors?: unknown }>(server.base, 'POST', '/graphql', { token, body: JSON.parse(body) });
      if (r.errors || !r.data) throw new Error(`workload 16: ${tenant}: ${JSON.stringify(r).slice(0, 300)}`);
    }
    jobs.push(job(b, { name: `w16${cache === 'off' ? 'c' : ''}-${tenant}`, base: server.base, method: 'POST', paths: ['/graphql'], headers: { authorization: `Bearer ${token}` }, bodies, connections: USERS_PER_TENANT }));
  }
  b.log(`workload 16: 20 users on 5 tenants, pages and filters, 1 request in 10 a write, read cache ${cache}`);
  const total = (rs: Measured[]) => rs.reduce((n, r) => n + r.rps, 0);
  // measured in turns with the yoga floor (bench/lib/paired.ts), or once against its first figure
  const turns = await paired(b, 'yoga', (d) => measure(server.pid, jobs.map((j) => ({ ...j, ...d }))), total);
  const results = turns?.fw ?? await measure(server.pid, jobs);
  const rps = total(results);
  // the tenants' latencies, weighted by their requests
  const weighted = (k: 'p50' | 'p99') => results.reduce((n, r) => n + r[k] * r.rps, 0) / Math.max(rps, 1);
  const bad = results.map(failures).filter(Boolean).join('; ');
  const xYoga = turns ? turns.ratio : b.floors.yoga ? rps / b.floors.yoga : undefined;
  b.raw[`w16${cache === 'off' ? 'c' : ''}`] = { rps, results, ...(turns ? { turns: { ratios: turns.ratios, floorRps: turns.floorRps } } : {}) };
  // cache off: what a GraphQL server that runs the same statements per request reaches
  const floor = cache === 'off' && !bad ? await yogaDbFloor(b, b.ctx.pg ? 'postgresql' : 'sqlite', Object.fromEntries(Object.entries(tokens).map(([tenant, token]) => [token, tenantDatabase(b.ctx, server, tenant)])), jobs, server.base, '16') : null;
  b.rows.push({
    id: cache === 'off' ? '16c' : '16', workload: `mixed: 20 users, 5 tenants, 10 % writes${cache === 'off' ? ', cache off' : ''}`, rps, p50: weighted('p50'), p99: Math.max(...results.map((r) => r.p99)),
    peakRssMb: results[0]?.peakRssMb, xYoga,
    // 16c against the floor that reads as it does (the ratios of their turns with the yoga floor)
    vsFloor: floor && xYoga !== undefined ? { name: `yoga + ${b.ctx.pg ? 'PG' : 'SQLite'}`, ratio: xYoga / floor } : b.floors.http ? { name: 'node:http', ratio: rps / b.floors.http } : undefined,
    target: '≥ 1.0× yoga', met: xYoga === undefined ? null : !bad && xYoga >= 1.0,
    note: bad || [`p50 weighted by requests; p99 the worst tenant's`, turns ? turnsNote(turns, 'yoga') : ''].filter(Boolean).join('; '),
  });
}
