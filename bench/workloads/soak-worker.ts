/**
 * Workload 11 (soak): the client side, its own process on the load core. Two roles (argv[2] is a
 * JSON spec):
 * - `mix`: opens the live subscriptions that stay open for the whole run (graphql-ws, GraphQL over
 *   SSE, the presentation event stream), then sends a paced mix of REST and GraphQL reads, writes
 *   (create, update, delete of organizations), storage uploads, downloads, updates and deletes,
 *   a few intended refusals (404 of a deleted record, 304 of a conditional download) and
 *   short-lived subscriptions, for `seconds`. Every answer is checked; every write is matched
 *   against the change events the subscriptions receive.
 * - `ping`: `GET /health` on one keep-alive connection, one request per `pingMs` (open loop),
 *   timed to the microsecond.
 * Both start at `startAt` (epoch ms). JSON lines on stdout: ready, start, progress, load-end, result.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export interface SoakSpec {
  role: 'mix' | 'ping';
  base: string;
  token: string;
  seconds: number;
  /** Epoch ms at which the load (and the ping) begins. */
  startAt: number;
  /** Operations per second the mix aims at (open loop, at most `concurrency` in flight). */
  rate: number;
  concurrency: number;
  /** Seeded organizations (read only; never written by the mix). */
  orgIds: string[];
  countryIds: string[];
  pingMs: number;
}

export interface KindStats { count: number; errors: number; p50: number; p99: number; max: number }
export interface StreamStats {
  name: string;
  /** What it should have received, what it did, and the difference both ways. */
  expected: number; received: number; missed: number; extra: number;
  failed: string | null;
}
export interface MixResult {
  seconds: number;
  targetRate: number;
  ops: number;
  /** Slots the scheduler dropped because it fell more than 1 s behind (the server or client could not keep up). */
  skipped: number;
  kinds: Record<string, KindStats>;
  errors: number;
  errorSamples: string[];
  errorsByKind: Record<string, Record<string, number>>;
  streams: StreamStats[];
  writes: { orgCreate: number; orgUpdate: number; orgDelete: number; slugChange: number; docUpload: number; docVersion: number; docUpdate: number; docDelete: number };
  churn: { ws: number; sse: number };
  /** CPU seconds this client process used (the load core's share of it). */
  cpuS: number;
  /** What the mix left: its organizations, its documents and their versions (one stored object each). */
  livePool: { orgs: number; docs: number; versions: number };
  bytes: { uploaded: number; downloaded: number };
}
export interface PingResult {
  /** One per ping: [start (epoch ms), latency ms, HTTP status or -1 for a failed request]. */
  pings: Array<[number, number, number]>;
  seconds: number;
  /** CPU seconds this client process used (it shares the load core with the mix). */
  cpuS: number;
}

const spec = JSON.parse(process.argv[2]!) as SoakSpec;
const baseUrl = new URL(spec.base);
if (baseUrl.hostname !== '127.0.0.1') throw new Error('only 127.0.0.1');
const emit = (o: object) => console.log(JSON.stringify(o));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
const quantile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p / 100 * sorted.length))] ?? NaN;
const auth = { authorization: `Bearer ${spec.token}` };

// a client whose orchestrator is gone stops at once
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(2); }, 1_000).unref();

// ------------------------------------------------------------------------------------------ ping
async function ping(): Promise<PingResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const pings: PingResult['pings'] = [];
  await sleep(spec.startAt - Date.now());
  const t0 = performance.now();
  const epoch0 = Date.now();
  for (let i = 0; ; i++) {
    const due = t0 + i * spec.pingMs;
    if (due - t0 >= spec.seconds * 1000) break;
    await sleep(due - performance.now());
    const t = performance.now();
    const status = await new Promise<number>((resolve) => {
      const req = http.request({ host: baseUrl.hostname, port: baseUrl.port, method: 'GET', path: '/health', agent, timeout: 5_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => resolve(-1));
      req.end();
    });
    pings.push([Math.round((epoch0 + (t - t0)) * 10) / 10, Math.round((performance.now() - t) * 1000) / 1000, status]);
  }
  agent.destroy();
  const cpu = process.cpuUsage();
  return { pings, seconds: (performance.now() - t0) / 1000, cpuS: (cpu.user + cpu.system) / 1e6 };
}

