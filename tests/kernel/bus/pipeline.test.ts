/**
 * The command pipeline of src/kernel/bus/pipeline.ts and hooks.ts, through a real kernel (SQLite
 * file) and fixture commands: what is checked before a handler runs (payload shape, anonymous
 * callers, roles, model access, declared input and its coercion), what a record command and its
 * hooks see, which command an event is recorded as coming from, `track_fields` and the
 * `<model>.field_changed` events it emits, and the change notices published after commit.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CommandDecl, HookContext, HookDecl } from '../../../src/kernel/app.ts';
import { makeEnv, newSink, type EnvCore } from '../../../src/kernel/bus/pipeline.ts';
import { f } from '../../../src/kernel/declare.ts';
import { anonymousPrincipal, systemPrincipal, type DbClient, type Principal, type RootDbClient } from '../../../src/kernel/env.ts';
import { ValidationError } from '../../../src/kernel/errors.ts';
import { adminPrincipal, bootTestKernel, errorCodes, expectFwError, fixtureApp, userPrincipal, type TestKernel } from '../../helpers/kernel.ts';

const T = 'pipeline';
type Row = Record<string, unknown> & { id: string };

/** What the fixture hooks and handlers saw. */
const seen: { hooks: Array<{ point: string; op: string; model: string; payload: Record<string, unknown>; before?: unknown; after?: unknown; changes?: unknown }>; handler: Record<string, unknown>[] } = { hooks: [], handler: [] };
const record = (point: string) => (ctx: HookContext) => {
  seen.hooks.push({ point, op: ctx.op, model: ctx.model, payload: { ...ctx.payload }, before: ctx.before, after: ctx.after, changes: ctx.changes });
};

const commands: CommandDecl[] = [
  {
    name: 'bx.echo',
    mutates: false,
    input: {
      n: f.integer({ required: true }),
      s: f.char(5),
      at: f.datetime(),
      stage: f.enum(['a', 'b'], { default: 'a' }),
      flag: f.boolean(),
    },
    async handler(_env, p) { seen.handler.push(p); return { ...p }; },
  },
  { name: 'bx.free', mutates: false, async handler(_env, p) { seen.handler.push(p); return { got: p }; } },
  { name: 'bx.admins', mutates: false, roles: ['admin'], async handler() { return { ok: true }; } },
  { name: 'bx.open', mutates: false, public: true, async handler(env) { return { kind: env.principal.kind }; } },
  {
    name: 'bx.upload',
    mutates: false,
    file_upload: true,
    internal: true,
    input: { title: f.char(20) },
    async handler(_env, p) { return { keys: Object.keys(p).sort() }; },
  },
  {
    name: 'crm.lead.bx_touch',
    model: 'crm.lead',
    record: true,
    op: 'update',
    input: { note: f.char(50) },
    async handler(env, p) {
      env.emit('bx.touched', { id: p.id });
      return { id: p.id, note: p.note ?? null };
    },
  },
  {
    name: 'crm.lead.bx_list',
    model: 'crm.lead',
    op: 'read',
    mutates: false,
    async handler() { return [1, 2]; },
  },
  {
    name: 'bx.outer',
    async handler(env) {
      env.emit('bx.event', { at: 'outer-before' });
      await env.dispatch('bx.inner', {});
      env.emit('bx.event', { at: 'outer-after' });
      return null;
    },
  },
  { name: 'bx.inner', async handler(env) { env.emit('bx.event', { at: 'inner' }); return null; } },
  { name: 'bx.sudo', mutates: false, async handler(env) { const s = env.sudo(); return { kind: s.principal.kind, tenant: s.tenant, same: s.sudo() === s }; } },
  { name: 'bx.env', mutates: false, async handler(env) { return { deterministicIds: env.deterministicIds ?? null }; } },
  { name: 'bx.level', mutates: false, input: { level: f.integer({ required: true, default: 1 }) }, async handler(_env, p) { return { ...p }; } },
  { name: 'crm.lead.bx_null', op: 'read', mutates: false, async handler() { return null; } },
  { name: 'crm.lead.bx_text', op: 'read', mutates: false, async handler() { return 'done'; } },
  { name: 'crm.lead.bx_bare', op: 'read', mutates: false, async handler() { return { ok: true }; } },
];

