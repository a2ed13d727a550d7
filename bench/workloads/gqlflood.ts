/**
 * Workload 12 (gqlflood): one anonymous caller sending the most expensive GraphQL documents it
 * can, each one new (a fresh operation and alias/fragment names per request, so yoga's parse and
 * validation caches never hit and nothing is compiled twice), while `GET /health` is timed from
 * its own connection (issue 26: one 259 KB document of 10,000 aliases held the event loop 7 s).
 *
 * The server runs with NODE_ENV=production (the deployment's posture: introspection refused to
 * anonymous callers) and the default document bounds, 250 tokens for an anonymous caller. Every candidate document is first sent
 * alone on one connection (its row shows what one costs the server); the one with the lowest
 * rate is then sent from 4 connections at once with the health probe alongside (from a process of
 * its own), and so is the issue's document. Target: `GET /health` p99 ≤ 50 ms during both floods.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, getIntrospectionQuery, getNamedType, isObjectType, Lexer, parse, Source, TokenKind } from 'graphql';
import { documentCounts } from '../../src/server/graphql/bounds.ts';
import { failures, job, measure, type Bench, type Measured } from '../lib/bench.ts';
import { request } from '../lib/http.ts';
import { BENCH_DIR, runLoad } from '../lib/load.ts';
import { startFw } from '../lib/server.ts';

const FLOOD_CONNECTIONS = 4;
const TARGET_MS = 50;

/** `{{id}}` is replaced per request by a GraphQL-name-safe unique text (bench/lib/load-worker.ts). */
const ID = '{{id}}';
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Tokens an anonymous caller's document may have (GRAPHQL_ANONYMOUS_MAX_TOKENS's default). */
const ANONYMOUS_TOKENS = 250;

/**
 * The candidates: each as large as the default bounds for an anonymous caller let it be (250
 * tokens; 300 fields, 15 aliases, 50 directives), and issue 26's document.
 */
function candidates(): Record<string, string> {
  const schema = buildSchema(fs.readFileSync(path.join(path.dirname(BENCH_DIR), 'generated/schema.graphql'), 'utf8'));
  // how many repeats of `per` tokens fit next to `fixed` others
  const fit = (per: number, fixed: number) => Math.floor((ANONYMOUS_TOKENS - fixed) / per);
  // every root query field without a required argument, each selecting its cheapest valid selection:
  // every one runs its resolver (which refuses the anonymous caller)
  const roots = Object.values(schema.getQueryType()!.getFields())
    .filter((f) => !f.name.startsWith('__') && f.args.every((a) => !String(a.type).endsWith('!')))
    .map((f) => (isObjectType(getNamedType(f.type)) ? `${f.name} { __typename }` : f.name));
  const rootsFit: string[] = [];
  for (const r of roots) if (tokens(`query Q { ${[...rootsFit, r].join(' ')} }`) <= ANONYMOUS_TOKENS) rootsFit.push(r);
  const chain = fit(9, 8);
  const fan = fit(9, 8);
  return {
    // the issue's document: 10,000 aliases of me { email } (refused by the token bound)
    finding: `query Q${ID} { ${range(10_000).map((i) => `a${ID}_${i}: me { email }`).join(' ')} }`,
    // 15 aliases, then the same field again and again
    aliases: `query Q${ID} { ${range(15).map((i) => `a${ID}_${i}: me { email }`).join(' ')} ${range(fit(4, 4 + 90)).map(() => 'me { email }').join(' ')} }`,
    // fields of one name: validation compares them pair by pair
    'same field': `query Q${ID} { me { ${range(fit(1, 7)).map(() => 'email').join(' ')} } }`,
    // objects of one name, each with a sub-selection
    'same object': `query Q${ID} { ${range(fit(4, 4)).map(() => 'me { email }').join(' ')} }`,
    // objects of one name, each two levels deep
    'same object, deeper': `query Q${ID} { ${range(fit(7, 4)).map(() => 'me { organization { id } }').join(' ')} }`,
    // a chain of fragments, each spreading the next
    'fragment chain': `query Q${ID} { me { ...F${ID}_0 } } ${range(chain).map((i) => `fragment F${ID}_${i} on Me { email${i < chain - 1 ? ` ...F${ID}_${i + 1}` : ''} }`).join(' ')}`,
    // fragments spread side by side
    'fragment fan': `query Q${ID} { me { ${range(fan).map((i) => `...F${ID}_${i}`).join(' ')} } } ${range(fan).map((i) => `fragment F${ID}_${i} on Me { email }`).join(' ')}`,
    // unused variables: a validation error each (validation stops at 20)
    variables: `query Q${ID}(${range(fit(4, 7)).map((i) => `$v${ID}_${i}: Int`).join(' ')}) { __typename }`,
    // directives on as many fields as fit (8 tokens each)
    directives: `query Q${ID} { ${range(fit(8, 4)).map(() => '__typename @include(if: true)').join(' ')} }`,
    // as many root fields as fit (each runs a resolver)
    'root fields': `query Q${ID} { ${rootsFit.join(' ')} }`,
    // the schema explorer's query (refused to anonymous callers in production)
    introspection: getIntrospectionQuery({ descriptions: true }).replace('query IntrospectionQuery', `query Q${ID}`),
  };
}

