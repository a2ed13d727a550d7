/**
 * Runs the fuzzer: batches of fast-check runs (seed + batch index, so any batch replays alone),
 * one request per run, the rules below checked on every response; between batches the server is
 * pinged, the tenant list and the data invariants (integrity.ts) are checked and the fixtures are
 * repaired (the fuzzer may log its own tokens out or deactivate its users).
 *
 * Rules (named in failures and in tests/fuzz/regressions.test.ts):
 * - `no-5xx`: no response has a status of 500 or more.
 * - `no-internal-error`: no body carries the code INTERNAL_ERROR (GraphQL can answer 200 with one).
 * - `answers`: every request is answered (within 20 s) unless it may open a stream (SSE, subscriptions).
 * - `refusal-changes-nothing`: a refused request (status ≥ 400; for GraphQL, errors and no data)
 *   commits no row change in the fuzz tenant (counted by triggers, harness.ts).
 * - `tenant-isolation`: a request made with the other tenant's token changes nothing in the fuzz tenant.
 * - `bad-token-refused`: a garbage, expired, unsigned, wrongly signed or tampered token, or one of an
 *   unknown session, is refused by every route that is not public (401; never a 2xx/3xx).
 * - `error-envelope`: a REST refusal answers `{ "error": { "code", "message" } }`, a GraphQL one `{ "errors": [...] }`.
 * - `write-consistent`: a successful REST create/update/delete reads back as such (and an uploaded
 *   document downloads with its size); between batches, the data invariants hold.
 * - `alive`: between batches /health, /api/base/ping and `{ __typename }` answer.
 * - `no-tenant-created`: the fuzzer's requests never create a tenant.
 */
import crypto from 'node:crypto';
import fc from 'fast-check';
import { FUZZ_TENANT, type FuzzHarness, type FuzzRequest, type FuzzResponse } from './harness.ts';
import { gqlFieldArb, oddGqlArb } from './gql.ts';
import { integrityProblems, storageProblems } from './integrity.ts';
import { KNOWN_OPEN, knownOpen } from './known-open.ts';
import { materialize, oddPathArb, restArb, type AbstractRequest } from './requests.ts';
import type { FuzzSpec } from './spec.ts';
import { safeDecode } from './values.ts';

export interface Failure {
  rule: string;
  message: string;
  request?: FuzzRequest;
  response?: { status: number; body: string };
  seed: number;
  batch: number;
}

export interface RunStats {
  seed: number;
  sent: number;
  /** Of `sent`: runs spent shrinking a failure. */
  shrinkRuns: number;
  byClass: Record<string, number>;
  byCode: Record<string, number>;
  serverErrors: number;
  targetsHit: Set<string>;
  /** Targets that answered at least once with a success (2xx, and for GraphQL data without errors). */
  targetsOk: Set<string>;
  targetsTotal: number;
  restTotal: number;
  gqlTotal: number;
  checks: number;
  batches: number;
  elapsedMs: number;
  failures: Failure[];
  /** Failures matching a known open bug (known-open.ts), by id. */
  knownOpen: Record<string, number>;
  /** Of `serverErrors`: those matching a known open bug. */
  knownServerErrors: number;
}

export interface RunOptions {
  count: number;
  seed: number;
  batchSize?: number;
  /** Stop after this many failures (each batch ends at its first, shrunk). */
  maxFailures?: number;
  /** Requests spent shrinking one failure. */
  shrinkBudget?: number;
  log?: (msg: string) => void;
}

const STORAGE_TABLES = ['storage_document', 'storage_document_version', 'storage_folder'];

/** Credentials no session can have: garbage, expired, unsigned, signed with another key or algorithm, tampered, an unknown session. */
const BAD_CREDENTIALS = new Set(['garbage', 'forged:expired', 'forged:alg-none', 'forged:wrong-key', 'forged:hs512', 'forged:tampered', 'forged:claim:sid']);

/** Refused: an error status, or a GraphQL answer with errors and nothing in `data`. null: cannot tell (a stream). */
function refused(req: FuzzRequest, res: FuzzResponse): boolean | null {
  if (res.timedOut) return null;
  if (res.status >= 400) return true;
  if (!req.url.startsWith('/graphql')) return false;
  if (res.json === undefined) return res.body.startsWith('data:') || res.body.includes('\ndata:') ? null : false;
  const answers = Array.isArray(res.json) ? res.json : [res.json];
  return answers.every((a: { errors?: unknown[]; data?: Record<string, unknown> | null }) =>
    a && Array.isArray(a.errors) && a.errors.length > 0 && (a.data == null || Object.values(a.data).every((v) => v === null)));
}