// ------------------------------------------------------------------------------------------- mix
const ORG_FIELDS = 'id revision name code country { code name }';
const GQL = {
  list: `query List($o: Int) { resOrganizations(limit: 20, offset: $o) { ${ORG_FIELDS} } }`,
  read: `query Read($id: ID!) { resOrganization(id: $id) { ${ORG_FIELDS} } }`,
  create: `mutation Create($input: ResOrganizationCreateInput!) { resOrganizationCreate(input: $input) { id revision } }`,
  update: `mutation Update($id: ID!, $input: ResOrganizationUpdateInput!, $rev: Int) { resOrganizationUpdate(id: $id, input: $input, revision: $rev) { id revision name } }`,
  delete: `mutation Delete($id: ID!) { resOrganizationDelete(id: $id) { id deleted } }`,
};

/** One live org or document the mix owns: written by one operation at a time. */
interface Owned { id: string; revision: number; busy: boolean; acked: number }
interface Doc extends Owned { size: number; sha256: string; checksum: string; versions: number }

const lat = new Map<string, number[]>();
const errCount = new Map<string, number>();
const errorsByKind: Record<string, Record<string, number>> = {};
const errorSamples: string[] = [];
let errors = 0;
const writes = { orgCreate: 0, orgUpdate: 0, orgDelete: 0, slugChange: 0, docUpload: 0, docVersion: 0, docUpdate: 0, docDelete: 0 };
const churn = { ws: 0, sse: 0 };
const bytes = { uploaded: 0, downloaded: 0 };
const orgs = new Map<string, Owned>();
const docs = new Map<string, Doc>();
const deletedOrgs: string[] = [];
let seq = 0;
const runTag = crypto.randomBytes(3).toString('hex');

class Failure extends Error {
  constructor(readonly label: string, message: string) { super(message); }
}
function fail(kind: string, label: string, detail: string): never {
  throw new Failure(label, `${kind}: ${label} ${detail}`.slice(0, 400));
}

function recordError(kind: string, label: string, message: string): void {
  errors++;
  errCount.set(kind, (errCount.get(kind) ?? 0) + 1);
  const by = (errorsByKind[kind] ??= {});
  by[label] = (by[label] ?? 0) + 1;
  if (errorSamples.length < 30) errorSamples.push(`${new Date().toISOString()} ${message}`);
}

