/**
 * When graphql-jit compiles (src/server/graphql/jit.ts): a document from its GRAPHQL_JIT_MIN_USES-th
 * execution on (2 by default), so a document sent once, as a flood of fresh ones is, runs on
 * graphql-js and is never compiled; 1 compiles at once, 0 never. The answers are the same
 * either way.
 */
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/kernel/settings.ts';
import { graphqlSettings } from '../../src/server/graphql/index.ts';
import { jitAfterUses } from '../../src/server/graphql/jit.ts';
import { gqlOk, startServerWithApps, type ApiServer } from '../helpers/api.ts';

describe('jitAfterUses', () => {
  it('with 2 (the default), a document is compiled from its second execution on, each document counted apart', () => {
    expect(graphqlSettings(loadSettings({})).GRAPHQL_JIT_MIN_USES).toBe(2);
    const compile = jitAfterUses(2);
    const a = parse('{ me { email } }');
    const b = parse('{ me { email } }');
    expect([compile(a), compile(a), compile(a)]).toEqual([false, true, true]);
    expect(compile(b)).toBe(false);
  });

  it('1 compiles at the first execution, 0 never', () => {
    const doc = parse('{ __typename }');
    expect(jitAfterUses(1)(doc)).toBe(true);
    const never = jitAfterUses(0);
    expect([never(doc), never(doc), never(doc)]).toEqual([false, false, false]);
  });
});

describe('on a server', () => {
  let ts: ApiServer;
  let token: string;
  beforeAll(async () => {
    ts = await startServerWithApps([]);
    token = await ts.adminToken();
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('the first (interpreted) and later (compiled) runs of a document answer the same', async () => {
    const q = '{ resOrganizations(limit: 50) { id name code country { code name } } me { email organization { name } } }';
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await gqlOk(ts, q, {}, { token }));
    expect(runs[0].me.email).toBe('admin@example.com');
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
  });
});
