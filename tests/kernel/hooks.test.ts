/**
 * Hooks: `pre.<model>.<op>` hooks run before the operation, `post.<model>.<op>` after it, in
 * `sequence` order, inside the command's transaction. A pre hook vetoes by throwing and may
 * rewrite the payload; anything a command dispatches from inside runs in the same transaction.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HookContext, HookDecl } from '../../src/kernel/app.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { Conflict, ValidationError } from '../../src/kernel/errors.ts';
import { adminPrincipal, bootTestKernel, expectFwError, fixtureApp, type TestKernel } from '../helpers/kernel.ts';

const trace: string[] = [];
const TRACED = 'trace:';
const nameOf = (ctx: HookContext) => String(ctx.payload.name ?? ctx.before?.name ?? ctx.after?.name ?? '');
const traced = (ctx: HookContext) => nameOf(ctx).startsWith(TRACED);
/** Rows of crm.lead with this name, read inside the hook's own transaction. */
const rowsNamed = (ctx: HookContext, name: string) => delegateOf(ctx.env.db, ctx.env.registry.model('crm.lead')).count({ where: { name } });

const hooks: HookDecl[] = [
  { point: 'pre.crm.lead.create', sequence: 20, handler: (ctx) => { if (traced(ctx)) trace.push('pre:20'); } },
  {
    point: 'pre.crm.lead.create', sequence: 5,
    async handler(ctx) { if (traced(ctx)) trace.push(`pre:5 rows=${await rowsNamed(ctx, nameOf(ctx))}`); },
  },
  { point: 'pre.crm.lead.create', handler: (ctx) => { if (traced(ctx)) trace.push('pre:10'); } },
  {
    point: 'post.crm.lead.create', sequence: 30,
    async handler(ctx) { if (traced(ctx)) trace.push(`post:30 rows=${await rowsNamed(ctx, nameOf(ctx))} id=${typeof ctx.after?.id}`); },
  },
  { point: 'post.crm.lead.create', sequence: 1, handler: (ctx) => { if (traced(ctx)) trace.push('post:1'); } },
  // every created lead announces itself (to see that a rolled-back command queues no event)
  { point: 'post.crm.lead.create', sequence: 2, handler: (ctx) => ctx.env.emit('hook_fixture.lead_created', { name: nameOf(ctx) }) },
  {
    point: 'pre.crm.lead.create', sequence: 50,
    handler(ctx) { if (ctx.payload.name === 'VETO') throw new ValidationError('vetoed by a pre hook', { hook: 'veto' }, 'VETOED'); },
  },
  {
    point: 'pre.crm.lead.create', sequence: 40,
    handler(ctx) {
      const name = String(ctx.payload.name);
      if (name.startsWith('rewrite:')) {
        ctx.payload.name = name.slice('rewrite:'.length);
        ctx.payload.notes = 'added by a pre hook';
        ctx.payload.stage = 'qualified';
      }
    },
  },
  {
    point: 'post.crm.lead.create', sequence: 60,
    handler(ctx) { if (ctx.payload.name === 'POST_FAIL') throw new Conflict('a post hook failed', undefined, 'POST_HOOK_FAILED'); },
  },
  {
    point: 'pre.crm.lead.update',
    handler(ctx) { if (traced(ctx)) trace.push(`pre:update before.stage=${ctx.before?.stage} payload.stage=${ctx.payload.stage}`); },
  },
  {
    point: 'post.crm.lead.update',
    handler(ctx) { if (traced(ctx)) trace.push(`post:update after.stage=${ctx.after?.stage} after.revision=${ctx.after?.revision}`); },
  },
  {
    point: 'pre.crm.lead.delete',
    handler(ctx) { if (ctx.before?.name === 'UNDELETABLE') throw new Conflict('this lead stays', undefined, 'KEEP_ME'); },
  },
  { point: 'pre.crm.lead.mark_won', handler: (ctx) => { trace.push(`pre:mark_won id=${typeof ctx.payload.id}`); } },
  { point: 'post.crm.lead.mark_won', handler: (ctx) => { trace.push(`post:mark_won after.stage=${ctx.after?.stage}`); } },
];

