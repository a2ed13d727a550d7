/**
 * `npx tsx bench/join-page.ts`: a 20-row page of organizations with their country, ordered by name,
 * on SQLite (better-sqlite3 with the fw_sortkey function) at 60, 1,000 and 10,000 rows, in the
 * two statement shapes `compileSearch` has produced: `flat` joins every row and then sorts and
 * cuts (before issue 30's third pass), `paged` chooses the page in a subquery and joins only its
 * rows (issue 30's third pass), and `paged+index` is `paged` with the sort index fw creates on
 * SQLite for a default order on text (src/kernel/db/sort-indexes.ts); `flat+index` is `flat` with
 * that index, the shape a first page in an order an index serves has had since issue 30's fifth
 * pass (the join then stops with the page); the `desc` rows are the same in descending order
 * (ties still by ascending `dbid`), which the sixth pass also joins flat. The SQL texts are the
 * compiler's output for `resOrganizations(limit: 20, orderBy: [{ name: asc }]) { id name code
 * country { id name code } }`. Prints µs per statement.
 */
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import { registerSortKey } from '../src/kernel/data/collation.ts';
import { compileSortIndex } from '../src/kernel/data/sql/compile.ts';
for (const N of [60, 1000, 10000]) {
const db = registerSortKey(new Database(':memory:'));
db.exec(`create table res_country (dbid integer primary key, record_uuid text not null, name text, code text); create unique index cu on res_country(record_uuid);
create table res_organization (dbid integer primary key, record_uuid text not null, name text, code text, country text); create unique index ou on res_organization(record_uuid); create index oc on res_organization(country);`);
for (let i = 0; i < 250; i++) db.prepare('insert into res_country (record_uuid,name,code) values (?,?,?)').run(crypto.randomUUID(), 'Country ' + i, 'C' + i);
const cs = db.prepare('select record_uuid from res_country').pluck().all() as string[];
db.exec('begin');
for (let i = 0; i < N; i++) db.prepare('insert into res_organization (record_uuid,name,code,country) values (?,?,?,?)').run(crypto.randomUUID(), `Org ${String(i).padStart(5, '0')}`, null, cs[i % 250]);
db.exec('commit');
const flat = `select "t0"."record_uuid", "t0"."name", "t0"."code", "t0"."country", "j1"."record_uuid", "j1"."name", "j1"."code" from "res_organization" as "t0" left join "res_country" as "j1" on "j1"."record_uuid" = "t0"."country" order by fw_sortkey("t0"."name") asc, "t0"."dbid" asc limit ?`;
const paged = `select "t0"."record_uuid", "t0"."name", "t0"."code", "t0"."country", "j1"."record_uuid", "j1"."name", "j1"."code" from (select "t0"."record_uuid", "t0"."name", "t0"."code", "t0"."country", "t0"."dbid", fw_sortkey("t0"."name") as "__sortkey_0" from "res_organization" as "t0" order by "__sortkey_0" asc, "t0"."dbid" asc limit ?) as "t0" left join "res_country" as "j1" on "j1"."record_uuid" = "t0"."country" order by "t0"."__sortkey_0" asc, "t0"."dbid" asc`;
// the same page in descending order (`name desc`, ties still by `dbid asc`): the index read backwards
const desc = (q: string) => q.replaceAll('fw_sortkey("t0"."name") asc', 'fw_sortkey("t0"."name") desc').replaceAll('"__sortkey_0" asc', '"__sortkey_0" desc');
for (const [label, q] of [['flat', flat], ['paged', paged], ['paged+index', paged], ['flat+index', flat], ['paged+index desc', desc(paged)], ['flat+index desc', desc(flat)]] as const) {
  if (label === 'paged+index') db.exec(compileSortIndex.create({ name: 'fw_sk_res_organization', table: 'res_organization', columns: [{ column: 'name', sortKey: true }] }, 'sqlite'));
  const st = db.prepare(q).raw(true);
  const n = N > 5000 ? 50 : 1000;
  for (let i = 0; i < n; i++) st.all(20);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) st.all(20);
  console.log(N, label, (Number(process.hrtime.bigint() - t0) / n / 1000).toFixed(0), 'µs');
}
}