interface Res { status: number; text: string; buf?: Buffer; headers: Headers }
async function send(kind: string, method: string, path: string, o: { json?: unknown; body?: Buffer; headers?: Record<string, string>; binary?: boolean } = {}): Promise<Res> {
  const headers: Record<string, string> = { ...auth, ...(o.headers ?? {}) };
  let body: BodyInit | undefined;
  if (o.json !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(o.json); }
  if (o.body) { headers['content-type'] = 'application/octet-stream'; body = o.body as unknown as BodyInit; }
  let res: Response;
  try {
    res = await fetch(new URL(path, spec.base), { method, headers, body, signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    fail(kind, 'network', `${method} ${path}: ${(err as Error).name}: ${(err as Error).message} ${String((err as { cause?: unknown }).cause ?? '')}`);
  }
  if (o.binary) {
    const buf = Buffer.from(await res.arrayBuffer());
    return { status: res.status, text: res.status >= 300 ? buf.toString('utf8', 0, 300) : '', buf, headers: res.headers };
  }
  return { status: res.status, text: await res.text(), headers: res.headers };
}

function expectStatus(kind: string, r: Res, want: number[]): void {
  if (!want.includes(r.status)) fail(kind, String(r.status), `answered ${r.status} (wanted ${want.join('/')}): ${r.text.slice(0, 240)}`);
}
function json<T = any>(kind: string, r: Res): T {
  try { return JSON.parse(r.text) as T; } catch { fail(kind, 'bad-json', `not JSON: ${r.text.slice(0, 200)}`); }
}
async function gql<T = any>(kind: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const r = await send(kind, 'POST', '/graphql', { json: { query, variables } });
  expectStatus(kind, r, [200]);
  const body = json<{ data?: T; errors?: Array<{ message: string; extensions?: { code?: string } }> }>(kind, r);
  if (body.errors?.length || !body.data) fail(kind, `gql:${body.errors?.[0]?.extensions?.code ?? 'no-data'}`, JSON.stringify(body.errors ?? body).slice(0, 240));
  return body.data;
}

const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
/** A random element of `m` matching `ok`, or null (sampling, then a scan). */
function pickFrom<T>(m: Map<string, T>, ok: (x: T) => boolean): T | null {
  const values = [...m.values()];
  for (let i = 0; i < 8 && values.length; i++) { const x = pick(values); if (ok(x)) return x; }
  return values.find(ok) ?? null;
}

// ---- the subscriptions that stay open, and what they should receive
type OpCounts = Map<string, number>;
const bump = (m: OpCounts, key: string) => m.set(key, (m.get(key) ?? 0) + 1);
/** Acknowledged writes: `op:id` → count, per model. */
const expectedOrg: OpCounts = new Map();
const expectedDoc: OpCounts = new Map();
/** Acknowledged slug changes: the new slugs (each should come back as one reload event). */
const expectedSlugs = new Set<string>();

interface Stream { name: string; kind: 'org' | 'doc' | 'reload'; got: OpCounts; failed: string | null; close(): void }
const streams: Stream[] = [];
const wsClients: Client[] = [];

function wsClient(name: string, onFail: (why: string) => void): Client {
  const c = createClient({
    url: `${spec.base.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${spec.token}` },
    retryAttempts: 0,
    lazy: false,
    keepAlive: 10_000,
    onNonLazyError: (e) => onFail(`${name}: connection error ${describe(e)}`),
  });
  c.on('closed', (e) => onFail(`${name}: socket closed ${describe(e)}`));
  return c;
}
const describe = (e: unknown) => (e && typeof e === 'object' && 'code' in e ? `${(e as CloseEvent).code} ${(e as CloseEvent).reason}` : e instanceof Error ? e.message : JSON.stringify(e));

function openWs(name: string, subs: Array<{ query: string; stream: Omit<Stream, 'got' | 'failed' | 'close'>; key: (data: any) => string | null }>): Promise<void> {
  let closing = false;
  const mine: Stream[] = subs.map((s) => ({ ...s.stream, got: new Map(), failed: null, close: () => { closing = true; } }));
  streams.push(...mine);
  const client = wsClient(name, (why) => { if (!closing) for (const s of mine) s.failed ??= why; });
  wsClients.push(client);
  subs.forEach((s, i) => {
    const st = mine[i]!;
    client.subscribe({ query: s.query }, {
      next: (v) => {
        if (v.errors?.length) { st.failed ??= `${st.name}: error payload ${JSON.stringify(v.errors).slice(0, 200)}`; return; }
        const k = s.key(v.data);
        if (k) bump(st.got, k);
      },
      error: (e) => { if (!closing) st.failed ??= `${st.name}: ${describe(e)}`; },
      complete: () => { if (!closing) st.failed ??= `${st.name}: completed by the server`; },
    });
  });
  // graphql-ws has no acknowledgement of a subscribe: the connection ack plus a moment (openStreams) is the best there is
  return new Promise<void>((resolve, reject) => {
    const off = client.on('connected', () => { off(); resolve(); });
    setTimeout(() => reject(new Error(`${name}: not connected after 15 s`)), 15_000).unref();
  });
}

/** `text/event-stream` blocks of a fetch response, until it ends. */
async function readBlocks(body: ReadableStream<Uint8Array>, onBlock: (block: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    for (let cut = buf.indexOf('\n\n'); cut >= 0; cut = buf.indexOf('\n\n')) {
      onBlock(buf.slice(0, cut));
      buf = buf.slice(cut + 2);
    }
  }
}

/** A long-lived SSE stream (GraphQL over SSE, or the presentation events); resolves once the headers are in. */
async function openSse(name: string, kind: Stream['kind'], req: { method: string; path: string; body?: unknown }, onEvent: (event: string, data: string, st: Stream) => void): Promise<void> {
  const ctrl = new AbortController();
  let closing = false;
  const st: Stream = { name, kind, got: new Map(), failed: null, close: () => { closing = true; ctrl.abort(); } };
  streams.push(st);
  const res = await fetch(new URL(req.path, spec.base), {
    method: req.method, signal: ctrl.signal,
    headers: { ...auth, accept: 'text/event-stream', ...(req.body ? { 'content-type': 'application/json' } : {}) },
    body: req.body ? JSON.stringify(req.body) : undefined,
  });
  if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(`${name}: ${res.status} ${res.headers.get('content-type')} ${(await res.text()).slice(0, 200)}`);
  }
  void readBlocks(res.body!, (block) => {
    const event = /^event: ?(.*)$/m.exec(block)?.[1] ?? '';
    const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
    if (event === 'complete' && !closing) st.failed ??= `${name}: completed by the server`;
    if (data) onEvent(event, data, st);
  }).then(
    () => { if (!closing) st.failed ??= `${name}: the stream ended`; },
    (err) => { if (!closing) st.failed ??= `${name}: ${(err as Error).message}`; },
  );
}

