/** Workloads 1–4: GraphQL and REST list, read by id, and create, on the main server. */
import { failures, job, measure, type Bench } from '../lib/bench.ts';
import { ok, request } from '../lib/http.ts';
import type { LoadJob } from '../lib/load.ts';
import { paired, turnsNote } from '../lib/paired.ts';
import type { FwServer } from '../lib/server.ts';
import { GQL_CREATE, GQL_LIST_BODY, GQL_READ, REST_LIST } from './queries.ts';

export interface ApiTarget {
  server: FwServer; token: string; orgIds: string[]; countryId: string;
  /** The node:http + database floor's ratio to node:http (row 2c's note compares with it), when it ran. */
  dbFloor?: { engine: string; ratio: number } | null;
  /** The yoga + database floor's ratio to yoga on workload 1 (row 1c's note compares with it), when it ran. */
  yogaDbFloor?: { engine: string; ratio: number } | null;
}

/** A row's ratio to its floor that reads the database (`ratio`: that floor's own ratio to `base`), when both were measured. */
const againstFloor = (ratio: number | undefined, floor: { engine: string; ratio: number } | null | undefined, base: string): string =>
  (floor && ratio !== undefined ? `${(ratio / floor.ratio).toFixed(2)}× the ${base} + ${floor.engine} floor` : '');

