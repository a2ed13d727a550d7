/**
 * Floor: a bare graphql-yoga server that answers workload 16's requests (and workload 1's list)
 * from the tenants' databases, as a GraphQL server with no read cache must (issue 30's rows 16c
 * and 1c). Nothing else: no
 * token check (the bearer token only picks the tenant's database), no session, no access check,
 * no record rule, no command bus, no outbox. Each read runs the one statement fw runs for it (the
 * same columns, the same joined country, the same text order — `fw_sortkey` through the sort
 * index on SQLite, `COLLATE "und-x-icu"` on PostgreSQL —, the page subquery for offsets and
 * unindexed orders); the write is one `UPDATE … RETURNING`, on each tenant's database as
 * `tenant-db.ts` opens it. The bench checks that every read answers fw's bytes before it is
 * measured. What this floor reaches, against the yoga floor (which slices 50 objects held in
 * memory), is the most a GraphQL server that reads per request can reach on this machine.
 *
 * `TENANTS` is a JSON file `{ "<token>": "<tenant database file, or PostgreSQL URL>" }`;
 * `DIALECT` is `sqlite` or `postgresql`.
 */
import fs from 'node:fs';
import http from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';
import { serveFloor } from './serve.ts';
import { openTenantDb, placeholders, type Dialect, type TenantDb } from './tenant-db.ts';

type Dir = 'asc' | 'desc';
interface ListArgs {
  limit?: number | null;
  offset?: number | null;
  where?: { name?: { contains?: string }; country?: { is?: { code?: { in?: string[] } } } } | null;
  orderBy?: Array<Partial<Record<'name' | 'code' | 'created_at_utc', Dir>>> | null;
}

const dialect: Dialect = process.env.DIALECT === 'postgresql' ? 'postgresql' : 'sqlite';
const postgres = dialect === 'postgresql';

const tenants = new Map<string, TenantDb>();
for (const [token, where] of Object.entries(JSON.parse(fs.readFileSync(process.env.TENANTS!, 'utf8')) as Record<string, string>)) {
  tenants.set(`Bearer ${token}`, openTenantDb(dialect, where));
}

const COLUMNS = '"t0"."record_uuid", "t0"."name", "t0"."code", "t0"."country", "j1"."record_uuid", "j1"."name", "j1"."code"';
const JOIN = 'left join "res_country" as "j1" on "j1"."record_uuid" = "t0"."country"';
const TEXT_FIELDS = new Set(['name', 'code']);

/**
 * fw's statement for a read of workload 16 (src/kernel/data/sql/reads.ts and compile.ts at the
 * commit the bench measures): the default order is the name's; a name order without an offset
 * reads the sort index flat with the join, any other page is cut in a subquery first and joined
 * after. Text orders: SQLite's sort key (the subquery carries it as `__sortkey_0`), PostgreSQL's
 * ICU collation.
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
  const text = TEXT_FIELDS.has(field);
  const ordered = text ? (postgres ? `"t0"."${field}" collate "und-x-icu"` : `fw_sortkey("t0"."${field}")`) : `"t0"."${field}"`;
  if (field === 'name' && !a.offset) {
    return { sql: placeholders(dialect, `select ${COLUMNS} from "res_organization" as "t0" ${JOIN}${filter} order by ${ordered} ${dir}, "t0"."dbid" asc limit ?`), params: [...params, limit] };
  }
  const base = '"t0"."record_uuid", "t0"."name", "t0"."code", "t0"."country"';
  let inner: string;
  let innerOrder: string;
  let outerOrder: string;
  if (text && !postgres) {
    inner = `${base}, "t0"."dbid", ${ordered} as "__sortkey_0"`;
    innerOrder = '"__sortkey_0"';
    outerOrder = '"t0"."__sortkey_0"';
  } else {
    inner = text ? `${base}, "t0"."dbid"` : `${base}, "t0"."${field}", "t0"."dbid"`;
    innerOrder = ordered;
    outerOrder = ordered;
  }
  const sql = `select ${COLUMNS} from (select ${inner} from "res_organization" as "t0"${filter} order by ${innerOrder} ${dir}, "t0"."dbid" asc limit ?${a.offset ? ' offset ?' : ''}) as "t0" ${JOIN} order by ${outerOrder} ${dir}, "t0"."dbid" asc`;
  return { sql: placeholders(dialect, sql), params: [...params, limit, ...(a.offset ? [a.offset] : [])] };
}

const UPDATE = placeholders(dialect, 'update "res_organization" set "name" = ?, "updated_at_utc" = ?, "revision" = "revision" + 1 where "record_uuid" = ? returning "record_uuid", "revision"');

const tenantOf = (req: Request): TenantDb => {
  const t = tenants.get(req.headers.get('authorization') ?? '');
  if (!t) throw new Error('unknown tenant');
  return t;
};

const toOrganization = (r: unknown[]) => ({ id: r[0], name: r[1], code: r[2], country: r[4] === null ? null : { id: r[4], name: r[5], code: r[6] } });

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
          // SQLite answers at once: no promise where none is needed
          const rows = tenantOf(ctx.request).rows(sql, params);
          return rows instanceof Promise ? rows.then((r) => r.map(toOrganization)) : rows.map(toOrganization);
        },
      },
      Mutation: {
        resOrganizationUpdate: (_: unknown, a: { id: string; input: { name?: string } }, ctx) => {
          // fw's stored form of a timestamp (`…+00:00` text on SQLite; a timestamptz on PostgreSQL)
          const row = tenantOf(ctx.request).write(UPDATE, [a.input.name, new Date().toISOString().replace('Z', '+00:00'), a.id]);
          const answer = (r: unknown[] | undefined) => (r ? { id: r[0], revision: r[1] } : null);
          return row instanceof Promise ? row.then(answer) : answer(row);
        },
      },
    },
  }),
  logging: false,
  landingPage: false,
  graphiql: false,
});
serveFloor(http.createServer(yoga));
