/**
 * Floor: a bare graphql-yoga server that answers workload 16's requests from the tenants' SQLite
 * files, as a GraphQL server with no read cache must (issue 30's row 16c). Nothing else: no
 * token check (the bearer token only picks the tenant's file), no session, no access check, no
 * record rule, no command bus, no outbox. Each read runs the one statement fw runs for it (the
 * same columns, the same joined country, `fw_sortkey` orders through the sort index, the page
 * subquery for offsets and unindexed orders) on a read-only connection per tenant, prepared once;
 * the write is one `UPDATE … RETURNING` on a writable connection per tenant. The bench checks
 * that every read answers fw's bytes before it is measured. What this floor reaches, against the
 * yoga floor (which slices 50 objects held in memory), is the most a GraphQL server that reads
 * per request can reach on this machine.
 *
 * `TENANTS` is a JSON file `{ "<token>": "<tenant database file>" }`.
 */
import fs from 'node:fs';
import http from 'node:http';
import Database from 'better-sqlite3';
import { createSchema, createYoga } from 'graphql-yoga';
import { registerSortKey } from '../../src/kernel/data/collation.ts';
import { serveFloor } from './serve.ts';

type Dir = 'asc' | 'desc';
interface ListArgs {
  limit?: number | null;
  offset?: number | null;
  where?: { name?: { contains?: string }; country?: { is?: { code?: { in?: string[] } } } } | null;
  orderBy?: Array<Partial<Record<'name' | 'code' | 'created_at_utc', Dir>>> | null;
}

interface Tenant {
  statement(sql: string): Database.Statement<unknown[], unknown[]>;
  write: Database.Database;
}

const tenants = new Map<string, Tenant>();
for (const [token, file] of Object.entries(JSON.parse(fs.readFileSync(process.env.TENANTS!, 'utf8')) as Record<string, string>)) {
  const read = registerSortKey(new Database(file, { readonly: true }));
  const write = registerSortKey(new Database(file));
  const prepared = new Map<string, Database.Statement<unknown[], unknown[]>>();
  const statement = (sql: string) => {
    let st = prepared.get(sql);
    if (!st) prepared.set(sql, (st = read.prepare<unknown[], unknown[]>(sql).raw(true)));
    return st;
  };
  tenants.set(`Bearer ${token}`, { statement, write });
}

const COLUMNS = '"t0"."record_uuid", "t0"."name", "t0"."code", "t0"."country", "j1"."record_uuid", "j1"."name", "j1"."code"';
const JOIN = 'left join "res_country" as "j1" on "j1"."record_uuid" = "t0"."country"';

/**
 * fw's statement for a read of workload 16 (src/kernel/data/sql/reads.ts at the commit the bench
 * measures): the default order is the name's; a name order without an offset reads the sort
 * index flat with the join, any other page is cut in a subquery first and joined after.
 */
function statementOf(a: ListArgs): { sql: string; params: unknown[] } {
  const [field, dir] = (Object.entries(a.orderBy?.[0] ?? { name: 'asc' })[0] ?? ['name', 'asc']) as [string, Dir];
  const where: string[] = [];
  const params: unknown[] = [];
  if (a.where?.name?.contains !== undefined) {
    where.push('"t0"."name" like ?');
    params.push(`%${a.where.name.contains}%`);
  }
  const codes = a.where?.country?.is?.code?.in;
  if (codes) {
    where.push(`exists (select 1 as "one" from "res_country" as "t1" where ("t1"."record_uuid" = "t0"."country" and "t1"."code" in (${codes.map(() => '?').join(', ')})))`);
    params.push(...codes);
  }
  const filter = where.length ? ` where ${where.join(' and ')}` : '';
  const limit = a.limit ?? 50;
  if (field === 'name' && !a.offset) {
    return { sql: `select ${COLUMNS} from "res_organization" as "t0" ${JOIN}${filter} order by fw_sortkey("t0"."name") ${dir}, "t0"."dbid" asc limit ?`, params: [...params, limit] };
  }
  const text = field === 'name' || field === 'code';
  const key = text ? `fw_sortkey("t0"."${field}") as "__sortkey_0"` : `"t0"."${field}"`;
  const inner = text ? '"__sortkey_0"' : `"t0"."${field}"`;
  const outer = text ? '"t0"."__sortkey_0"' : `"t0"."${field}"`;
  const sql = `select ${COLUMNS} from (select "t0"."record_uuid", "t0"."name", "t0"."code", "t0"."country", ${text ? '"t0"."dbid", ' + key : key + ', "t0"."dbid"'} from "res_organization" as "t0"${filter} order by ${inner} ${dir}, "t0"."dbid" asc limit ?${a.offset ? ' offset ?' : ''}) as "t0" ${JOIN} order by ${outer} ${dir}, "t0"."dbid" asc`;
  return { sql, params: [...params, limit, ...(a.offset ? [a.offset] : [])] };
}

const tenantOf = (req: Request): Tenant => {
  const t = tenants.get(req.headers.get('authorization') ?? '');
  if (!t) throw new Error('unknown tenant');
  return t;
};

const writes = new Map<Database.Database, Database.Statement<unknown[], unknown[]>>();

const yoga = createYoga<{ request: Request }>({
  schema: createSchema<{ request: Request }>({
    typeDefs: /* GraphQL */ `
      enum Dir { asc desc }
      input TextFilter { contains: String in: [String!] }
      input ResCountryWhere { code: TextFilter }
      input ResCountryIs { is: ResCountryWhere }
      input ResOrganizationWhere { name: TextFilter country: ResCountryIs }
      input ResOrganizationOrderBy { name: Dir code: Dir created_at_utc: Dir }
      input ResOrganizationUpdateInput { name: String }
      type ResCountry { id: ID! code: String name: String }
      type ResOrganization { id: ID! name: String code: String country: ResCountry revision: Int }
      type Query { resOrganizations(limit: Int, offset: Int, where: ResOrganizationWhere, orderBy: [ResOrganizationOrderBy!]): [ResOrganization!]! }
      type Mutation { resOrganizationUpdate(id: ID!, input: ResOrganizationUpdateInput!): ResOrganization }
    `,
    resolvers: {
      Query: {
        resOrganizations: (_: unknown, a: ListArgs, ctx) => {
          const { sql, params } = statementOf(a);
          return (tenantOf(ctx.request).statement(sql).all(...params) as unknown[][]).map((r) => ({
            id: r[0], name: r[1], code: r[2], country: r[4] === null ? null : { id: r[4], name: r[5], code: r[6] },
          }));
        },
      },
      Mutation: {
        resOrganizationUpdate: (_: unknown, a: { id: string; input: { name?: string } }, ctx) => {
          const db = tenantOf(ctx.request).write;
          let st = writes.get(db);
          if (!st) {
            st = db.prepare<unknown[], unknown[]>('update "res_organization" set "name" = ?, "updated_at_utc" = ?, "revision" = "revision" + 1 where "record_uuid" = ? returning "record_uuid", "revision"').raw(true);
            writes.set(db, st);
          }
          const row = st.get(a.input.name, new Date().toISOString().replace('Z', '+00:00'), a.id) as unknown[] | undefined;
          return row ? { id: row[0], revision: row[1] } : null;
        },
      },
    },
  }),
  logging: false,
  landingPage: false,
  graphiql: false,
});
serveFloor(http.createServer(yoga));
