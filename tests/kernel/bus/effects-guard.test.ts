/**
 * What the env of a command that declares its effects lets through (src/kernel/bus/effects.ts
 * `guardEnv`), method by method on a real kernel (SQLite file): each Prisma read method with a
 * read or write effect, each write method only with a write effect, raw SQL and transactions only
 * for commands that declare writes, declared dispatches, events and topics; and the refusal's
 * message and details. tests/kernel/bus/effects.test.ts checks the same on both engines.
 */
import util from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandDecl, CommandEffect } from '../../../src/kernel/app.ts';
import { delegateOf } from '../../../src/kernel/data/delegate.ts';
import { systemPrincipal, type Env, type RootDbClient } from '../../../src/kernel/env.ts';
import { adminPrincipal, bootTestKernel, expectFwError, fixtureApp, type TestKernel } from '../../helpers/kernel.ts';

const T = 'effects';
/** The delegate with every Prisma method (the kernel's Delegate type names only those it uses). */
type AnyDelegate = Record<string, (args?: object) => Promise<unknown>>;
const countries = (env: Env) => delegateOf(env.db, env.registry.model('res.country')) as unknown as AnyDelegate;
const users = (env: Env) => delegateOf(env.db, env.registry.model('res.user'));

type Call = (env: Env) => Promise<unknown>;
const READS: Record<string, Call> = {
  findMany: (env) => countries(env).findMany({ where: { code: 'FR' } }),
  findFirst: (env) => countries(env).findFirst({ where: { code: 'FR' } }),
  findUnique: (env) => countries(env).findUnique({ where: { dbid: 1 } }),
  findFirstOrThrow: (env) => countries(env).findFirstOrThrow({ where: { code: 'FR' } }),
  findUniqueOrThrow: (env) => countries(env).findUniqueOrThrow({ where: { dbid: 1 } }),
  count: (env) => countries(env).count({}),
  aggregate: (env) => countries(env).aggregate({ _count: { _all: true } }),
  groupBy: (env) => countries(env).groupBy({ by: ['code'], where: { code: 'FR' } }),
};
const WRITES: Record<string, Call> = {
  updateMany: (env) => countries(env).updateMany({ where: { code: 'ZZ-none' }, data: { name: 'x' } }),
  deleteMany: (env) => countries(env).deleteMany({ where: { code: 'ZZ-none' } }),
  create: (env) => countries(env).create({ data: { name: 'Nowhere', code: 'QQ' } }),
};

