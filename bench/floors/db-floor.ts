/**
 * Floor: a bare node:http server that reads workload 2's page from the database on every request,
 * as a server with no read cache must (issue 30's cache-off REST row). Nothing else: no routing,
 * no token, no session, no access check, no framework. It runs the two statements fw's REST list
 * runs (the same columns; the page in the model's order, `fw_sortkey` through the sort index on
 * SQLite and `COLLATE "und-x-icu"` on PostgreSQL; the total), turns the rows into the records of
 * fw's answer (`FIXTURE`, whose keys give the columns) with fw's own value decoders, and
 * `JSON.stringify`s them. What this floor reaches, against the node:http floor (which only
 * stringifies a document held in memory), is the most any design that reads the page per request
 * can reach on this machine.
 *
 * `DIALECT` is `sqlite` (`DB` the cache-off server's tenant file, opened read-only, statements
 * prepared once) or `postgresql` (`DB` the tenant database's URL: a pool of 5, statements sent
 * as fw's reader sends them, unnamed with rows as arrays and timestamps kept as text).
 */
import fs from 'node:fs';
import http from 'node:http';
import Database from 'better-sqlite3';
import pg from 'pg';
import { registerSortKey } from '../../src/kernel/data/collation.ts';
import { isoFromPostgres } from '../../src/kernel/data/sql/values.ts';
import { serveFloor } from './serve.ts';

interface ListAnswer { items: Array<Record<string, unknown>>; limit: number; offset: number }

const postgres = process.env.DIALECT === 'postgresql';
const fixture = JSON.parse(fs.readFileSync(process.env.FIXTURE!, 'utf8')) as ListAnswer;
const sample = fixture.items[0];
if (!sample) throw new Error('database floor: the fixture has no items');
const keys = Object.keys(sample);
/** `id` is the column `record_uuid`; every other key is its column's name. */
const column = (k: string) => (k === 'id' ? 'record_uuid' : k);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
// fw's decoders (src/kernel/data/sql/values.ts): SQLite keeps `…678+00:00` text, fw answers
// `…678Z`, and booleans are stored as 1/0; PostgreSQL's timestamptz text goes through fw's own
const fromSqlite = (x: unknown) => (typeof x === 'string' && x.length === 29 ? `${x.slice(0, 23)}Z` : x);
const decode = keys.map((k): ((v: unknown) => unknown) | null => {
  const v = sample[k];
  if (typeof v === 'boolean') return postgres ? null : (x) => (x === null ? null : x === 1);
  if (typeof v === 'string' && ISO.test(v)) return postgres ? isoFromPostgres : fromSqlite;
  return null;
});

const quoted = (c: string) => `"t0"."${c}"`;
const order = postgres ? '"t0"."name" collate "und-x-icu" asc' : 'fw_sortkey("t0"."name") asc';
const PAGE = `select ${keys.map((k) => quoted(column(k))).join(', ')} from "res_organization" as "t0" order by ${order}, "t0"."dbid" asc limit ${postgres ? '$1' : '?'}`;
const TOTAL = 'select count(*) as "n" from "res_organization" as "t0"';

/** The page's rows and the total, from one database or the other. */
let read: () => Promise<{ rows: unknown[][]; total: number }>;
if (postgres) {
  const keepText = new Set([pg.types.builtins.TIMESTAMPTZ]);
  const types = { getTypeParser: ((oid: number, format: 'text') => (keepText.has(oid) ? (t: string) => t : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser };
  // as many connections as fw's pool per tenant (PG_POOL_MAX): one would queue every request's
  // round trips behind each other, which fw does not
  const pool = new pg.Pool({ connectionString: process.env.DB!, max: 5 });
  const rows = async (text: string, values: unknown[]) => (await pool.query({ text, values, rowMode: 'array', types })).rows as unknown[][];
  read = async () => ({ rows: await rows(PAGE, [fixture.limit]), total: Number((await rows(TOTAL, []))[0]![0]) });
} else {
  const db = registerSortKey(new Database(process.env.DB!, { readonly: true }));
  const page = db.prepare(PAGE).raw(true);
  const total = db.prepare(TOTAL).raw(true);
  read = () => Promise.resolve({ rows: page.all(fixture.limit) as unknown[][], total: (total.all() as number[][])[0]![0]! });
}

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    read().then(({ rows, total }) => {
      const items = rows.map((row) => {
        const record: Record<string, unknown> = {};
        for (let i = 0; i < keys.length; i++) {
          const d = decode[i];
          record[keys[i]!] = d ? d(row[i]) : row[i];
        }
        return record;
      });
      const body = JSON.stringify({ items, total, limit: fixture.limit, offset: fixture.offset });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }, (err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
});
serveFloor(server);
