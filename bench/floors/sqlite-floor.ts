/**
 * Floor: a bare node:http server that reads workload 2's page from the database on every request,
 * as a server with no read cache must (issue 30's cache-off REST row). Nothing else: no routing,
 * no token, no session, no access check, no framework. It opens the cache-off server's tenant
 * file read-only (`DB`), runs one prepared statement for the page and one for the total, the
 * same statements fw's REST list runs (the same columns, `fw_sortkey` order with its index),
 * turns the rows into the records of fw's answer (`FIXTURE`, whose keys give the columns), and
 * `JSON.stringify`s them. What this floor reaches, against the node:http floor (which only
 * stringifies a document held in memory), is the most any design that reads the page per
 * request can reach on this machine.
 */
import fs from 'node:fs';
import http from 'node:http';
import Database from 'better-sqlite3';
import { registerSortKey } from '../../src/kernel/data/collation.ts';
import { serveFloor } from './serve.ts';

interface ListAnswer { items: Array<Record<string, unknown>>; limit: number; offset: number }

const fixture = JSON.parse(fs.readFileSync(process.env.FIXTURE!, 'utf8')) as ListAnswer;
const sample = fixture.items[0];
if (!sample) throw new Error('sqlite floor: the fixture has no items');
const keys = Object.keys(sample);
/** `id` is the column `record_uuid`; every other key is its column's name. */
const column = (k: string) => (k === 'id' ? 'record_uuid' : k);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
// fw's decoders (src/kernel/data/sql/values.ts): SQLite keeps `…678+00:00` text, fw answers `…678Z`;
// booleans are stored as 1/0
const decode = keys.map((k): ((v: unknown) => unknown) | null => {
  const v = sample[k];
  if (typeof v === 'boolean') return (x) => (x === null ? null : x === 1);
  if (typeof v === 'string' && ISO.test(v)) return (x) => (typeof x === 'string' && x.length === 29 ? `${x.slice(0, 23)}Z` : x);
  return null;
});

const db = registerSortKey(new Database(process.env.DB!, { readonly: true }));
const quoted = (c: string) => `"t0"."${c}"`;
const page = db
  .prepare(`select ${keys.map((k) => quoted(column(k))).join(', ')} from "res_organization" as "t0" order by fw_sortkey("t0"."name") asc, "t0"."dbid" asc limit ?`)
  .raw(true);
const total = db.prepare('select count(*) as "n" from "res_organization" as "t0"').raw(true);

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const rows = page.all(fixture.limit) as unknown[][];
    const items = rows.map((row) => {
      const record: Record<string, unknown> = {};
      for (let i = 0; i < keys.length; i++) {
        const d = decode[i];
        record[keys[i]!] = d ? d(row[i]) : row[i];
      }
      return record;
    });
    const n = (total.all() as number[][])[0]![0];
    const body = JSON.stringify({ items, total: n, limit: fixture.limit, offset: fixture.offset });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
serveFloor(server);