/** A command per (declared effects, call): runs the call and answers what it got. */
const commands: CommandDecl[] = [];
const cmd = (name: string, effects: CommandEffect[], call: Call, extra: Partial<CommandDecl> = {}) => {
  commands.push({ name, effects, mutates: true, async handler(env) { await call(env); return { ok: true }; }, ...extra });
  return name;
};
for (const [method, call] of Object.entries(READS)) {
  cmd(`gx.read_${method}`, [{ read: 'res.country' }], call);
  cmd(`gx.write_${method}`, [{ write: 'res.country' }], call);
  cmd(`gx.none_${method}`, [{ read: 'res.user' }], call);
}
for (const [method, call] of Object.entries(WRITES)) {
  cmd(`gx.read_w_${method}`, [{ read: 'res.country' }], call);
  cmd(`gx.write_w_${method}`, [{ write: 'res.country' }], method === 'create' ? (env) => countries(env).count({}) : call);
}
cmd('gx.query_raw_read', [{ read: 'res.country' }], (env) => env.db.$queryRaw`SELECT 1`);
cmd('gx.execute_raw_read', [{ read: 'res.country' }], (env) => env.db.$executeRaw`UPDATE res_country SET name = name WHERE 1 = 0`);
type RawUnsafe = { $queryRawUnsafe(sql: string): Promise<unknown>; $executeRawUnsafe(sql: string): Promise<number> };
cmd('gx.query_raw_unsafe_read', [{ read: 'res.country' }], (env) => (env.db as unknown as RawUnsafe).$queryRawUnsafe('SELECT 1'));
cmd('gx.execute_raw_unsafe_read', [{ read: 'res.country' }], (env) => (env.db as unknown as RawUnsafe).$executeRawUnsafe('UPDATE res_country SET name = name WHERE 1 = 0'));
cmd('gx.query_raw_write', [{ write: 'res.country' }], (env) => env.db.$queryRaw`SELECT 1`);
cmd('gx.tx_read', [{ read: 'res.country' }], (env) => (env.db as unknown as { $transaction: (fns: unknown[]) => Promise<unknown> }).$transaction([]));
cmd('gx.tx_write', [{ write: 'res.country' }], (env) => (env.db as RootDbClient).$transaction(async (tx) => tx.$queryRaw`SELECT 1`));
cmd('gx.env_tx_read', [{ read: 'res.country' }], (env) => env.transaction(async () => 1), { transaction: false });
cmd('gx.detached_raw', [{ write: 'res.country' }], async (env) => {
  const { $executeRaw } = env.db;
  await $executeRaw`UPDATE res_country SET name = name WHERE 1 = 0`;
});
cmd('gx.env_tx_write', [{ write: 'res.country' }, { dispatch: 'fw.count' }], (env) => env.transaction(async (tx) => tx.dispatch('fw.count', { model: 'res.country' })), { transaction: false });
cmd('gx.env_tx_undeclared', [{ write: 'res.country' }, { dispatch: 'fw.count' }], (env) => env.transaction(async (tx) => {
  await tx.dispatch('fw.count', { model: 'res.country' });
  return tx.dispatch('fw.search', { model: 'res.country' });
}), { transaction: false });
cmd('gx.users_read', [{ read: 'res.user' }], (env) => users(env).count({}));
cmd('gx.emit', [{ emit: 'gx.happened' }], async (env) => { env.emit('gx.happened', { n: 1 }); });
cmd('gx.emit_other', [{ emit: 'gx.happened' }], async (env) => { env.emit('gx.other', {}); });
cmd('gx.publish', [{ publish: 'gx.topic' }], async (env) => { env.publish('gx.topic', { n: 2 }); });
cmd('gx.publish_other', [{ publish: 'gx.topic' }], async (env) => { env.publish('gx.elsewhere', {}); });
cmd('gx.dispatch', [{ dispatch: 'fw.count' }, { dispatch: 'fw.read_one' }], (env) => env.dispatch('fw.count', { model: 'res.country' }));
cmd('gx.after_commit', [], async (env) => { env.afterCommit(() => { afterCommitRan.push('ran'); }); });
commands.push({
  name: 'gx.who',
  effects: [],
  mutates: false,
  async handler(env) {
    return { kind: env.principal.kind, tenant: env.tenant, provider: env.provider, hasSettings: env.settings === undefined ? false : true, sudo: env.sudo().principal.kind };
  },
});
commands.push({
  name: 'gx.props',
  effects: [{ read: 'res.country' }],
  mutates: false,
  async handler(env) {
    const db = await Promise.resolve(env.db); // reads `then`, which the client does not have
    const c = countries(env) as unknown as AnyDelegate & { fields: Record<string, unknown>; name: string };
    const inspect = (c as unknown as Record<symbol, (...a: unknown[]) => unknown>)[util.inspect.custom];
    return {
      tag: Object.prototype.toString.call(db),
      name: c.name,
      field: typeof c.fields.code,
      // a column compared with another through a field reference
      sameNameAndCode: await c.count({ where: { name: { equals: c.fields.code } } }),
      inspected: typeof inspect.call(c, 2, {}, util.inspect), // as loupe (vitest's formatter) calls it
    };
  },
});
const afterCommitRan: string[] = [];