function internalError(json: unknown): boolean {
  if (!json || typeof json !== 'object') return false;
  if (Array.isArray(json)) return json.some(internalError);
  const j = json as { error?: { code?: string }; errors?: Array<{ extensions?: { code?: string } }> };
  return j.error?.code === 'INTERNAL_ERROR' || (Array.isArray(j.errors) && j.errors.some((e) => e?.extensions?.code === 'INTERNAL_ERROR'));
}

/** Row changes a refusal may make: a replayed refresh token revokes its login (docs/security.md, reuse detection). */
function allowedOnRefusal(req: FuzzRequest): Set<string> {
  const refresh = req.url.startsWith('/api/auth/refresh') || req.url.startsWith('/api/command/auth.refresh')
    || (req.url.startsWith('/graphql') && /\brefresh\b|auth\.refresh/.test(typeof req.body === 'string' ? req.body : req.body?.toString('latin1') ?? '') )
    || (req.url.startsWith('/graphql') && /refresh/.test(safeDecode(req.url)));
  return new Set(refresh ? ['ir_session'] : []);
}

const diff = (a: Record<string, number>, b: Record<string, number>): string[] =>
  [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => (a[k] ?? 0) !== (b[k] ?? 0)).sort();

const statusClass = (res: FuzzResponse) => (res.timedOut ? 'stream/timeout' : `${Math.floor(res.status / 100)}xx`);

function codeOf(res: FuzzResponse): string | null {
  const j = res.json as { error?: { code?: string }; errors?: Array<{ extensions?: { code?: string } }> } | undefined;
  return j?.error?.code ?? j?.errors?.[0]?.extensions?.code ?? null;
}

/** The master arbitrary: every REST operation and every GraphQL root field, plus odd paths and documents. */
export function requestArb(spec: FuzzSpec): fc.Arbitrary<AbstractRequest> {
  const rest = spec.rest.map((op) => restArb(op, spec));
  const gql = spec.gqlRoots.map((r) => gqlFieldArb(r, spec));
  return fc.oneof(
    { weight: 50, arbitrary: fc.oneof(...rest) },
    { weight: 40, arbitrary: fc.oneof(...gql) },
    { weight: 4, arbitrary: oddPathArb(spec) },
    { weight: 6, arbitrary: oddGqlArb(spec, spec.gql) },
  );
}

/** Extra reads after a successful REST write, as the same caller: the write must read back. */
async function readBack(h: FuzzHarness, req: FuzzRequest, res: FuzzResponse): Promise<string | null> {
  if (res.status >= 300 || !['admin', 'userA', 'userB', 'foreign'].includes(req.auth)) return null;
  const path = req.url.split('?')[0];
  const auth = { authorization: req.headers.authorization ?? '' };
  const get = (url: string) => h.send({ target: 'read-back', method: 'GET', url, headers: auth, auth: req.auth });
  const body = res.json as { id?: string; revision?: number; file_size?: number; checksum?: string } | undefined;
  const data = /^\/api\/data\/([^/]+)(?:\/([^/]+))?$/.exec(path);
  const method = req.method.toUpperCase();
  if (data && method === 'POST' && !data[2] && res.status === 201 && body?.id) {
    const back = await get(`/api/data/${data[1]}/${body.id}`);
    if (back.status !== 200 || (back.json as { id?: string })?.id !== body.id) return `created ${data[1]} ${body.id} (201) but reading it back answered ${back.status}`;
  }
  if (data && data[2] && (method === 'PATCH' || method === 'PUT') && body?.id && typeof body.revision === 'number') {
    const back = await get(`/api/data/${data[1]}/${body.id}`);
    const rev = (back.json as { revision?: number })?.revision;
    if (back.status !== 200 || rev !== body.revision) return `updated ${data[1]} ${body.id} to revision ${body.revision} but reading it back answered ${back.status} revision ${rev}`;
  }
  if (data && data[2] && method === 'DELETE' && (res.json as { deleted?: boolean })?.deleted === true) {
    const id = (res.json as { id: string }).id;
    const back = await get(`/api/data/${data[1]}/${id}`);
    if (back.status !== 404) return `deleted ${data[1]} ${id} but reading it back answered ${back.status}`;
  }
  if (/^\/api\/storage\/(documents|upload)$/.test(path) && method === 'POST' && res.status === 201 && body?.id) {
    const back = await get(`/api/storage/documents/${body.id}/download`);
    const bytes = back.raw ?? Buffer.alloc(0);
    const sha = crypto.createHash('sha256').update(bytes).digest('hex');
    if (back.status !== 200 || bytes.length !== body.file_size || (body.checksum && sha !== body.checksum)) {
      return `uploaded document ${body.id} (${body.file_size} bytes, sha256 ${body.checksum}) but downloading it answered ${back.status} with ${bytes.length} bytes, sha256 ${sha}`;
    }
  }
  return null;
}