const orgKey = (c: { op: string; id: string } | undefined) => (c ? `${c.op}:${c.id}` : null);

async function openStreams(): Promise<void> {
  await openWs('ws 1', [
    { query: 'subscription { resOrganizationChanged { op id } }', stream: { name: 'ws resOrganizationChanged { op id }', kind: 'org' }, key: (d) => orgKey(d?.resOrganizationChanged) },
    { query: 'subscription { clientReload }', stream: { name: 'ws clientReload', kind: 'reload' }, key: (d) => d?.clientReload?.payload?.new_slug ?? null },
  ]);
  await openWs('ws 2', [
    { query: 'subscription { resOrganizationChanged { op id record { id name code } } }', stream: { name: 'ws resOrganizationChanged with record', kind: 'org' }, key: (d) => orgKey(d?.resOrganizationChanged) },
    { query: 'subscription { storageDocumentChanged { op id } }', stream: { name: 'ws storageDocumentChanged', kind: 'doc' }, key: (d) => orgKey(d?.storageDocumentChanged) },
  ]);
  await openSse('GraphQL over SSE resOrganizationChanged', 'org', { method: 'POST', path: '/graphql', body: { query: 'subscription { resOrganizationChanged { op id } }' } }, (event, data, st) => {
    if (event !== 'next') return;
    const v = JSON.parse(data) as { data?: any; errors?: unknown };
    if (v.errors) st.failed ??= `${st.name}: ${JSON.stringify(v.errors).slice(0, 200)}`;
    const k = orgKey(v.data?.resOrganizationChanged);
    if (k) bump(st.got, k);
  });
  await openSse('SSE /api/presentation/events', 'reload', { method: 'GET', path: '/api/presentation/events' }, (event, data, st) => {
    if (event !== 'web.client.reload') return;
    const slug = (JSON.parse(data) as { new_slug?: string }).new_slug;
    if (slug) bump(st.got, slug);
  });
  // the server subscribes to its pub/sub after the socket's subscribe message: give it a moment
  await sleep(1_000);
}

/** Every open org stream has seen every acknowledged create/update of `o` (so deleting it drops no event). */
function settled(o: Owned, kind: 'org' | 'doc'): boolean {
  for (const s of streams) {
    if (s.kind !== kind || s.failed) continue;
    const seen = (s.got.get(`create:${o.id}`) ?? 0) + (s.got.get(`update:${o.id}`) ?? 0);
    if (seen < o.acked) return false;
  }
  return true;
}

// ---- the operations
const uploads = [16 * 1024, 16 * 1024, 64 * 1024, 64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024];
const ORG_LOW = 40;
const ORG_HIGH = 120;
const DOC_LOW = 10;
const DOC_HIGH = 40;

/**
 * An operation; it names another kind instead when it has nothing to work on (that kind then runs
 * and is counted), or returns the milliseconds to record when not all of its time counts.
 */
type Op = () => Promise<void | string | number>;
const ops: Record<string, Op> = {
  'rest list': async () => {
    const r = await send('rest list', 'GET', `/api/data/res.organization?limit=20&offset=${Math.floor(Math.random() * 60)}`);
    expectStatus('rest list', r, [200]);
    if (!Array.isArray(json('rest list', r).items)) fail('rest list', 'shape', r.text.slice(0, 200));
  },
  'rest read': async () => {
    const id = pick(spec.orgIds);
    const r = await send('rest read', 'GET', `/api/data/res.organization/${id}`);
    expectStatus('rest read', r, [200]);
    if (json('rest read', r).id !== id) fail('rest read', 'shape', r.text.slice(0, 200));
  },
  'rest read deleted (404 intended)': async () => {
    const id = deletedOrgs.length ? pick(deletedOrgs) : crypto.randomUUID();
    expectStatus('rest read deleted (404 intended)', await send('rest read deleted (404 intended)', 'GET', `/api/data/res.organization/${id}`), [404]);
  },
  'gql list': async () => {
    const d = await gql('gql list', GQL.list, { o: Math.floor(Math.random() * 60) });
    if (!Array.isArray(d.resOrganizations)) fail('gql list', 'shape', JSON.stringify(d).slice(0, 200));
  },
  'gql read': async () => {
    const id = pick(spec.orgIds);
    const d = await gql('gql read', GQL.read, { id });
    if (d.resOrganization?.id !== id) fail('gql read', 'shape', JSON.stringify(d).slice(0, 200));
  },
  'rest create': () => createOrg('rest'),
  'gql create': () => createOrg('gql'),
  'rest update': () => updateOrg('rest', false),
  'gql update': () => updateOrg('gql', false),
  'rest slug change': () => updateOrg('rest', true),
  'rest delete': () => deleteOrg('rest'),
  'gql delete': () => deleteOrg('gql'),
  'upload': () => upload(),
  'download': () => download('full'),
  'download range': () => download('range'),
  'download 304 (intended)': () => download('304'),
  'doc new version': () => newVersion(),
  'doc update': () => updateDoc(),
  'doc delete': () => deleteDoc(),
  'doc list': async () => {
    const r = await send('doc list', 'GET', '/api/storage/documents?limit=20');
    expectStatus('doc list', r, [200]);
    if (!Array.isArray(json('doc list', r).items)) fail('doc list', 'shape', r.text.slice(0, 200));
  },
  'ws churn': () => wsChurn(),
  'sse churn': () => sseChurn(),
};