const hooks: HookDecl[] = [
  { point: 'pre.crm.lead.bx_touch', handler: record('pre.crm.lead.bx_touch') },
  { point: 'post.crm.lead.bx_touch', handler: record('post.crm.lead.bx_touch') },
  { point: 'post.crm.lead.bx_list', handler: record('post.crm.lead.bx_list') },
  // two hooks tracking `name`: one field_changed event per field and update, however many track it
  { point: 'post.crm.lead.update', track_fields: ['name', 'expected_revenue'], handler: record('track:name,expected_revenue') },
  { point: 'post.crm.lead.update', track_fields: ['name'], handler: record('track:name') },
  { point: 'post.crm.lead.update', track_fields: ['notes'], handler: record('track:notes') },
  // no before on create, no after on delete: nothing to compare
  { point: 'post.crm.lead.create', track_fields: ['name'], handler: record('track-create:name') },
  { point: 'post.crm.lead.delete', track_fields: ['name'], handler: record('track-delete:name') },
  { point: 'post.crm.lead.bx_null', handler: record('post.crm.lead.bx_null') },
  { point: 'post.crm.lead.bx_text', handler: record('post.crm.lead.bx_text') },
  // points the app declares (it would run them itself): named like the model-less bx.free, yet
  // the bus never runs them around that command
  { point: 'pre.bx.free', handler: record('pre.bx.free') },
  { point: 'post.bx.free', handler: record('post.bx.free') },
  // declared without a handler and nothing to track
  { point: 'pre.crm.lead.bx_bare' },
  { point: 'post.crm.lead.bx_bare' },
];

const app = fixtureApp('bx', {
  commands,
  hooks,
  hookPoints: ['pre.bx.free', 'post.bx.free'],
  events: ['bx.event', 'bx.touched'],
  eventHandlers: [
    { id: 'bx.on_event', event: 'bx.event', handler: async () => {} },
    { id: 'bx.on_touched', event: 'bx.touched', handler: async () => {} },
    { id: 'bx.on_field_changed', event: 'crm.lead.field_changed', handler: async () => {} },
    { id: 'bx.on_org_field_changed', event: 'res.organization.field_changed', handler: async () => {} },
  ],
});

