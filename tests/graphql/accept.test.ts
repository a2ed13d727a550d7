/**
 * `Accept` on /graphql (src/server/graphql/accept.ts): graphql-yoga picks the response type after
 * executing and answers 406 when the client accepts none, so a mutation committed and was then
 * refused. The server now decides first, with yoga's own rules:
 *
 * - against graphql-yoga itself (a bare instance, no fw code in the way): for a corpus of Accept
 *   values and 400 generated ones, yoga answers 406 exactly when the pre-check refuses, for
 *   mutations, GET queries (GraphiQL included) and subscriptions; so the check refuses nothing
 *   yoga would answer and lets through nothing yoga would refuse;
 * - on the fw server (SQLite): every Accept yoga answers still runs the mutation; a refused one
 *   answers 406 NOT_ACCEPTABLE with the GraphQL error body and leaves every table of the tenant
 *   as it was (JSON and multipart requests), GraphiQL and CORS preflights are untouched, and a
 *   subscription sent without `text/event-stream` is refused before it subscribes.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { createSchema, createYoga } from 'graphql-yoga';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptedMediaTypes, answerableTypes, GRAPHQL_RESPONSE_TYPES, isGraphQLRequest, regularResponseType, SUBSCRIPTION_STREAM_TYPES,
} from '../../src/server/graphql/accept.ts';
import { startServerWithApps, type ApiServer } from '../helpers/api.ts';

/** Accept values yoga answers a mutation for (each checked against yoga below). */
const ANSWERED = [
  undefined, '', '*/*', 'application/json', 'application/graphql-response+json', 'multipart/mixed', 'text/event-stream',
  'application/*', 'text/*', 'multipart/*', '*/json', '*/event-stream', 'APPLICATION/JSON', ' application/json ',
  'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset = utf-8',
  'application/json;q=0', 'application/json;q=0.5, text/html;q=1', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'application/graphql-response+json, application/json;q=0.9', 'multipart/mixed;deferSpec=20220824, application/json',
  'text/html, application/json;charset=latin1, */*', 'text/plain,,application/json', 'application/json, text/html',
];
/** Accept values yoga answers a mutation with 406 for. */
const REFUSED = [
  'text/html', 'text/plain', 'application/xml', 'image/*', 'application/graphql', 'multipart/form-data', 'application/jsonx',
  'application/json;charset=latin1', 'application/json; charset="utf-8"', 'application/json;xcharset=utf-8', '*/*;charset=iso-8859-1',
  'TEXT/HTML;charset=iso-8859-1', ',', ';', '*', 'json', 'application', 'text/html, image/png;q=0.5',
];

// ---- graphql-yoga itself ---------------------------------------------------------------------

let executed = 0;
const bare = createYoga({
  logging: false,
  landingPage: false,
  schema: createSchema({
    typeDefs: 'type Query { a: Int } type Mutation { m: Int } type Subscription { s: Int }',
    resolvers: {
      Query: { a: () => ++executed },
      Mutation: { m: () => ++executed },
      Subscription: {
        s: {
          subscribe: async function* () {
            executed++;
            yield { s: 1 };
          },
        },
      },
    },
  }),
});

