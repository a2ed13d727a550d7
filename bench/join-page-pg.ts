/**
 * `npx tsx bench/join-page-pg.ts`: bench/join-page.ts on PostgreSQL (DATABASE_URL, default the
 * machine's server; a database of its own, dropped at the end). A 20-row page of organizations with
 * their country, ordered by name as the compiler writes it (`COLLATE "und-x-icu"`), at 60, 1,000
 * and 10,000 rows: `sort` with no index on the order, `index` with the sort index fw creates for a
 * default order on text (src/kernel/db/sort-indexes.ts), `flat+index` the one-statement join a
 * first page in that order has had since issue 30's fifth pass; the `desc` rows the same in
 * descending order (ties still by ascending `dbid`), which the sixth pass also joins flat. Prints the client's round trip and the
 * server's execution time (EXPLAIN ANALYZE).
 */
import crypto from 'node:crypto';
import pg from 'pg';
import { compileSortIndex } from '../src/kernel/data/sql/compile.ts';
const url = new URL(process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres');
const admin = new pg.Client({ connectionString: url.href });
await admin.connect();
const dbn = `fwpage_${crypto.randomBytes(3).toString('hex')}`;
await admin.query(`create database ${dbn}`);
const own = new URL(url.href);
own.pathname = `/${dbn}`;
const c = new pg.Client({ connectionString: own.href });
await c.connect();
try {
  await c.query(`create table res_country (dbid serial primary key, record_uuid text not null unique, name text, code text);
    create table res_organization (dbid serial primary key, record_uuid text not null unique, name text, code text, country text); create index oc on res_organization(country);`);
  for (let i = 0; i < 250; i++) await c.query('insert into res_country (record_uuid,name,code) values ($1,$2,$3)', [crypto.randomUUID(), 'Country ' + i, 'C' + i]);
  const cs = (await c.query('select record_uuid from res_country')).rows.map((r) => r.record_uuid);
  for (const N of [60, 1000, 10000]) {
    await c.query('truncate res_organization'); await c.query('drop index if exists fw_sk_org');
    await c.query(`insert into res_organization (record_uuid,name,code,country) select gen_random_uuid()::text, 'Org ' || lpad(i::text, 5, '0'), null, ($1::text[])[1 + i % 250] from generate_series(1, $2::int) i`, [cs, N]);
    await c.query('analyze');
    const paged = `select "t0"."record_uuid", "t0"."name", "t0"."code", "t0"."country", "j1"."record_uuid", "j1"."name", "j1"."code" from (select "t0"."record_uuid", "t0"."name", "t0"."code", "t0"."country", "t0"."dbid" from "res_organization" as "t0" order by "t0"."name" collate "und-x-icu" asc, "t0"."dbid" asc limit $1) as "t0" left join "res_country" as "j1" on "j1"."record_uuid" = "t0"."country" order by "t0"."name" collate "und-x-icu" asc, "t0"."dbid" asc`;
    const flat = `select "t0"."record_uuid", "t0"."name", "t0"."code", "t0"."country", "j1"."record_uuid", "j1"."name", "j1"."code" from "res_organization" as "t0" left join "res_country" as "j1" on "j1"."record_uuid" = "t0"."country" order by "t0"."name" collate "und-x-icu" asc, "t0"."dbid" asc limit $1`;
    // the same page in descending order (`name desc`, ties still by `dbid asc`): the index read backwards
    const desc = (q: string) => q.replaceAll('collate "und-x-icu" asc', 'collate "und-x-icu" desc');
    for (const label of ['sort', 'index', 'flat+index', 'index desc', 'flat+index desc']) {
      const shaped = label.startsWith('flat') ? flat : paged;
      const q = label.endsWith('desc') ? desc(shaped) : shaped;
      if (label === 'index') { await c.query(compileSortIndex.create({ name: 'fw_sk_org', table: 'res_organization', columns: [{ column: 'name', sortKey: true }] }, 'postgresql')); await c.query('analyze'); }
      for (let i = 0; i < 50; i++) await c.query(q, [20]);
      const ex = (await c.query(`explain (analyze, format json) ${q}`, [20])).rows[0]['QUERY PLAN'][0];
      const n = 200; const t = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await c.query(q, [20]);
      console.log(N, label, (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(0), 'µs round trip; server execution', ex['Execution Time'].toFixed(3), 'ms');
    }
  }
} finally { await c.end(); await admin.query(`drop database ${dbn}`); await admin.end(); }
