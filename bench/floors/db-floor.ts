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
 * `DIALECT` is `sqlite` (`DB` the cache-off server's tenant file) or `postgresql` (`DB` the
 * tenant database's URL), opened as `tenant-db.ts` opens a tenant's database.
 */
import fs from 'node:fs';
import http from 'node:http';
import { isoFromPostgres } from '../../src/kernel/data/sql/values.ts';
import { serveFloor } from './serve.ts';
import { openTenantDb, placeholders, type Dialect } from './tenant-db.ts';

interface ListAnswer { items: Array<Record<string, unknown>>; limit: number; offset: number }

const dialect: Dialect = process.env.DIALECT === 'postgresql' ? 'postgresql' : 'sqlite';
const postgres = dialect === 'postgresql';
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
const PAGE = placeholders(dialect, `select ${keys.map((k) => quoted(column(k))).join(', ')} from "res_organization" as "t0" order by ${order}, "t0"."dbid" asc limit ?`);
const TOTAL = 'select count(*) as "n" from "res_organization" as "t0"';

const db = openTenantDb(dialect, process.env.DB!);
/** The page's rows and the total. */
const read = async () => ({ rows: await db.rows(PAGE, [fixture.limit]), total: Number((await db.rows(TOTAL, []))[0]![0]) });

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