/** What bare yoga does with a request: its status, content type and whether the operation ran. */
async function yogaAnswers(method: 'GET' | 'POST', query: string, accept: string | undefined): Promise<{ status: number; type: string; ran: boolean }> {
  const before = executed;
  const headers: Record<string, string> = accept === undefined ? {} : { accept };
  const res = method === 'GET'
    ? await bare.fetch(`http://x/graphql?query=${encodeURIComponent(query)}`, { headers })
    : await bare.fetch('http://x/graphql', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', ran: executed > before };
}

/** Accept headers built from the pieces yoga's parser distinguishes. */
const acceptHeader = fc.array(
  fc.tuple(
    fc.constantFrom('application/json', 'application/graphql-response+json', 'multipart/mixed', 'text/event-stream', 'text/html', 'text/plain',
      '*/*', 'application/*', 'text/*', 'multipart/*', '*/json', '*/event-stream', '*/mixed', 'image/*', '*', '', 'APPLICATION/JSON', 'Text/Event-Stream',
      'application/xml', 'json', 'text/ html', 'application/graphql'),
    fc.array(fc.constantFrom(';q=0', ';q=0.5', ';q=1', ';charset=utf-8', ';charset=UTF-8', '; charset = utf-8', ';charset=latin1',
      ';charset="utf-8"', ';xcharset=utf-8', ';foo=bar', ';', ' '), { maxLength: 3 }),
  ).map(([type, params]) => type + params.join('')),
  { maxLength: 4 },
).chain((entries) => fc.constantFrom(',', ', ', ' ,').map((sep) => entries.join(sep)));

describe('the pre-check agrees with graphql-yoga', () => {
  it('reads the header as yoga does: missing or empty is */*, charset other than utf-8 drops the entry, q is ignored', () => {
    expect(acceptedMediaTypes(undefined)).toEqual(['*/*']);
    expect(acceptedMediaTypes('')).toEqual(['*/*']);
    expect(acceptedMediaTypes('Application/JSON; q=0, text/html;charset=latin1, multipart/mixed;charset=utf-8')).toEqual(['application/json', 'multipart/mixed']);
    expect(answerableTypes('application/*')).toEqual(['application/graphql-response+json', 'application/json']);
    expect(answerableTypes('text/*', SUBSCRIPTION_STREAM_TYPES)).toEqual(['text/event-stream']);
    expect(answerableTypes('text/html')).toEqual([]);
  });

  it('a missing or empty header is answered as */* every time it is asked, also once the answer is kept', () => {
    for (let round = 0; round < 2; round++) {
      for (const accept of [undefined, null, '']) {
        expect(answerableTypes(accept)).toEqual(answerableTypes('*/*'));
        expect(regularResponseType(accept)).toBe('application/json');
      }
    }
    expect(answerableTypes('*/*')).toEqual(GRAPHQL_RESPONSE_TYPES);
  });

  it('the corpus: yoga answers every ANSWERED value and refuses every REFUSED one, and so does the pre-check', async () => {
    for (const accept of ANSWERED) {
      const y = await yogaAnswers('POST', 'mutation { m }', accept);
      expect(y.status, `yoga, Accept ${JSON.stringify(accept)}`).toBe(200);
      expect(answerableTypes(accept).length, `pre-check, Accept ${JSON.stringify(accept)}`).toBeGreaterThan(0);
    }
    for (const accept of REFUSED) {
      const y = await yogaAnswers('POST', 'mutation { m }', accept);
      // the bug: yoga executed the mutation before it refused
      expect(y, `yoga, Accept ${JSON.stringify(accept)}`).toEqual({ status: 406, type: '', ran: true });
      expect(answerableTypes(accept), `pre-check, Accept ${JSON.stringify(accept)}`).toEqual([]);
    }
  });

  it('generated headers: yoga answers a mutation with 406 exactly when the pre-check refuses it', async () => {
    await fc.assert(fc.asyncProperty(acceptHeader, async (accept) => {
      const y = await yogaAnswers('POST', 'mutation { m }', accept);
      expect(y.status === 406, `Accept ${JSON.stringify(accept)}: yoga ${y.status}`).toBe(answerableTypes(accept).length === 0);
    }), { numRuns: 400, seed: 406 });
  });

  it('GET: yoga serves GraphiQL exactly when the pre-check leaves the request alone, else refuses as for POST', async () => {
    await fc.assert(fc.asyncProperty(acceptHeader, async (accept) => {
      const y = await yogaAnswers('GET', '{ a }', accept);
      const graphiql = y.type.startsWith('text/html');
      expect(graphiql, `Accept ${JSON.stringify(accept)}`).toBe(!isGraphQLRequest('GET', accept));
      if (!graphiql) expect(y.status === 406, `Accept ${JSON.stringify(accept)}: yoga ${y.status}`).toBe(answerableTypes(accept).length === 0);
    }), { numRuns: 200, seed: 407 });
    expect(isGraphQLRequest('GET', 'text/html')).toBe(false);
    expect(isGraphQLRequest('GET', 'TEXT/HTML')).toBe(true); // yoga's check is case-sensitive
    expect(isGraphQLRequest('POST', 'text/html')).toBe(true);
    expect(isGraphQLRequest('OPTIONS', 'text/html')).toBe(false);
  });

  it('a query answered as one JSON result: yoga picks the type regularResponseType names (the direct path relies on it)', async () => {
    const check = async (accept: string | undefined) => {
      const y = await yogaAnswers('POST', '{ a }', accept);
      const type = y.type.split(';')[0]!;
      const regular = regularResponseType(accept);
      if (regular) expect(type, `Accept ${JSON.stringify(accept)}`).toBe(regular);
      else expect(['text/event-stream', 'multipart/mixed', ''], `Accept ${JSON.stringify(accept)}: yoga answered ${type}`).toContain(type);
    };
    for (const accept of [...ANSWERED, ...REFUSED]) await check(accept);
    await fc.assert(fc.asyncProperty(acceptHeader, check), { numRuns: 300, seed: 409 });
    expect(regularResponseType(undefined)).toBe('application/json');
    expect(regularResponseType('application/graphql-response+json, application/json')).toBe('application/graphql-response+json');
    expect(regularResponseType('application/json, application/graphql-response+json')).toBe('application/json');
    expect(regularResponseType('text/event-stream')).toBeNull();
  });

  it('subscriptions: yoga streams one exactly when the Accept names an event stream (after subscribing: hence the plugin)', async () => {
    await fc.assert(fc.asyncProperty(acceptHeader, async (accept) => {
      const y = await yogaAnswers('POST', 'subscription { s }', accept);
      expect(y.status === 406, `Accept ${JSON.stringify(accept)}: yoga ${y.status}`).toBe(answerableTypes(accept, SUBSCRIPTION_STREAM_TYPES).length === 0);
    }), { numRuns: 200, seed: 408 });
  });
});

// ---- the fw server -----------------------------------------------------------------------------

let ts: ApiServer;
let token: string;
let db: Database.Database;

beforeAll(async () => {
  ts = await startServerWithApps([]);
  token = await ts.adminToken();
  db = new Database(path.join(ts.kernel.settings.DATA_DIR, 'tenants', `${ts.kernel.settings.DEFAULT_TENANT}.db`), { readonly: true });
}, 60_000);

afterAll(async () => {
  db?.close();
  await ts?.close();
});

/** Rows of every table of the default tenant (outbox, sessions and records included). */
function snapshot(): Record<string, number> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>;
  return Object.fromEntries(tables.map(({ name }) => [name, (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n]));
}
const organizations = (): number => (db.prepare('SELECT count(*) AS n FROM res_organization').get() as { n: number }).n;

function post(accept: string | undefined, body: unknown, extra: Record<string, string> = {}) {
  return ts.server.inject({
    method: 'POST', url: '/graphql',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }), ...extra },
    payload: JSON.stringify(body),
  });
}
const create = (name: string) => ({ query: `mutation { resOrganizationCreate(input: { name: ${JSON.stringify(name)} }) { id name } }` });