/** What the run remembers across requests: problems already reported, the last requests (for problems found late). */
export interface JudgeMemory { reportedFiles: Set<string>; recent: string[] }

export const newMemory = (): JudgeMemory => ({ reportedFiles: new Set(), recent: [] });

/** The rules of one request; the first one broken, or null. */
export async function judge(h: FuzzHarness, req: FuzzRequest, res: FuzzResponse, before: Record<string, number>, after: Record<string, number>, memory: JudgeMemory = newMemory()): Promise<{ rule: string; message: string } | null> {
  memory.recent = [...memory.recent.slice(-5), `${req.method} ${req.url.slice(0, 160)} (${req.target}, ${req.auth}) → ${res.timedOut ? 'stream' : res.status}`];
  if (res.timedOut && !req.mayStream) return { rule: 'answers', message: 'no answer within 20 s' };
  if (res.status >= 500) return { rule: 'no-5xx', message: `answered ${res.status}` };
  if (internalError(res.json)) return { rule: 'no-internal-error', message: `answered ${res.status} with code INTERNAL_ERROR` };
  // a bearer token that cannot be valid never gets anything but a refusal from a route that reads
  // it (another scheme, or `Bearer` with nothing after it, is no token: /graphql serves such
  // requests anonymously, and anonymous requests may log in)
  const sentToken = /^Bearer\s+\S+\s*$/i.test(req.headers.authorization ?? '');
  if (BAD_CREDENTIALS.has(req.auth) && sentToken && req.routeAuth && req.routeAuth !== 'public' && refused(req, res) === false) {
    return { rule: 'bad-token-refused', message: `a request with a ${req.auth} bearer token answered ${res.status} without refusing it` };
  }
  const changed = diff(before, after);
  // (a public route does not read the token: a refresh token of this tenant sent along may change it)
  if (req.auth === 'foreign' && req.routeAuth !== 'public' && changed.length) return { rule: 'tenant-isolation', message: `a request with the other tenant's token changed ${changed.join(', ')} in the fuzz tenant` };
  const isRefused = refused(req, res);
  if (isRefused) {
    const allowed = allowedOnRefusal(req);
    const bad = changed.filter((t) => !allowed.has(t));
    if (bad.length) return { rule: 'refusal-changes-nothing', message: `refused with ${res.status} ${codeOf(res) ?? ''} but changed ${bad.join(', ')}` };
    const isGraphql = req.url.startsWith('/graphql');
    const jsonType = String(res.headers['content-type'] ?? '').includes('json');
    if (res.status >= 400 && req.method.toUpperCase() !== 'HEAD' && jsonType) {
      const j = res.json as { error?: { code?: unknown; message?: unknown }; errors?: unknown } | undefined;
      const ok = isGraphql
        ? Array.isArray(j?.errors) || typeof j?.error?.code === 'string'
        : typeof j?.error?.code === 'string' && typeof j?.error?.message === 'string';
      if (!ok) return { rule: 'error-envelope', message: `refused with ${res.status} without the error envelope` };
    }
  }
  if (isRefused === false) {
    const problem = await readBack(h, req, res);
    if (problem) return { rule: 'write-consistent', message: problem };
  }
  // stored files and their rows agree after anything that may store or delete a file
  if (/storage|upload|document|folder|organization|command/i.test(`${req.target} ${req.url}`) || STORAGE_TABLES.some((t) => changed.includes(t))) {
    const fresh = async () => (await storageProblems(h)).filter((p) => !memory.reportedFiles.has(p));
    let files = await fresh();
    // objects of a deleted document are removed after the commit, maybe after the answer: give them a moment
    for (let i = 0; files.length && i < 5; i++) {
      await new Promise((r) => setTimeout(r, 40));
      files = await fresh();
    }
    if (files.length) {
      for (const f of files) memory.reportedFiles.add(f);
      return { rule: 'write-consistent', message: `after this request (answered ${res.timedOut ? 'a stream' : res.status}): ${files.join('; ')}; the last requests were:\n  ${memory.recent.join('\n  ')}` };
    }
  }
  return null;
}

