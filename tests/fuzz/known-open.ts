/**
 * Failures the fuzzer found in code outside this work's remit, reported with a reproducer (see
 * tests/fuzz/regressions.test.ts, the `it.fails` cases) and not fixed here. A failure matching one
 * is counted apart ("known open") instead of failing the run, so the fuzzer keeps finding others;
 * the 5xx figure still counts it. Remove an entry once its bug is fixed: its regression test
 * then passes, and `it.fails` turns red as a reminder.
 */
import type { FuzzRequest, FuzzResponse } from './harness.ts';
import { safeDecode } from './values.ts';

export interface KnownOpen {
  id: string;
  summary: string;
  matches(req: FuzzRequest, res: FuzzResponse, rule: string, message: string): boolean;
}

function text(req: FuzzRequest): string {
  const url = safeDecode(req.url);
  const body = req.body === undefined ? '' : typeof req.body === 'string' ? req.body : req.body.toString('latin1');
  return `${url}\n${body}`;
}

/** The deepest nesting of brackets and braces in a text (strings ignored roughly: good enough to classify). */
export function nesting(s: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 91 || c === 123) max = Math.max(max, ++depth);
    else if (c === 93 || c === 125) depth = Math.max(0, depth - 1);
  }
  return max;
}

/** How many domain prefix operators (`"!"`, `"&"`, `"|"`) or GraphQL `NOT`/`AND`/`OR` a text carries. */
export function prefixOperators(s: string): number {
  return (s.match(/"[!&|]"|\b(NOT|AND|OR)\s*:/g) ?? []).length;
}