/** One request of the job, checked before it is measured: a broken workload is not a figure. */
async function check(t: ApiTarget, j: LoadJob, expect: (body: any) => boolean): Promise<void> {
  const body = j.bodies?.[0] ?? j.bodyTemplate?.replaceAll('{{n}}', 'check');
  const r = await request(t.server.base, j.method, j.paths[0]!, {
    token: t.token,
    ...(body ? { body: JSON.parse(body) } : {}),
  });
  if (r.status >= 300 || (r.body as any)?.errors || !expect(r.body)) {
    throw new Error(`${j.name}: unexpected answer ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
  }
}

async function run(b: Bench, t: ApiTarget, id: string, label: string, j: LoadJob, expect: (body: any) => boolean, target?: { floor: 'http'; min: number } | { yoga: number }): Promise<void> {
  b.log(`workload ${id}: ${label}`);
  await check(t, j, expect);
  // a row with a target is measured in turns with the floor it is judged against (bench/lib/paired.ts)
  const kind = target ? ('yoga' in target ? 'yoga' : 'http') : null;
  const turns = kind ? await paired(b, kind, async (d) => (await measure(t.server.pid, [{ ...j, ...d }]))[0]!, (r) => r.rps) : null;
  const r = turns?.fw ?? (await measure(t.server.pid, [j]))[0]!;
  b.raw[`w${id}`] = turns ? { ...r, turns: { ratios: turns.ratios, floorRps: turns.floorRps } } : r;
  const xYoga = kind === 'yoga' && turns ? turns.ratio : b.floors.yoga ? r.rps / b.floors.yoga : undefined;
  const vsHttp = kind === 'http' && turns ? turns.ratio : b.floors.http ? r.rps / b.floors.http : undefined;
  let met: boolean | undefined;
  let targetText: string | undefined;
  if (target && 'yoga' in target && xYoga !== undefined) { met = xYoga >= target.yoga; targetText = `≥ ${target.yoga}× yoga`; }
  if (target && 'floor' in target && vsHttp !== undefined) { met = vsHttp >= target.min; targetText = `≥ ${target.min}× node:http`; }
  const bad = failures(r);
  b.rows.push({
    id, workload: label, rps: r.rps, p50: r.p50, p99: r.p99, peakRssMb: r.peakRssMb, xYoga,
    vsFloor: vsHttp !== undefined && /^[12]c?$/.test(id) ? { name: 'node:http', ratio: vsHttp } : undefined,
    target: targetText, met: bad && met ? false : met, note: bad || [turns && kind ? turnsNote(turns, kind === 'yoga' ? 'yoga' : 'node:http') : '', id === '2c' ? againstFloor(vsHttp, t.dbFloor, 'node:http') : '', id === '1c' ? againstFloor(xYoga, t.yogaDbFloor, 'yoga') : ''].filter(Boolean).join('; ') || undefined,
  });
}

/**
 * The server's read cache (`READ_CACHE_ROWS`): workloads 1–3 ask for the same pages again and
 * again, so with the cache on they mostly measure its hits; the cache-off rows (ids `1c`, `2c`,
 * `3ac`, `3bc`, on a server of their own with `READ_CACHE_ROWS=0`) measure a request that runs
 * (issue 30). Targets: issue 30's for the lists, none for reads by id.
 */
export type CacheMode = 'on' | 'off';

export async function apiWorkloads(b: Bench, t: ApiTarget, only: (w: string) => boolean, cache: CacheMode = 'on'): Promise<void> {
  const auth = { authorization: `Bearer ${t.token}` };
  const base = t.server.base;
  const list50 = (body: any) => body?.data?.resOrganizations?.length === 50;
  const off = cache === 'off';
  const id = (w: string) => (off ? `${w}c` : w);
  const label = (l: string) => (off ? `${l}, cache off` : l);
  if (only('1')) {
    await run(b, t, id('1'), label('GraphQL list 50 orgs + country'), job(b, { name: `w${id('1')}`, base, method: 'POST', paths: ['/graphql'], headers: auth, bodies: [GQL_LIST_BODY] }), list50, { yoga: off ? 1.0 : 1.5 });
  }
  if (only('2')) {
    await run(b, t, id('2'), label('REST list 50 orgs'), job(b, { name: `w${id('2')}`, base, method: 'GET', paths: [REST_LIST], headers: auth }), (x) => x?.items?.length === 50, off ? { floor: 'http', min: 0.4 } : { floor: 'http', min: 0.2 });
  }
  if (only('3')) {
    const bodies = t.orgIds.map((i) => JSON.stringify({ query: GQL_READ, variables: { id: i } }));
    await run(b, t, id('3a'), label('GraphQL read 1 org by id'), job(b, { name: `w${id('3a')}`, base, method: 'POST', paths: ['/graphql'], headers: auth, bodies }), (x) => Boolean(x?.data?.resOrganization?.id));
    const paths = t.orgIds.map((i) => `/api/data/res.organization/${i}`);
    await run(b, t, id('3b'), label('REST read 1 org by id'), job(b, { name: `w${id('3b')}`, base, method: 'GET', paths, headers: auth }), (x) => Boolean(x?.id));
  }
  if (only('4') && !off) {
    const input = { name: 'Bench GQL {{n}}', country: t.countryId };
    const gql = JSON.stringify({ query: GQL_CREATE, variables: { input } });
    await run(b, t, '4a', 'GraphQL create 1 org', job(b, { name: 'w4a', base, method: 'POST', paths: ['/graphql'], headers: auth, bodyTemplate: gql }), (x) => Boolean(x?.data?.resOrganizationCreate?.id));
    const rest = JSON.stringify({ name: 'Bench REST {{n}}', country: t.countryId });
    await run(b, t, '4b', 'REST create 1 org', job(b, { name: 'w4b', base, method: 'POST', paths: ['/api/data/res.organization'], headers: auth, bodyTemplate: rest }), (x) => Boolean(x?.id));
  }
}

/** Workload 1's answer on the seeded server: the floors serve exactly these bytes. */
export async function fixtureOf(base: string, token: string): Promise<unknown> {
  const body = await ok<{ data: { resOrganizations: Array<{ country: unknown }> } }>(base, 'POST', '/graphql', { token, body: JSON.parse(GQL_LIST_BODY) });
  const orgs = body.data?.resOrganizations ?? [];
  if (orgs.length !== 50 || orgs.filter((o) => o.country).length < 49) throw new Error(`workload 1 answered ${orgs.length} organizations`);
  return body;
}