export function formatRequest(req: FuzzRequest): string {
  const body = req.body === undefined ? undefined
    : typeof req.body === 'string' ? (req.body.length > 2000 ? `${req.body.slice(0, 2000)}… (${req.body.length} chars)` : req.body)
      : `base64:${req.body.toString('base64').slice(0, 2000)}${req.body.length > 1500 ? `… (${req.body.length} bytes)` : ''}`;
  const url = req.url.length > 2000 ? `${req.url.slice(0, 2000)}… (${req.url.length} chars)` : req.url;
  return JSON.stringify({ target: req.target, auth: req.auth, method: req.method, url, headers: req.headers, body, ...(req.remoteAddress ? { remoteAddress: req.remoteAddress } : {}) }, null, 2);
}

export function formatFailure(f: Failure): string {
  return [
    `rule ${f.rule}: ${f.message}  (batch ${f.batch}, fast-check seed ${f.seed})`,
    ...(f.request ? [`request: ${formatRequest(f.request)}`] : []),
    ...(f.response ? [`response: ${f.response.status} ${f.response.body.slice(0, 600)}`] : []),
  ].join('\n');
}

/** The fast-check seed of a batch: mixed from the run's seed, so neighbouring run seeds share no batch. */
export function batchSeedOf(seed: number, batch: number): number {
  let x = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(batch + 1, 0xc2b2ae35)) | 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  return x | 0;
}

export async function runFuzz(h: FuzzHarness, spec: FuzzSpec, opts: RunOptions): Promise<RunStats> {
  const started = performance.now();
  const batchSize = opts.batchSize ?? 100;
  const shrinkBudget = opts.shrinkBudget ?? 120;
  const log = opts.log ?? (() => {});
  const stats: RunStats = {
    seed: opts.seed, sent: 0, shrinkRuns: 0, byClass: {}, byCode: {}, serverErrors: 0, targetsHit: new Set(), targetsOk: new Set(), checks: 0, batches: 0, elapsedMs: 0, failures: [], knownOpen: {}, knownServerErrors: 0,
    targetsTotal: spec.rest.length + spec.gqlRoots.length, restTotal: spec.rest.length, gqlTotal: spec.gqlRoots.length,
  };
  const tenantsAtStart = (await h.tenants()).join(',');
  const arb = requestArb(spec);
  const memory = newMemory();
  let generated = 0;

  for (let batch = 0; generated < opts.count; batch++) {
    const runs = Math.min(batchSize, opts.count - generated);
    const batchSeed = batchSeedOf(opts.seed, batch);
    let failed: (Failure & { runs: number }) | null = null;
    let afterFailure = 0;
    const prop = fc.asyncProperty(arb, async (abstract) => {
      if (failed && ++afterFailure > shrinkBudget) return true; // shrinking budget spent: keep the smallest so far
      const req = await materialize(abstract, h.fixtures, spec);
      const before = await h.probe.changes();
      let res: FuzzResponse;
      try {
        // an open stream (SSE, a subscription) is an answer: cut it short
        res = await h.send(req, req.mayStream ? 400 : 20_000);
      } catch (err) {
        // inject rejects when the server throws instead of answering
        failed = { rule: 'answers', message: `the server threw instead of answering: ${(err as Error)?.stack ?? err}`, request: req, seed: batchSeed, batch, runs: 0 };
        return false;
      }
      const after = await h.probe.changes();
      stats.sent++;
      if (failed) {
        // a rerun while shrinking a failure: not part of the figures
        stats.shrinkRuns++;
      } else {
        generated++;
        stats.byClass[statusClass(res)] = (stats.byClass[statusClass(res)] ?? 0) + 1;
        const code = codeOf(res);
        if (code) stats.byCode[`${res.status} ${code}`] = (stats.byCode[`${res.status} ${code}`] ?? 0) + 1;
        if (res.status >= 500) stats.serverErrors++;
        if (!res.timedOut) stats.targetsHit.add(req.target);
        const j = res.json as { errors?: unknown } | undefined;
        if (res.status >= 200 && res.status < 300 && !(req.url.startsWith('/graphql') && (!j || j.errors))) stats.targetsOk.add(req.target);
      }
      const problem = await judge(h, req, res, before, after, memory);
      if (!problem) return true;
      const known = knownOpen(req, res, problem.rule, problem.message);
      if (known && !failed) {
        // reported elsewhere (known-open.ts): counted apart, the run goes on
        stats.knownOpen[known.id] = (stats.knownOpen[known.id] ?? 0) + 1;
        if (res.status >= 500) stats.knownServerErrors++;
        return true;
      }
      failed = { ...problem, request: req, response: { status: res.status, body: res.body }, seed: batchSeed, batch, runs: 0 };
      return false;
    });
    const result = await fc.check(prop, { seed: batchSeed, numRuns: runs, verbose: 0 });
    stats.batches++;
    if (result.failed) {
      const f: Failure = failed ?? { rule: 'harness', message: String((result.errorInstance as Error)?.stack ?? result.errorInstance ?? 'failed'), seed: batchSeed, batch };
      stats.failures.push(f);
      log(`FAILURE ${formatFailure(f)}`);
      if (opts.maxFailures !== undefined && stats.failures.length >= opts.maxFailures) break;
    }

    // between batches: alive, no tenant created, data invariants, fixtures repaired
    stats.checks++;
    try {
      const down = await h.ping();
      if (down) {
        stats.failures.push({ rule: 'alive', message: down, seed: batchSeed, batch });
        break;
      }
      const tenants = (await h.tenants()).join(',');
      if (tenants !== tenantsAtStart) stats.failures.push({ rule: 'no-tenant-created', message: `tenants were ${tenantsAtStart}, now ${tenants}`, seed: batchSeed, batch });
      for (const p of await integrityProblems(h)) {
        if (memory.reportedFiles.has(p) || stats.failures.some((x) => x.message.endsWith(p))) continue;
        stats.failures.push({ rule: 'write-consistent', message: `after batch ${batch}: ${p}`, seed: batchSeed, batch });
      }
      await h.repairFixtures();
      await h.refreshIds();
    } catch (err) {
      stats.failures.push({ rule: 'harness', message: `between batches: ${(err as Error)?.stack ?? err}`, seed: batchSeed, batch });
      break;
    }
    log(`batch ${batch}: ${generated}/${opts.count} requests, ${stats.serverErrors} 5xx, ${stats.failures.length} failure(s), ${Math.round(performance.now() - started)} ms`);
  }
  stats.elapsedMs = performance.now() - started;
  return stats;
}