describe('what a command with declared effects may do', () => {
  let tk: TestKernel;
  const run = (name: string) => tk.kernel.dispatch(name, {}, adminPrincipal(T));

  beforeAll(async () => {
    tk = await bootTestKernel({
      apps: [fixtureApp('gx', { commands, eventHandlers: [{ id: 'gx.on_happened', event: 'gx.happened', handler: async () => {} }] })],
    });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('every Prisma read method of a model is allowed by a read effect or a write effect on it', async () => {
    for (const method of Object.keys(READS)) {
      expect(await run(`gx.read_${method}`), method).toEqual({ ok: true });
      expect(await run(`gx.write_${method}`), method).toEqual({ ok: true });
    }
  });

  it('reading a model the effects do not name is refused, naming the model and the method', async () => {
    for (const method of Object.keys(READS)) {
      const err = await expectFwError(run(`gx.none_${method}`), 500, 'UNDECLARED_EFFECT');
      expect(err.message).toBe(`gx.none_${method} reads res.country (${method}), which its declared effects do not allow`);
      expect(err.details).toEqual({ command: `gx.none_${method}`, effect: `reads res.country (${method})` });
    }
    expect(await run('gx.users_read')).toEqual({ ok: true });
  });

  it('every other delegate method is a write: refused with a read effect, allowed with a write effect', async () => {
    for (const method of Object.keys(WRITES)) {
      const err = await expectFwError(run(`gx.read_w_${method}`), 500, 'UNDECLARED_EFFECT');
      expect(err.message).toContain(`writes res.country (${method})`);
    }
    expect(await run('gx.write_w_updateMany')).toEqual({ ok: true });
    expect(await run('gx.write_w_deleteMany')).toEqual({ ok: true });
  });

  it('raw SQL and database transactions need a declared write', async () => {
    expect((await expectFwError(run('gx.query_raw_read'), 500, 'UNDECLARED_EFFECT')).message).toContain('runs raw SQL ($queryRaw)');
    expect((await expectFwError(run('gx.execute_raw_read'), 500, 'UNDECLARED_EFFECT')).message).toContain('runs raw SQL ($executeRaw)');
    expect(await run('gx.query_raw_write')).toEqual({ ok: true });
    expect((await expectFwError(run('gx.tx_read'), 500, 'UNDECLARED_EFFECT')).message).toContain('opens a write transaction');
    expect(await run('gx.tx_write')).toEqual({ ok: true });
  });

  it('raw SQL in any form needs a declared write: the Unsafe variants too', async () => {
    expect((await expectFwError(run('gx.query_raw_unsafe_read'), 500, 'UNDECLARED_EFFECT')).message).toContain('runs raw SQL ($queryRawUnsafe)');
    expect((await expectFwError(run('gx.execute_raw_unsafe_read'), 500, 'UNDECLARED_EFFECT')).message).toContain('runs raw SQL ($executeRawUnsafe)');
  });

  it('the methods the guarded client lets through are bound to the client: taken off it they still work', async () => {
    expect(await run('gx.detached_raw')).toEqual({ ok: true });
  });

  it('what is not a method passes through untouched: the client\'s missing `then`, symbol-keyed members, a delegate\'s name and field references', async () => {
    expect(await run('gx.props')).toEqual({ tag: '[object PrismaClient]', name: 'ResCountry', field: 'object', sameNameAndCode: 0, inspected: 'object' });
  });

  it('env.transaction is allowed with a declared write and keeps the guard inside', async () => {
    expect(await run('gx.env_tx_write')).toEqual({ ok: true });
    const err = await expectFwError(run('gx.env_tx_undeclared'), 500, 'UNDECLARED_EFFECT');
    expect(err.message).toContain('dispatches fw.search');
    const refused = await expectFwError(run('gx.env_tx_read'), 500, 'UNDECLARED_EFFECT');
    expect(refused.message).toBe('gx.env_tx_read opens a write transaction, which its declared effects do not allow');
  });

  it('declared dispatches, events and topics go through; an undeclared event or topic does not', async () => {
    expect(await run('gx.dispatch')).toEqual({ ok: true });
    expect(await run('gx.emit')).toEqual({ ok: true });
    const events = await tk.kernel.dispatch<{ count: number }>('fw.count', { model: 'ir.event', domain: [['name', '=', 'gx.happened']] }, systemPrincipal(T));
    expect(events.count).toBe(1);
    expect((await expectFwError(run('gx.emit_other'), 500, 'UNDECLARED_EFFECT')).message).toContain('emits gx.other');
    const got: unknown[] = [];
    const stop = await tk.kernel.subscribe(T, 'gx.topic', (m) => got.push(m));
    try {
      expect(await run('gx.publish')).toEqual({ ok: true });
      await new Promise((r) => setTimeout(r, 50));
      expect(got).toEqual([{ n: 2 }]);
    } finally {
      stop();
    }
    const err = await expectFwError(run('gx.publish_other'), 500, 'UNDECLARED_EFFECT');
    expect(err.message).toBe('gx.publish_other publishes on gx.elsewhere, which its declared effects do not allow');
  });

  it('afterCommit is always allowed; the guarded env keeps the caller, tenant and provider, and its sudo is the system', async () => {
    expect(await run('gx.after_commit')).toEqual({ ok: true });
    expect(afterCommitRan).toEqual(['ran']);
    expect(await run('gx.who')).toEqual({ kind: 'user', tenant: T, provider: 'sqlite', hasSettings: true, sudo: 'system' });
  });
});