export const KNOWN_OPEN: KnownOpen[] = [
  {
    id: 'deep-domain',
    summary: 'src/kernel/data/domain.ts has no depth limit: a domain whose Prisma `where` nests past ~120 levels (121 "!" prefixes in a flat '
      + 'list, or a GraphQL `where` with ~130 nested NOT) fails in Prisma ("JSON Error: recursion limit exceeded") on the Prisma paths '
      + '(read_group, writes with a domain, reads in a transaction): 500 instead of 400 INVALID_DOMAIN. (JSON nested past 64 levels is now '
      + 'refused at the HTTP edge, src/server/input.ts, which also ended the JSON.stringify overflow of a term nested ~4,000 deep.)',
    matches: (req, res, rule) => (rule === 'no-5xx' || rule === 'no-internal-error') && res.status === 500
      && (nesting(text(req)) >= 60 || prefixOperators(text(req)) >= 60),
  },
  {
    id: 'storage-version-number',
    summary: 'src/apps/storage/routes.ts intParam accepts any JavaScript integer as a version number: '
      + '`GET /api/storage/download/{id}?version_number=9223372036854780000` (or `/versions/9223372036854780000/download`) reaches Prisma, '
      + 'which cannot fit it in a 64-bit integer: 500 instead of 400 INVALID_PARAMETER (fix: Number.isSafeInteger)',
    matches: (req, res, rule) => (rule === 'no-5xx' || rule === 'no-internal-error') && res.status === 500 && req.url.startsWith('/api/storage/')
      && [/[?&]version_number=([^&]*)/.exec(req.url)?.[1], /\/versions\/([^/?]+)\/download/.exec(req.url)?.[1]]
        .some((n) => n !== undefined && Number.isInteger(Number(safeDecode(n))) && !Number.isSafeInteger(Number(safeDecode(n)))),
  },
  {
    id: 'pg-nul-in-graphql-literal',
    summary: 'PostgreSQL stores no NUL (U+0000) in text: the HTTP layer now refuses it in bodies and query strings (src/server/input.ts), '
      + 'but a GraphQL string literal ("a\\u0000b" inside the document) reaches the database through src/kernel/data (coerceScalar and the '
      + 'filter compilers accept it): 500 on PostgreSQL instead of a 400/422 (fix: refuse U+0000 in char/text values and filter values)',
    matches: (req, res, rule) => (rule === 'no-5xx' || rule === 'no-internal-error') && req.url.startsWith('/graphql')
      && /\\u0000|\\u\{0+\}/i.test(text(req)),
  },
  {
    id: 'storage-long-unicode-filename',
    summary: 'src/apps/storage (sanitizeFilename, backends/keys.ts) cuts a file name at 200 characters, but the local backend writes '
      + '`.<name>.<12 hex>.fwtmp` and file systems allow 255 bytes: a name of 100 CJK characters or 60 emoji (300 and 240 UTF-8 bytes) fails '
      + 'with ENAMETOOLONG, a 500 on every upload path (REST base64 and binary, GraphQL multipart, new versions) instead of a stored document '
      + '(fix: cut the sanitized name at ~200 UTF-8 bytes, on a code point boundary)',
    matches: (req, res, rule) => (rule === 'no-5xx' || rule === 'no-internal-error') && res.status === 500
      && /storage|Upload|upload|Version/.test(`${req.target} ${req.url}`)
      && fileNames(req).some((n) => Buffer.byteLength(n) > 200),
  },
  {
    id: 'pg-datetime-range',
    summary: 'src/kernel/data/values.ts accepts any date JavaScript can hold: on PostgreSQL a DateTime of year 0, a negative year or '
      + 'a year past 294276 ("0000-01-01T00:00:00Z", "-001000-01-01T00:00:00Z", "+275760-09-13T00:00:00.000Z") fails in the database, a 500 on '
      + 'writes and on the Prisma filter paths (SQLite stores them): refuse dates outside years 1–9999 with 422 / 400 INVALID_DOMAIN on both engines',
    matches: (req, res, rule) => (rule === 'no-5xx' || rule === 'no-internal-error') && res.status === 500
      && /(^|[^0-9])(0000|[+-]\d{6})-\d\d-\d\d/.test(text(req)),
  },
  {
    id: 'graphql-406-after-execution',
    summary: 'src/server/graphql/index.ts runs the operation before yoga picks a response type: a mutation sent with an Accept header '
      + 'yoga cannot answer (e.g. `Accept: text/html`) commits its writes and then answers 406 with no body, so the client sees a refusal '
      + 'of a write that happened (fix: answer 406 before executing when Accept names none of the GraphQL response types)',
    matches: (req, res, rule) => rule === 'refusal-changes-nothing' && res.status === 406 && req.url.startsWith('/graphql'),
  },
  {
    id: 'storage-orphan-in-failed-batch',
    summary: 'src/apps/storage: a batch create of documents (GraphQL `storageDocumentCreateMany`, `fw.create_many` on storage.document) '
      + 'stores the file of each valid item before a later item fails validation; the transaction rolls the rows back but the stored '
      + 'objects stay on disk without a row (an upload removes its object when its own write fails, not when the surrounding batch does)',
    matches: (req, _res, rule, message) => rule === 'write-consistent' && /orphan/.test(message)
      && /CreateMany|create_many/i.test(`${req.target} ${typeof req.body === 'string' ? req.body : req.body?.toString('utf8') ?? ''}`),
  },
  {
    id: 'sqlite-like-pattern-length',
    summary: 'src/kernel/data (the SQL and Prisma filter compilers) passes `like`/`ilike`/`startswith` (GraphQL `contains`, `startsWith`, …) '
      + 'values of any length to SQLite, whose LIKE refuses patterns over 50,000 bytes ("LIKE or GLOB pattern too complex"): a 500 on SQLite, '
      + 'a 200 on PostgreSQL (fix: refuse text patterns over a bound, e.g. 10,000 characters, with 400 INVALID_DOMAIN on both engines)',
    matches: (req, res, rule) => (rule === 'no-5xx' || rule === 'no-internal-error') && res.status === 500
      && Buffer.byteLength(text(req)) > 50_000 && /like|startswith|contains|endswith/i.test(text(req)),
  },
];

/** File names a request carries: JSON `filename`/`file_name`/`name`, the same query parameters, multipart `filename="…"`. */
function fileNames(req: FuzzRequest): string[] {
  const out: string[] = [];
  const body = req.body === undefined ? '' : typeof req.body === 'string' ? req.body : req.body.toString('utf8');
  for (const m of body.matchAll(/filename="([^"]*)"/g)) out.push(m[1]);
  try {
    const j = JSON.parse(body) as Record<string, unknown>;
    for (const k of ['filename', 'file_name', 'name']) if (typeof j?.[k] === 'string') out.push(j[k] as string);
  } catch { /* not JSON */ }
  const query = new URLSearchParams(req.url.split('?')[1] ?? '');
  for (const k of ['filename', 'file_name', 'name']) for (const v of query.getAll(k)) out.push(v);
  return out;
}

export function knownOpen(req: FuzzRequest, res: FuzzResponse, rule: string, message = ''): KnownOpen | undefined {
  return KNOWN_OPEN.find((k) => k.matches(req, res, rule, message));
}