export function formatStats(s: RunStats, provider: string): string {
  const classes = Object.entries(s.byClass).sort().map(([k, v]) => `${k} ${v}`).join(', ');
  const codes = Object.entries(s.byCode).sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => `${k} ×${v}`).join(', ');
  const restHit = [...s.targetsHit].filter((t) => !t.startsWith('gql ') && t !== 'odd path').length;
  const gqlHit = [...s.targetsHit].filter((t) => /^gql (query|mutation|subscription) /.test(t)).length;
  return [
    `fuzz (${provider}, tenant "${FUZZ_TENANT}") seed ${s.seed}`,
    `requests sent:     ${s.sent - s.shrinkRuns} generated${s.shrinkRuns ? ` (+ ${s.shrinkRuns} reruns shrinking failures)` : ''} in ${s.batches} batches, with ${s.checks} liveness/consistency checks between them`,
    `responses:         ${classes}`,
    `5xx responses:     ${s.serverErrors} (must be 0)${s.knownServerErrors ? `: ${s.knownServerErrors} from the known open bugs below, ${s.serverErrors - s.knownServerErrors} others` : ''}`,
    `routes hit:        ${restHit}/${s.restTotal} REST operations, ${gqlHit}/${s.gqlTotal} GraphQL root fields (+ odd paths and documents)`,
    `answered success:  ${[...s.targetsOk].filter((t) => t !== 'odd path' && t !== 'gql odd document').length} of those at least once (a 2xx; for GraphQL, data without errors)`,
    `top refusals:      ${codes}`,
    `elapsed:           ${(s.elapsedMs / 1000).toFixed(1)} s (${Math.round(s.sent / (s.elapsedMs / 1000))} requests/s)`,
    `failures:          ${s.failures.length}`,
    ...Object.entries(s.knownOpen).map(([id, n]) => `known open:        ${id} ×${n} (counted above; reported, not fixed here: ${KNOWN_OPEN.find((k) => k.id === id)?.summary ?? ''})`),
  ].join('\n');
}