/** Weights of the mix (per 100 operations, roughly). */
const WEIGHTS: Record<string, number> = {
  'rest list': 12, 'rest read': 12, 'rest read deleted (404 intended)': 1, 'gql list': 10, 'gql read': 10,
  'rest create': 5, 'gql create': 4, 'rest update': 6, 'gql update': 4, 'rest slug change': 1, 'rest delete': 5, 'gql delete': 4,
  'upload': 5, 'download': 8, 'download range': 2, 'download 304 (intended)': 1, 'doc new version': 2, 'doc update': 2, 'doc delete': 5, 'doc list': 2,
  'ws churn': 0.5, 'sse churn': 0.5,
};
const kinds = Object.keys(WEIGHTS);
const totalWeight = kinds.reduce((a, k) => a + WEIGHTS[k]!, 0);
function chooseKind(): string {
  let x = Math.random() * totalWeight;
  for (const k of kinds) { x -= WEIGHTS[k]!; if (x < 0) return k; }
  return kinds[0]!;
}
/** Keeps the owned populations between their bounds: a create over the bound deletes instead, and so on. */
function adjust(kind: string): string {
  if (kind.endsWith(' create') && orgs.size >= ORG_HIGH) return kind.replace('create', 'delete');
  if (kind.endsWith(' delete') && !kind.startsWith('doc') && orgs.size <= ORG_LOW) return kind.replace('delete', 'create');
  if ((kind.endsWith(' update') || kind.endsWith('slug change')) && kind !== 'doc update' && !orgs.size) return 'rest create';
  if (kind === 'upload' && docs.size >= DOC_HIGH) return 'doc delete';
  if (kind === 'doc delete' && docs.size <= DOC_LOW) return 'upload';
  if ((kind.startsWith('download') || kind === 'doc update' || kind === 'doc new version') && !docs.size) return 'upload';
  return kind;
}

async function createOrg(via: 'rest' | 'gql'): Promise<void> {
  const kind = `${via} create`;
  const n = ++seq;
  const values = { name: `Soak ${runTag} ${n}`, country: pick(spec.countryIds) };
  let rec: { id: string; revision: number };
  if (via === 'rest') {
    const r = await send(kind, 'POST', '/api/data/res.organization', { json: values });
    expectStatus(kind, r, [201]);
    rec = json(kind, r);
  } else {
    rec = (await gql(kind, GQL.create, { input: values })).resOrganizationCreate;
  }
  if (!rec?.id || typeof rec.revision !== 'number') fail(kind, 'shape', JSON.stringify(rec).slice(0, 200));
  writes.orgCreate++;
  bump(expectedOrg, `create:${rec.id}`);
  orgs.set(rec.id, { id: rec.id, revision: rec.revision, busy: false, acked: 1 });
}