describe('the command pipeline', () => {
  let tk: TestKernel;
  const admin = adminPrincipal(T);
  const run = <R = Row>(command: string, payload: Record<string, unknown>, p: Principal = admin) => tk.kernel.dispatch<R>(command, payload, p);
  const outbox = async (name: string) =>
    (await run<{ items: Row[] }>('fw.search', { model: 'ir.event', domain: [['name', '=', name]], order: 'dbid asc' }, systemPrincipal(T))).items;
  let lead: string;

  beforeAll(async () => {
    tk = await bootTestKernel({ apps: [app], worker: false });
    lead = (await run('fw.create', { model: 'crm.lead', values: { name: 'Lead 1', expected_revenue: 5 } })).id;
  });
  afterAll(async () => {
    await tk?.cleanup();
  });
  beforeEach(() => {
    seen.hooks.length = 0;
    seen.handler.length = 0;
  });

  describe('before the handler', () => {
    it('a payload that is not a JSON object is 400 INVALID_PAYLOAD', async () => {
      for (const p of [null, [], 'x', 3]) {
        const err = await expectFwError(run('bx.free', p as unknown as Record<string, unknown>), 400, 'INVALID_PAYLOAD');
        expect(err.message).toBe('a command payload is a JSON object');
      }
      expect(seen.handler).toEqual([]);
    });

    it('an anonymous caller runs only public commands (401 UNAUTHENTICATED naming the command)', async () => {
      const err = await expectFwError(run('bx.free', {}, anonymousPrincipal(T)), 401, 'UNAUTHENTICATED');
      expect(err.message).toBe('bx.free needs an authenticated caller');
      expect(await run('bx.open', {}, anonymousPrincipal(T))).toEqual({ kind: 'anonymous' });
      expect(await run('bx.open', {}, admin)).toEqual({ kind: 'user' });
    });

    it('a command limited to roles refuses the others with 403, and never the system', async () => {
      expect(await run('bx.admins', {})).toEqual({ ok: true });
      expect(await run('bx.admins', {}, systemPrincipal(T))).toEqual({ ok: true });
      const err = await expectFwError(run('bx.admins', {}, userPrincipal(T)), 403, 'ACCESS_DENIED');
      expect(err.message).toBe('role "user" may not run bx.admins');
      expect(err.details).toEqual({ command: 'bx.admins' });
    });

    it('a model command needs its operation on the model', async () => {
      await expectFwError(run('crm.lead.bx_list', {}, userPrincipal(T, { role: 'qa' })), 403, 'ACCESS_DENIED');
      expect(await run('crm.lead.bx_list', {}, userPrincipal(T))).toEqual([1, 2]);
    });
  });

  describe('declared input', () => {
    it('values are coerced (a date-time becomes ISO text in UTC) and defaults fill what is missing', async () => {
      expect(await run('bx.echo', { n: 3, at: '2026-05-06T07:08:09+02:00' })).toEqual({ n: 3, at: '2026-05-06T05:08:09.000Z', stage: 'a' });
      expect(await run('bx.echo', { n: 3, stage: 'b', flag: false, s: 'abc' })).toEqual({ n: 3, stage: 'b', flag: false, s: 'abc' });
    });

    it('null or a missing optional value is left out; a missing or null required one is REQUIRED', async () => {
      const echoed = await run('bx.echo', { n: 1, s: null, flag: undefined });
      expect(echoed).toEqual({ n: 1, stage: 'a' });
      expect(Object.keys(echoed).sort()).toEqual(['n', 'stage']); // left out, not set to undefined
      const missing = await expectFwError(run('bx.echo', {}), 422, 'VALIDATION_FAILED');
      expect(missing).toBeInstanceOf(ValidationError);
      expect(errorCodes(missing)).toEqual({ n: 'REQUIRED' });
      expect(missing.message).toBe('"n" is required');
      expect(missing.details!.command).toBe('bx.echo');
      const nulled = await expectFwError(run('bx.echo', { n: null }), 422, 'VALIDATION_FAILED');
      expect(nulled.details!.errors).toEqual([{ field: 'n', code: 'REQUIRED', message: '"n" is required' }]);
    });

    it('every problem is reported at once: unknown keys, wrong types, values too long', async () => {
      const err = await expectFwError(run('bx.echo', { n: 'x', s: 'toolong', extra: 1, stage: 'c' }), 422, 'VALIDATION_FAILED');
      expect(errorCodes(err)).toEqual({ n: 'INVALID_TYPE', s: 'INVALID_TYPE', extra: 'UNKNOWN_FIELD', stage: 'INVALID_TYPE' });
      expect(err.message).toBe('"n": expected an integer, got "x"; "s": longer than 5 characters; bx.echo takes no "extra"; "stage": expected one of a, b, got "c"');
      expect(seen.handler).toEqual([]);
    });

    it('a missing required value is reported besides the other problems', async () => {
      const err = await expectFwError(run('bx.echo', { extra: 1 }), 422, 'VALIDATION_FAILED');
      expect(errorCodes(err)).toEqual({ extra: 'UNKNOWN_FIELD', n: 'REQUIRED' });
    });

    it('a required value with a default takes it when missing; sent as null it is REQUIRED', async () => {
      expect(await run('bx.level', {})).toEqual({ level: 1 });
      expect(await run('bx.level', { level: 3 })).toEqual({ level: 3 });
      const err = await expectFwError(run('bx.level', { level: null }), 422, 'VALIDATION_FAILED');
      expect(errorCodes(err)).toEqual({ level: 'REQUIRED' });
    });

    it('a command without declared input gets a copy of the payload as it came', async () => {
      const payload = { anything: { goes: [1] } };
      expect(await run('bx.free', payload)).toEqual({ got: payload });
      expect(seen.handler[0]).not.toBe(payload);
    });

    it('"id" is taken only by record commands', async () => {
      const err = await expectFwError(run('bx.echo', { n: 1, id: lead }), 422, 'VALIDATION_FAILED');
      expect(errorCodes(err)).toEqual({ id: 'UNKNOWN_FIELD' });
      expect(await run('crm.lead.bx_touch', { id: lead, note: 'x' })).toEqual({ id: lead, note: 'x' });
    });

    it('a record command takes "id" besides its input, and no other undeclared key', async () => {
      const err = await expectFwError(run('crm.lead.bx_touch', { id: lead, extra: 1 }), 422, 'VALIDATION_FAILED');
      expect(errorCodes(err)).toEqual({ extra: 'UNKNOWN_FIELD' });
    });

    it('a file-upload command gets the transport\'s file keys besides its declared input, which is still checked', async () => {
      expect(await run('bx.upload', { title: 't', stream: 's', filename: 'f', content_type: 'c', declared_size: 1 }))
        .toEqual({ keys: ['content_type', 'declared_size', 'filename', 'stream', 'title'] });
      expect(await run('bx.upload', { title: 't' })).toEqual({ keys: ['title'] });
      const bad = await expectFwError(run('bx.upload', { title: 'x'.repeat(21), filename: 'f', extra: 1 }), 422, 'VALIDATION_FAILED');
      expect(errorCodes(bad)).toEqual({ title: 'INVALID_TYPE', extra: 'UNKNOWN_FIELD' });
      const err = await expectFwError(run('bx.echo', { n: 1, filename: 'f' }), 422, 'VALIDATION_FAILED');
      expect(errorCodes(err)).toEqual({ filename: 'UNKNOWN_FIELD' });
    });
  });

  describe('record commands and their hooks', () => {
    it('the hooks of <model>.<verb> see the verb, the checked payload, the record as before {id} and the result as after', async () => {
      await run('crm.lead.bx_touch', { id: lead, note: 'n1' });
      expect(seen.hooks.map((h) => h.point)).toEqual(['pre.crm.lead.bx_touch', 'post.crm.lead.bx_touch']);
      const [pre, post] = seen.hooks;
      expect(pre).toMatchObject({ op: 'bx_touch', model: 'crm.lead', payload: { id: lead, note: 'n1' }, before: { id: lead }, after: undefined });
      expect(post).toMatchObject({ before: { id: lead }, after: { id: lead, note: 'n1' } });
    });

    it('a result that is not a record (a list, null, a text) reaches the post hook as no "after"', async () => {
      await run('crm.lead.bx_list', {});
      expect(seen.hooks).toHaveLength(1);
      expect(seen.hooks[0].after).toBeUndefined();
      expect(seen.hooks[0].before).toBeUndefined();
      expect(await run('crm.lead.bx_null', {})).toBeNull();
      expect(await run('crm.lead.bx_text', {})).toBe('done');
      expect(seen.hooks.map((h) => [h.point, h.after])).toEqual([
        ['post.crm.lead.bx_list', undefined], ['post.crm.lead.bx_null', undefined], ['post.crm.lead.bx_text', undefined],
      ]);
    });

    it('a command without a model runs no hooks, not even at declared points named like it (pre/post.bx.free)', async () => {
      expect(await run('bx.free', { a: 1 })).toEqual({ got: { a: 1 } });
      expect(seen.hooks).toEqual([]);
    });

    it('a hook declared without a handler (and nothing to track) does nothing', async () => {
      expect(await run('crm.lead.bx_bare', {})).toEqual({ ok: true });
    });

    it('a record the caller cannot see is 404, and no hook runs', async () => {
      const orgA = (await run('fw.create', { model: 'res.organization', values: { name: 'Org PA' } })).id;
      const user = userPrincipal(T, { organization_id: orgA });
      await expectFwError(run('crm.lead.bx_touch', { id: lead }, user), 404, 'RECORD_NOT_FOUND');
      await expectFwError(run('crm.lead.bx_touch', { id: '00000000-0000-4000-8000-000000000000' }), 404, 'RECORD_NOT_FOUND');
      expect(seen.hooks).toEqual([]);
    });
  });

  describe('events', () => {
    it('an event is recorded as coming from the command that emitted it, nested ones from the inner command', async () => {
      const before = (await outbox('bx.event')).length;
      await run('bx.outer', {});
      const rows = (await outbox('bx.event')).slice(before);
      expect(rows.map((r) => [(r.payload as { at: string }).at, r.source])).toEqual([
        ['outer-before', 'bx.outer'], ['inner', 'bx.inner'], ['outer-after', 'bx.outer'],
      ]);
      const touched = await outbox('bx.touched');
      expect(touched.at(-1)).toMatchObject({ source: 'crm.lead.bx_touch', payload: { id: lead } });
    });

    it('track_fields: one <model>.field_changed per changed tracked field, with old and new values; hooks see the changes', async () => {
      const before = (await outbox('crm.lead.field_changed')).length;
      await run('fw.update', { model: 'crm.lead', id: lead, values: { name: 'Lead 1b', expected_revenue: 9, stage: 'won' } });
      const rows = (await outbox('crm.lead.field_changed')).slice(before);
      expect(rows.map((r) => r.payload)).toEqual([
        { field: 'name', old_value: 'Lead 1', new_value: 'Lead 1b', record_id: lead, model: 'crm.lead' },
        { field: 'expected_revenue', old_value: 5, new_value: 9, record_id: lead, model: 'crm.lead' },
      ]);
      expect(rows.every((r) => r.source === 'fw.update')).toBe(true);
      const tracked = seen.hooks.filter((h) => h.point.startsWith('track:'));
      expect(tracked.map((h) => h.point)).toEqual(['track:name,expected_revenue', 'track:name']);
      expect(tracked[0].changes).toEqual([
        { field: 'name', old_value: 'Lead 1', new_value: 'Lead 1b' }, { field: 'expected_revenue', old_value: 5, new_value: 9 },
      ]);
      expect(tracked[1].changes).toEqual([{ field: 'name', old_value: 'Lead 1', new_value: 'Lead 1b' }]);
    });

    it('a tracked field set to the value it had emits nothing and its hook does not run; null and unset are the same', async () => {
      const before = (await outbox('crm.lead.field_changed')).length;
      await run('fw.update', { model: 'crm.lead', id: lead, values: { name: 'Lead 1b', notes: null } });
      expect((await outbox('crm.lead.field_changed')).length).toBe(before);
      expect(seen.hooks.filter((h) => h.point.startsWith('track:'))).toEqual([]);
    });

    it('tracked fields are compared on update only: a track_fields hook does not run on create (no before) or delete (no after)', async () => {
      const before = (await outbox('crm.lead.field_changed')).length;
      const l = await run('fw.create', { model: 'crm.lead', values: { name: 'Tracked on create' } });
      await run('fw.delete', { model: 'crm.lead', id: l.id });
      expect((await outbox('crm.lead.field_changed')).length).toBe(before);
      expect(seen.hooks.filter((h) => h.point.startsWith('track-'))).toEqual([]);
    });

    it('a track_fields hook without a handler only emits the events (the base app\'s on res.organization code)', async () => {
      const org = await run('fw.create', { model: 'res.organization', values: { name: 'Org tracked', code: 'ot1' } });
      await run('fw.update', { model: 'res.organization', id: org.id, values: { code: 'ot2' } });
      expect((await outbox('res.organization.field_changed')).map((r) => r.payload)).toEqual([
        { field: 'code', old_value: 'ot1', new_value: 'ot2', record_id: org.id, model: 'res.organization' },
      ]);
    });

    it('an event emitted outside any command is recorded as coming from the origin of the run (e.g. handler:<id>), else "unknown"; commands it dispatches record their own name', async () => {
      const client = await tk.kernel.tenants.get(T);
      await tk.kernel.execute(client, systemPrincipal(T), async (env) => {
        env.emit('bx.event', { at: 'handler' });
        await env.dispatch('crm.lead.bx_touch', { id: lead });
      }, true, 'handler:bx.on_something');
      expect((await outbox('bx.event')).at(-1)).toMatchObject({ source: 'handler:bx.on_something', payload: { at: 'handler' } });
      expect((await outbox('bx.touched')).at(-1)).toMatchObject({ source: 'crm.lead.bx_touch', payload: { id: lead } });
      await tk.kernel.execute(client, systemPrincipal(T), async (env) => { env.emit('bx.event', { at: 'outside' }); });
      expect((await outbox('bx.event')).at(-1)).toMatchObject({ source: 'unknown', payload: { at: 'outside' } });
    });

    it('clearing a tracked field reports null as the new value; setting it reports null as the old one', async () => {
      await run('fw.update', { model: 'crm.lead', id: lead, values: { notes: 'first' } });
      await run('fw.update', { model: 'crm.lead', id: lead, values: { notes: null } });
      const rows = (await outbox('crm.lead.field_changed')).slice(-2);
      expect(rows.map((r) => r.payload)).toEqual([
        { field: 'notes', old_value: null, new_value: 'first', record_id: lead, model: 'crm.lead' },
        { field: 'notes', old_value: 'first', new_value: null, record_id: lead, model: 'crm.lead' },
      ]);
    });
  });

  describe('after commit', () => {
    it('generic writes publish changed:<model> with the operation and id (a delete of a model with rules also the values they read); reads and failed writes publish nothing; a batch publishes its records\' writes', async () => {
      const got: unknown[] = [];
      const stop = await tk.kernel.subscribe(T, 'changed:crm.lead', (m) => got.push(m));
      try {
        const created = await run('fw.create', { model: 'crm.lead', values: { name: 'Published' } });
        await run('fw.update', { model: 'crm.lead', id: created.id, values: { stage: 'won' } });
        await run('fw.search', { model: 'crm.lead' });
        await run('fw.read_one', { model: 'crm.lead', id: created.id });
        await expectFwError(run('fw.update', { model: 'crm.lead', id: created.id, values: { stage: 'nope' } }), 422, 'VALIDATION_FAILED');
        await run('crm.lead.bx_touch', { id: created.id });
        await run('fw.update_many', { model: 'crm.lead', domain: [['name', '=', 'Published']], values: { stage: 'lost' } });
        await run('fw.delete', { model: 'crm.lead', id: created.id });
        await new Promise((r) => setTimeout(r, 50));
        expect(got).toEqual([
          { model: 'crm.lead', op: 'create', id: created.id },
          { model: 'crm.lead', op: 'update', id: created.id },
          { model: 'crm.lead', op: 'update', id: created.id }, // the fw.update the batch dispatched, nothing for the batch itself
          // crm.lead has record rules: the delete notice carries the values they read (for subscribers' rules)
          { model: 'crm.lead', op: 'delete', id: created.id, before: { dbid: expect.any(Number), record_uuid: created.id, organization: created.organization ?? null } },
        ]);
      } finally {
        stop();
      }
    });
  });

  describe('the env', () => {
    it('sudo is the system principal of the same tenant; the system\'s sudo is itself', async () => {
      expect(await run('bx.sudo', {}, userPrincipal(T))).toEqual({ kind: 'system', tenant: T, same: true });
    });

    it('env.deterministicIds is set exactly for the tenants the kernel was told to give deterministic ids', async () => {
      expect(await run('bx.env', {})).toEqual({ deterministicIds: null });
      tk.kernel.useDeterministicIds(T);
      try {
        expect(await run('bx.env', {})).toEqual({ deterministicIds: true });
      } finally {
        tk.kernel.deterministicIds.delete(T);
      }
    });

    it('every run starts with an empty sink, which writes in a transaction exactly when the run does', async () => {
      const client = await tk.kernel.tenants.get(T);
      for (const write of [true, false]) {
        const sink = await tk.kernel.execute(client, admin, async (_env, s) => ({ ...s }), write);
        expect(sink).toEqual({ events: [], changes: [], current: [], afterCommit: [], rollback: [], inTransaction: write });
      }
    });

    it('env.transaction gives its transaction 10 s to get a connection and 60 s to run (Prisma\'s defaults: 2 s and 5 s)', async () => {
      const options: unknown[] = [];
      const db = {
        async $transaction<R>(fn: (tx: DbClient) => Promise<R>, o?: object) { options.push(o); return fn(db); },
      } as unknown as RootDbClient;
      const core: EnvCore = tk.kernel;
      expect(await makeEnv(core, db, admin, newSink(false)).transaction(async () => 'done')).toBe('done');
      expect(options).toEqual([{ maxWait: 10_000, timeout: 60_000 }]);
    });
  });
});