function tokens(doc: string): number {
  const lexer = new Lexer(new Source(doc));
  let n = 0;
  while (lexer.advance().kind !== TokenKind.EOF) n++;
  return n;
}

/** Size figures of a candidate (with a sample id), for its row. */
function describe(doc: string): string {
  const sample = doc.replaceAll(ID, 'x0');
  const c = documentCounts(parse(sample));
  return `${(sample.length / 1000).toFixed(1)} kB, ${tokens(sample).toLocaleString('en-US')} tokens, ${c.fields.toLocaleString('en-US')} fields, ${c.aliases.toLocaleString('en-US')} aliases`;
}

export async function gqlfloodWorkload(b: Bench): Promise<void> {
  b.log('workload 12: fw server with NODE_ENV=production');
  const server = await startFw(b.ctx, 'gqlflood', { NODE_ENV: 'production', CONNECTOR_SECRET_KEY: crypto.randomBytes(32).toString('base64url') });
  try {
    const base = server.base;
    const docs = candidates();
    const body = (doc: string) => JSON.stringify({ query: doc });
    const probe = job(b, { name: 'health', base, method: 'GET', paths: ['/health'], connections: 1, probe: true, intervalMs: 10 });
    const raw: Record<string, unknown> = {};

    // what each answers, once, for its row
    const answers: Record<string, string> = {};
    for (const [name, doc] of Object.entries(docs)) {
      const r = await request(base, 'POST', '/graphql', { body: { query: doc.replaceAll(ID, `probe${crypto.randomBytes(3).toString('hex')}`) }, timeoutMs: 120_000 });
      const codes = [...new Set(((r.body as { errors?: Array<{ extensions?: { code?: string } }> })?.errors ?? []).map((e) => e.extensions?.code ?? 'no code'))];
      answers[name] = `${r.status} ${codes.slice(0, 3).join(', ')}${codes.length > 3 ? ', …' : ''}`.trim();
    }

    b.log('workload 12: GET /health idle');
    const [idle] = await measure(server.pid, [probe]);
    b.rows.push({ id: '12', workload: 'gqlflood: GET /health idle', rps: idle!.rps, p50: idle!.p50, p99: idle!.p99, note: failures(idle!) || undefined });

    // each candidate alone, one connection, one request at a time: its cost to the server
    const alone: Record<string, Measured> = {};
    for (const [name, doc] of Object.entries(docs)) {
      b.log(`workload 12: ${name}, alone`);
      const [r] = await measure(server.pid, [job(b, { name, base, method: 'POST', paths: ['/graphql'], bodyTemplate: body(doc), connections: 1, warmupS: 0, durationS: b.ctx.quick ? 2 : 4, timeoutS: 120 })]);
      alone[name] = r!;
      b.rows.push({ id: `12-${name}`, workload: `gqlflood: "${name}" alone, 1 connection`, rps: r!.rps + r!.non2xx / r!.durationS, p50: r!.p50, p99: r!.p99, note: `${describe(doc)}; answer ${answers[name]}` });
    }
    raw.alone = alone;
    raw.answers = answers;

    // the slowest candidate (fewest answers per second) and the issue's document, from 4 connections
    const rate = (m: Measured) => (m.ok + m.non2xx) / m.durationS;
    const worst = Object.entries(alone).filter(([name]) => name !== 'finding').sort((x, y) => rate(x[1]) - rate(y[1]))[0]![0];
    for (const name of [worst, 'finding']) {
      b.log(`workload 12: ${name} from ${FLOOD_CONNECTIONS} connections, GET /health alongside`);
      const flood = job(b, { name, base, method: 'POST', paths: ['/graphql'], bodyTemplate: body(docs[name]!), connections: FLOOD_CONNECTIONS, timeoutS: 120 });
      // the probe runs in a load process of its own: in the flood's process it would wait behind
      // the client's own work (building a 229 KB body per request), which is not the server's
      const [[f], [h]] = await Promise.all([measure(server.pid, [flood]), runLoad([probe])]);
      raw[`flood-${name}`] = { flood: f, health: h };
      b.rows.push({
        id: `12-flood-${name}`, workload: `gqlflood: GET /health during "${name}" × ${FLOOD_CONNECTIONS} connections`, rps: h!.rps, p50: h!.p50, p99: h!.p99, peakRssMb: f!.peakRssMb,
        target: `p99 ≤ ${TARGET_MS} ms`, met: !failures(h!) && h!.p99 <= TARGET_MS,
        note: `flood ${Math.round(rate(f!)).toLocaleString('en-US')} documents/s (answer ${answers[name]}), health max ${h!.max.toFixed(0)} ms${failures(h!) ? `; ${failures(h!)}` : ''}`,
      });
    }
    b.raw.w12 = raw;
  } finally {
    await server.stop();
  }
}