async function updateOrg(via: 'rest' | 'gql', slug: boolean): Promise<void | string> {
  const kind = slug ? 'rest slug change' : `${via} update`;
  const o = pickFrom(orgs, (x) => !x.busy);
  if (!o) return `${via} create`;
  o.busy = true;
  try {
    const n = ++seq;
    const values: Record<string, unknown> = slug ? { code: `soak-${runTag}-${n}` } : { name: `Soak ${runTag} ${n} renamed` };
    let rec: { id: string; revision: number };
    if (via === 'rest') {
      const r = await send(kind, 'PATCH', `/api/data/res.organization/${o.id}`, { json: { ...values, revision: o.revision } });
      expectStatus(kind, r, [200]);
      rec = json(kind, r);
    } else {
      rec = (await gql(kind, GQL.update, { id: o.id, input: values, rev: o.revision })).resOrganizationUpdate;
    }
    if (rec?.id !== o.id || rec.revision !== o.revision + 1) fail(kind, 'revision', `expected revision ${o.revision + 1}: ${JSON.stringify(rec).slice(0, 200)}`);
    o.revision = rec.revision;
    o.acked++;
    writes.orgUpdate++;
    bump(expectedOrg, `update:${o.id}`);
    if (slug) { writes.slugChange++; expectedSlugs.add(String(values.code)); }
  } finally {
    o.busy = false;
  }
}

async function deleteOrg(via: 'rest' | 'gql'): Promise<void | string> {
  const kind = `${via} delete`;
  // only once every stream has seen its writes: a change event whose record is gone before the
  // server reads it for the subscriber is dropped by design (the subscriber may no longer read it)
  const o = pickFrom(orgs, (x) => !x.busy && settled(x, 'org'));
  if (!o) return `${via} update`;
  o.busy = true;
  orgs.delete(o.id);
  if (via === 'rest') {
    const r = await send(kind, 'DELETE', `/api/data/res.organization/${o.id}`);
    expectStatus(kind, r, [200, 204]);
  } else {
    const d = await gql(kind, GQL.delete, { id: o.id });
    if (!d.resOrganizationDelete?.deleted) fail(kind, 'shape', JSON.stringify(d).slice(0, 200));
  }
  writes.orgDelete++;
  bump(expectedOrg, `delete:${o.id}`);
  deletedOrgs.push(o.id);
  if (deletedOrgs.length > 200) deletedOrgs.shift();
}

async function upload(): Promise<void> {
  const size = pick(uploads);
  const body = crypto.randomBytes(size);
  const sha256 = crypto.createHash('sha256').update(body).digest('hex');
  const n = ++seq;
  const r = await send('upload', 'POST', `/api/storage/documents?filename=${encodeURIComponent(`soak-${runTag}-${n}.bin`)}`, { body });
  expectStatus('upload', r, [201]);
  const doc = json<{ id: string; revision: number; file_size: number; checksum: string }>('upload', r);
  if (doc.file_size !== size || doc.checksum !== sha256) fail('upload', 'checksum', `size ${doc.file_size}/${size}, checksum ${doc.checksum} vs ${sha256}`);
  writes.docUpload++;
  bytes.uploaded += size;
  bump(expectedDoc, `create:${doc.id}`);
  docs.set(doc.id, { id: doc.id, revision: doc.revision, busy: false, acked: 1, size, sha256, checksum: doc.checksum, versions: 1 });
}

/** A new version of a document: its content, size and checksum change. */
async function newVersion(): Promise<void | string> {
  const kind = 'doc new version';
  const d = pickFrom(docs, (x) => !x.busy);
  if (!d) return 'upload';
  d.busy = true;
  try {
    const size = pick(uploads);
    const body = crypto.randomBytes(size);
    const sha256 = crypto.createHash('sha256').update(body).digest('hex');
    const r = await send(kind, 'POST', `/api/storage/documents/${d.id}/versions?change_note=soak`, { body });
    expectStatus(kind, r, [201]);
    const doc = json<{ id: string; revision: number; file_size: number; checksum: string; current_version: number }>(kind, r);
    if (doc.file_size !== size || doc.checksum !== sha256) fail(kind, 'checksum', `size ${doc.file_size}/${size}, checksum ${doc.checksum} vs ${sha256}`);
    if (doc.revision !== d.revision + 1 || doc.current_version !== d.versions + 1) fail(kind, 'revision', `revision ${doc.revision} (wanted ${d.revision + 1}), version ${doc.current_version} (wanted ${d.versions + 1})`);
    Object.assign(d, { revision: doc.revision, size, sha256, checksum: doc.checksum, versions: d.versions + 1 });
    d.acked++;
    writes.docVersion++;
    bytes.uploaded += size;
    bump(expectedDoc, `update:${d.id}`);
  } finally {
    d.busy = false;
  }
}

