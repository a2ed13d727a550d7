/**
 * Floor: a bare graphql-yoga server whose `resOrganizations(limit)` returns workload 1's 50
 * objects from memory: the same query text, the same response bytes, no database, no auth.
 */
import fs from 'node:fs';
import http from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';
import { serveFloor } from './serve.ts';

const payload = JSON.parse(fs.readFileSync(process.env.FIXTURE!, 'utf8')) as { data: { resOrganizations: unknown[] } };
const orgs = payload.data.resOrganizations;
const yoga = createYoga({
  schema: createSchema({
    typeDefs: /* GraphQL */ `
      type ResCountry { id: ID! code: String name: String }
      type ResOrganization { id: ID! name: String code: String country: ResCountry }
      type Query { resOrganizations(limit: Int, offset: Int): [ResOrganization!]! }
    `,
    resolvers: { Query: { resOrganizations: (_: unknown, a: { limit?: number; offset?: number }) => orgs.slice(a.offset ?? 0, (a.offset ?? 0) + (a.limit ?? 50)) } },
  }),
  logging: false,
  landingPage: false,
  graphiql: false,
});
const server = http.createServer(yoga);
serveFloor(server);