const app = fixtureApp('hook_fixture', {
  hooks,
  commands: [{
    name: 'hook_fixture.nested',
    description: 'Creates an organization and a lead through nested dispatches, then optionally fails',
    async handler(env, p) {
      const org = await env.dispatch<{ id: string }>('fw.create', { model: 'res.organization', values: { name: p.name } });
      const lead = await env.dispatch<{ id: string }>('fw.create', { model: 'crm.lead', values: { name: p.name, organization: org.id } });
      if (p.fail) throw new Conflict('failed after the nested writes', undefined, 'NESTED_FAILED');
      return { org: org.id, lead: lead.id };
    },
  }],
  events: ['hook_fixture.lead_created'],
  eventHandlers: [{ id: 'hook_fixture.on_lead_created', event: 'hook_fixture.lead_created', handler: async () => {} }],
});

describe('hooks', () => {
  let tk: TestKernel;
  const admin = adminPrincipal('hooks');
  const run = <T = Record<string, unknown> & { id: string }>(command: string, payload: Record<string, unknown>) => tk.kernel.dispatch<T>(command, payload, admin);
  const create = (values: Record<string, unknown>) => run('fw.create', { model: 'crm.lead', values });
  const count = async (model: string, domain: unknown[]) => (await run<{ count: number }>('fw.count', { model, domain })).count;
  const queued = () => count('ir.event', [['name', '=', 'hook_fixture.lead_created']]);

  beforeAll(async () => {
    tk = await bootTestKernel({ apps: [app], worker: false });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });
  beforeEach(() => {
    trace.length = 0;
  });

  it('pre hooks run before the write and post hooks after it, each in sequence order (lower first)', async () => {
    await create({ name: 'trace:order' });
    expect(trace).toEqual(['pre:5 rows=0', 'pre:10', 'pre:20', 'post:1', 'post:30 rows=1 id=string']);
  });

  it('an update hook sees the stored record before and the payload; the post hook sees the record after', async () => {
    const l = await create({ name: 'trace:update' });
    trace.length = 0;
    await run('fw.update', { model: 'crm.lead', id: l.id, values: { stage: 'won' } });
    expect(trace).toEqual(['pre:update before.stage=new payload.stage=won', 'post:update after.stage=won after.revision=2']);
  });

  it('a pre hook that throws vetoes: the caller gets its error, nothing is written and no event is queued', async () => {
    const before = await queued();
    const err = await expectFwError(create({ name: 'VETO' }), 422, 'VETOED');
    expect(err.details).toEqual({ hook: 'veto' });
    expect(await count('crm.lead', [['name', '=', 'VETO']])).toBe(0);
    expect(await queued()).toBe(before);
  });

  it('a post hook that throws rolls the whole command back: the record and the events queued before it', async () => {
    const before = await queued();
    await expectFwError(create({ name: 'POST_FAIL' }), 409, 'POST_HOOK_FAILED');
    expect(await count('crm.lead', [['name', '=', 'POST_FAIL']])).toBe(0);
    expect(await queued()).toBe(before);
  });

  it('a successful command queues the event its post hook emitted', async () => {
    const before = await queued();
    await create({ name: 'Announced' });
    expect(await queued()).toBe(before + 1);
  });

  it('a pre hook may rewrite the payload before it is written', async () => {
    const l = await create({ name: 'rewrite:Polished' });
    expect(l).toMatchObject({ name: 'Polished', notes: 'added by a pre hook', stage: 'qualified' });
    expect(await run('fw.read_one', { model: 'crm.lead', id: l.id })).toMatchObject({ name: 'Polished', notes: 'added by a pre hook' });
  });

  it('a pre hook on delete can veto the deletion; the record stays', async () => {
    const l = await create({ name: 'UNDELETABLE' });
    await expectFwError(run('fw.delete', { model: 'crm.lead', id: l.id }), 409, 'KEEP_ME');
    expect(await run('fw.read_one', { model: 'crm.lead', id: l.id })).toMatchObject({ name: 'UNDELETABLE' });
  });

  it('the app\'s own pre hook vetoes invalid input (crm.sales: probability outside 0–1), on update as on create', async () => {
    await expectFwError(create({ name: 'Too sure', probability: 1.5 }), 422, 'INVALID_PROBABILITY');
    expect(await count('crm.lead', [['name', '=', 'Too sure']])).toBe(0);
    const l = await create({ name: 'Fairly sure', probability: 0.5 });
    for (const probability of [42, -3]) {
      await expectFwError(run('fw.update', { model: 'crm.lead', id: l.id, values: { probability } }), 422, 'INVALID_PROBABILITY');
    }
    expect(await run('fw.read_one', { model: 'crm.lead', id: l.id })).toMatchObject({ probability: 0.5, revision: 1 });
    expect(await run('fw.update', { model: 'crm.lead', id: l.id, values: { probability: 1 } })).toMatchObject({ probability: 1 });
  });

  it('a lead that ends up won by any write (a kanban drag is a plain stage update) is closed as mark_won closes it: a closing date when it has none, probability 1 unless given', async () => {
    const dragged = await create({ name: 'Dragged', probability: 0.3 });
    const t0 = Date.now();
    const won = await run<{ stage: string; probability: number; closed_at: string }>('fw.update', { model: 'crm.lead', id: dragged.id, values: { stage: 'won' } });
    expect(won).toMatchObject({ stage: 'won', probability: 1 });
    expect(Date.parse(won.closed_at)).toBeGreaterThanOrEqual(t0 - 1000);
    // a closing date and a probability given are kept; an edit of a won lead keeps its date
    const dated = await create({ name: 'Dated', stage: 'won', closed_at: '2026-01-15T09:00:00Z', probability: 0.9 });
    expect(dated).toMatchObject({ closed_at: '2026-01-15T09:00:00.000Z', probability: 0.9 });
    expect(await run('fw.update', { model: 'crm.lead', id: dated.id, values: { notes: 'later' } })).toMatchObject({ closed_at: '2026-01-15T09:00:00.000Z', probability: 0.9 });
    // a won lead never loses its closing date to a write that clears it
    const cleared = await run<{ closed_at: string }>('fw.update', { model: 'crm.lead', id: dated.id, values: { closed_at: null } });
    expect(cleared.closed_at).not.toBeNull();
    // other stages are left alone
    const lost = await run('fw.update', { model: 'crm.lead', id: (await create({ name: 'Lost one', probability: 0.2 })).id, values: { stage: 'lost' } });
    expect(lost).toMatchObject({ stage: 'lost', probability: 0.2, closed_at: null });
  });

  it('a model command runs its own pre/post hooks around the hooks of the fw.update it dispatches', async () => {
    const l = await create({ name: 'trace:won' });
    trace.length = 0;
    const won = await run('crm.lead.mark_won', { id: l.id });
    expect(won).toMatchObject({ stage: 'won', probability: 1 });
    expect(trace).toEqual([
      'pre:mark_won id=string',
      'pre:update before.stage=new payload.stage=won',
      'post:update after.stage=won after.revision=2',
      'post:mark_won after.stage=won',
    ]);
  });

  it('a nested env.dispatch runs in the same transaction: the lead can reference the organization created just before', async () => {
    const r = await run<{ org: string; lead: string }>('hook_fixture.nested', { name: 'Nested ok' });
    expect(await run('fw.read_one', { model: 'crm.lead', id: r.lead })).toMatchObject({ organization: r.org });
  });

  it('a failure after nested dispatches rolls them back together', async () => {
    await expectFwError(run('hook_fixture.nested', { name: 'Nested fail', fail: true }), 409, 'NESTED_FAILED');
    expect(await count('res.organization', [['name', '=', 'Nested fail']])).toBe(0);
    expect(await count('crm.lead', [['name', '=', 'Nested fail']])).toBe(0);
  });

  it('a batch whose second record is vetoed by a pre hook leaves none of its records behind', async () => {
    await expectFwError(run('fw.create_many', { model: 'crm.lead', values: [{ name: 'Kept?' }, { name: 'VETO' }] }), 422, 'VETOED');
    expect(await count('crm.lead', [['name', '=', 'Kept?']])).toBe(0);
  });
});