function expectNotAcceptable(res: { statusCode: number; body: string; headers: Record<string, unknown> }, offered: readonly string[]): void {
  expect(res.statusCode, res.body).toBe(406);
  expect(String(res.headers['content-type'])).toMatch(/^application\/(graphql-response\+)?json; charset=utf-8$/);
  const body = JSON.parse(res.body) as { data?: unknown; errors: Array<{ message: string; extensions: { code: string; details: unknown } }> };
  expect(body.data).toBeUndefined();
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0].extensions).toEqual({ code: 'NOT_ACCEPTABLE', details: { accept: [...offered] } });
  expect(body.errors[0].message).toMatch(/^the Accept header names no response type this endpoint can answer with: send one of /);
}

describe('/graphql on the fw server', () => {
  it('every Accept value yoga answers runs the mutation and answers it in an accepted type', async () => {
    for (const [i, accept] of ANSWERED.entries()) {
      const before = organizations();
      const res = await post(accept, create(`accepted ${i}`));
      expect(res.statusCode, `Accept ${JSON.stringify(accept)}: ${res.body}`).toBe(200);
      const type = String(res.headers['content-type']).split(';')[0];
      expect(answerableTypes(accept), `Accept ${JSON.stringify(accept)} answered as ${type}`).toContain(type);
      expect(res.body).toContain(`"name":"accepted ${i}"`);
      expect(organizations()).toBe(before + 1);
    }
  });

  it('a refused Accept answers 406 NOT_ACCEPTABLE with a body, and nothing is written', async () => {
    for (const [i, accept] of REFUSED.entries()) {
      const before = snapshot();
      const res = await post(accept, create(`refused ${i}`));
      expectNotAcceptable(res, GRAPHQL_RESPONSE_TYPES);
      expect(snapshot(), `Accept ${JSON.stringify(accept)}`).toEqual(before);
    }
    // the fuzzer's reproducer: a create with its outbox event and hooks
    const before = snapshot();
    expectNotAcceptable(await post('text/html', { query: 'mutation { crmLeadCreate(input: { name: "via 406" }) { id } }' }), GRAPHQL_RESPONSE_TYPES);
    expect(snapshot()).toEqual(before);
  });

  it('an anonymous login refused for its Accept opens no session', async () => {
    const before = snapshot();
    const res = await ts.server.inject({
      method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', accept: 'text/html' },
      payload: JSON.stringify({ query: 'mutation { login(email: "admin@example.com", password: "admin-pass-1") { access_token } }' }),
    });
    expectNotAcceptable(res, GRAPHQL_RESPONSE_TYPES);
    expect(snapshot()).toEqual(before);
  });

  it('a multipart request (the upload path) is refused the same way before its body is parsed', async () => {
    const boundary = 'fwboundary';
    const multipart = (name: string) => [
      `--${boundary}`, 'Content-Disposition: form-data; name="operations"', '', JSON.stringify(create(name)),
      `--${boundary}`, 'Content-Disposition: form-data; name="map"', '', '{}', `--${boundary}--`, '',
    ].join('\r\n');
    const send = (accept: string, name: string) => ts.server.inject({
      method: 'POST', url: '/graphql',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-graphql-csrf': '1', accept },
      payload: multipart(name),
    });
    const before = snapshot();
    const refused = await send('text/html', 'multipart refused');
    expectNotAcceptable(refused, GRAPHQL_RESPONSE_TYPES);
    expect(refused.headers.connection).toBe('close');
    expect(snapshot()).toEqual(before);
    const ok = await send('application/json', 'multipart accepted');
    expect(ok.statusCode, ok.body).toBe(200);
    expect(JSON.parse(ok.body).data.resOrganizationCreate.name).toBe('multipart accepted');
  });

  it('GraphiQL (GET with text/html) and CORS preflights are not GraphQL requests: untouched', async () => {
    const page = await ts.server.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const preflight = await ts.server.inject({ method: 'OPTIONS', url: '/graphql', headers: { accept: 'text/html', origin: 'http://example.com', 'access-control-request-method': 'POST' } });
    // not refused as unacceptable; with CORS off (no CORS_ORIGINS) it allows nothing either (tests/graphql/cors-csrf.test.ts)
    expect(preflight.statusCode, preflight.body).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    // yoga's GraphiQL check is case-sensitive: this one is a GraphQL request, refused before it runs
    const get = await ts.server.inject({ method: 'GET', url: `/graphql?query=${encodeURIComponent('{ resCountries(limit: 1) { id } }')}`, headers: { accept: 'TEXT/HTML', authorization: `Bearer ${token}` } });
    expectNotAcceptable(get, GRAPHQL_RESPONSE_TYPES);
  });

  it('a subscription over HTTP without text/event-stream in its Accept is refused before it subscribes', async () => {
    let subscribed = 0;
    const original = ts.kernel.subscribe.bind(ts.kernel);
    (ts.kernel as { subscribe: typeof original }).subscribe = async (...args) => {
      subscribed++;
      return original(...args);
    };
    try {
      const query = { query: 'subscription { resOrganizationChanged { op id } }' };
      // answerable as JSON: the refusal is a GraphQL response
      expectNotAcceptable(await post('application/json', query), SUBSCRIPTION_STREAM_TYPES);
      expectNotAcceptable(await post('application/graphql-response+json', query), SUBSCRIPTION_STREAM_TYPES);
      // not even as JSON (yoga's 406 has no body): the server answers with its own
      expectNotAcceptable(await post('multipart/mixed', query), SUBSCRIPTION_STREAM_TYPES);
      // and when nothing at all fits, the pre-check refuses first
      expectNotAcceptable(await post('text/html', query), GRAPHQL_RESPONSE_TYPES);
      expect(subscribed).toBe(0);
    } finally {
      (ts.kernel as { subscribe: typeof original }).subscribe = original;
    }
  });
});