async function download(mode: 'full' | 'range' | '304'): Promise<void | string> {
  const kind = mode === 'full' ? 'download' : mode === 'range' ? 'download range' : 'download 304 (intended)';
  const d = pickFrom(docs, (x) => !x.busy);
  if (!d) return 'upload';
  // a download may run beside an update of the same document (reads do not hold it), not beside its delete
  d.busy = true;
  try {
    const headers: Record<string, string> = mode === 'range' ? { range: 'bytes=0-1023' } : mode === '304' ? { 'if-none-match': `"${d.checksum}"` } : {};
    const r = await send(kind, 'GET', `/api/storage/documents/${d.id}/download`, { headers, binary: true });
    if (mode === '304') return expectStatus(kind, r, [304]);
    expectStatus(kind, r, [mode === 'range' ? 206 : 200]);
    const want = mode === 'range' ? Math.min(1024, d.size) : d.size;
    if (r.buf!.length !== want) fail(kind, 'length', `${r.buf!.length} of ${want} bytes`);
    if (mode === 'full' && crypto.createHash('sha256').update(r.buf!).digest('hex') !== d.sha256) fail(kind, 'checksum', 'content differs from the upload');
    bytes.downloaded += r.buf!.length;
  } finally {
    d.busy = false;
  }
}

async function updateDoc(): Promise<void | string> {
  const d = pickFrom(docs, (x) => !x.busy);
  if (!d) return 'upload';
  d.busy = true;
  try {
    const r = await send('doc update', 'PUT', `/api/storage/documents/${d.id}`, { json: { description: `soak ${++seq}`, revision: d.revision } });
    expectStatus('doc update', r, [200]);
    const rec = json<{ revision: number }>('doc update', r);
    if (rec.revision !== d.revision + 1) fail('doc update', 'revision', `expected ${d.revision + 1}, got ${rec.revision}`);
    d.revision = rec.revision;
    d.acked++;
    writes.docUpdate++;
    bump(expectedDoc, `update:${d.id}`);
  } finally {
    d.busy = false;
  }
}

async function deleteDoc(): Promise<void | string> {
  const d = pickFrom(docs, (x) => !x.busy && settled(x, 'doc'));
  if (!d) return 'download';
  d.busy = true;
  docs.delete(d.id);
  const r = await send('doc delete', 'DELETE', `/api/storage/documents/${d.id}`);
  expectStatus('doc delete', r, [200, 204]);
  writes.docDelete++;
  bump(expectedDoc, `delete:${d.id}`);
}

/** A subscription that lives for a moment: connect, subscribe, unsubscribe, close. */
async function wsChurn(): Promise<number> {
  let failed: string | null = null;
  const t = performance.now();
  const c = createClient({
    url: `${spec.base.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${spec.token}` }, retryAttempts: 0, lazy: true,
  });
  try {
    const connected = new Promise<void>((resolve, reject) => {
      c.on('connected', () => resolve());
      c.on('closed', (e) => reject(new Error(`closed ${describe(e)}`)));
      c.on('error', (e) => reject(new Error(`error ${describe(e)}`)));
    });
    const stop = c.subscribe({ query: 'subscription { resOrganizationChanged { op id } }' }, {
      next: () => undefined, error: (e) => { failed = describe(e); }, complete: () => undefined,
    });
    await Promise.race([connected, sleep(10_000).then(() => { throw new Error('not connected within 10 s'); })]);
    const ms = performance.now() - t;
    await sleep(500 + Math.random() * 1500);
    stop();
    if (failed) fail('ws churn', 'subscription', failed);
    churn.ws++;
    return ms;
  } catch (err) {
    if (err instanceof Failure) throw err;
    fail('ws churn', 'connect', (err as Error).message);
  } finally {
    await c.dispose();
  }
}

async function sseChurn(): Promise<number> {
  const ctrl = new AbortController();
  const t = performance.now();
  try {
    const res = await fetch(new URL('/api/presentation/events', spec.base), { headers: auth, signal: ctrl.signal });
    if (res.status !== 200) fail('sse churn', String(res.status), (await res.text()).slice(0, 200));
    const reader = res.body!.getReader();
    const first = await Promise.race([reader.read(), sleep(10_000).then(() => null)]);
    if (!first || first.done || !new TextDecoder().decode(first.value).includes(': connected')) fail('sse churn', 'no-hello', 'no ": connected" line within 10 s');
    const ms = performance.now() - t;
    await sleep(200 + Math.random() * 800);
    churn.sse++;
    return ms;
  } catch (err) {
    if (err instanceof Failure) throw err;
    fail('sse churn', 'network', (err as Error).message);
  } finally {
    ctrl.abort();
  }
}

async function runOp(first: string): Promise<void> {
  let kind = first;
  let t = performance.now();
  try {
    let out = await ops[kind]!();
    for (let hops = 0; typeof out === 'string' && hops < 3; hops++) {
      kind = out;
      t = performance.now();
      out = await ops[kind]!();
    }
    let xs = lat.get(kind);
    if (!xs) lat.set(kind, (xs = []));
    xs.push(typeof out === 'number' ? out : performance.now() - t);
  } catch (err) {
    if (err instanceof Failure) recordError(kind, err.label, err.message);
    else recordError(kind, 'exception', `${kind}: ${(err as Error).stack?.split('\n').slice(0, 3).join(' | ') ?? String(err)}`);
  }
}

function accountStreams(): StreamStats[] {
  return streams.map((s) => {
    let expected = 0;
    let missed = 0;
    let extra = 0;
    let received = 0;
    if (s.kind === 'reload') {
      expected = expectedSlugs.size;
      for (const slug of expectedSlugs) if (!s.got.has(slug)) missed++;
      for (const [slug, n] of s.got) { received += n; extra += expectedSlugs.has(slug) ? n - 1 : n; }
    } else {
      const want = s.kind === 'org' ? expectedOrg : expectedDoc;
      for (const [k, n] of want) { expected += n; missed += Math.max(0, n - (s.got.get(k) ?? 0)); }
      for (const [k, n] of s.got) { received += n; extra += Math.max(0, n - (want.get(k) ?? 0)); }
    }
    return { name: s.name, expected, received, missed, extra, failed: s.failed };
  });
}

async function mix(): Promise<MixResult> {
  await openStreams();
  emit({ event: 'ready' });
  await sleep(spec.startAt - Date.now());
  emit({ event: 'start', at: Date.now() });
  const t0 = performance.now();
  const end = t0 + spec.seconds * 1000;
  const interval = 1000 / spec.rate;
  const inflight = new Set<Promise<void>>();
  let next = t0;
  let started = 0;
  let skipped = 0;
  let lastProgress = t0;
  while (true) {
    next += interval;
    let now = performance.now();
    if (next >= end) break;
    if (next > now) { await sleep(next - now); now = performance.now(); }
    else if (now - next > 1000) { const behind = Math.floor((now - next) / interval); skipped += behind; next += behind * interval; }
    while (inflight.size >= spec.concurrency) await Promise.race(inflight);
    const p = runOp(adjust(chooseKind())).finally(() => inflight.delete(p));
    inflight.add(p);
    started++;
    if (now - lastProgress >= 10_000) {
      lastProgress = now;
      emit({ event: 'progress', t: Math.round((now - t0) / 1000), ops: started, errors, inflight: inflight.size, orgs: orgs.size, docs: docs.size });
    }
  }
  await Promise.all(inflight);
  const seconds = (performance.now() - t0) / 1000;
  emit({ event: 'load-end', at: Date.now() });
  // events still on their way (reloads go through the outbox and the event worker): up to 20 s
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && accountStreams().some((s) => !s.failed && s.missed > 0)) await sleep(250);
  const streamStats = accountStreams();
  for (const s of streams) s.close();
  await Promise.all(wsClients.map((c) => c.dispose()));

  const kindStats: Record<string, KindStats> = {};
  // every request's latency (the churn kinds count their connect time)
  const everything = [...lat.values()].flat().sort((a, b) => a - b);
  kindStats.all = { count: everything.length + errors, errors, p50: quantile(everything, 50), p99: quantile(everything, 99), max: everything.at(-1) ?? NaN };
  for (const k of kinds) {
    const xs = (lat.get(k) ?? []).sort((a, b) => a - b);
    const e = errCount.get(k) ?? 0;
    if (!xs.length && !e) continue;
    kindStats[k] = { count: xs.length + e, errors: e, p50: quantile(xs, 50), p99: quantile(xs, 99), max: xs.at(-1) ?? NaN };
  }
  return {
    seconds, targetRate: spec.rate, ops: started, skipped, kinds: kindStats, errors, errorSamples, errorsByKind,
    streams: streamStats, writes, churn, cpuS: (process.cpuUsage().user + process.cpuUsage().system) / 1e6, livePool: { orgs: orgs.size, docs: docs.size, versions: [...docs.values()].reduce((a, d) => a + d.versions, 0) }, bytes,
  };
}

const result = spec.role === 'ping' ? await ping() : await mix();
emit({ event: 'result', result });
process.exit(0);
