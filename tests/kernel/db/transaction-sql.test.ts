/**
 * Statements on a write transaction's own connection (src/kernel/db/transaction-sql.ts), as
 * fw.update and fw.create use them: on both engines their reads and writes are compiled
 * statements inside the transaction Prisma began (on PostgreSQL on the pool connection that
 * transaction holds, each concurrent transaction its own); the command, its hooks and its caller
 * get the records Prisma's row gives (a create's defaults included), a hook that fails after the
 * write rolls it back, and constraint errors keep their codes.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HookContext } from '../../../src/kernel/app.ts';
import { delegateOf } from '../../../src/kernel/data/delegate.ts';
import { toRecord } from '../../../src/kernel/data/values.ts';
import { onQuery } from '../../../src/kernel/db/clients.ts';
import { systemPrincipal } from '../../../src/kernel/env.ts';
import { ValidationError } from '../../../src/kernel/errors.ts';
import { adminPrincipal, bootTestKernel, expectFwError, fixtureApp, PROVIDERS, userPrincipal, type TestKernel } from '../../helpers/kernel.ts';

const T = 'txsql';
type Rec = Record<string, unknown> & { id: string };

const seen: Array<{ point: string; before?: unknown; after?: unknown }> = [];
const app = fixtureApp('fixture_txsql', {
  hooks: [
    { point: 'pre.crm.lead.update', handler: (ctx: HookContext) => { seen.push({ point: 'pre', before: ctx.before }); } },
    {
      point: 'post.crm.lead.update',
      handler: (ctx: HookContext) => {
        seen.push({ point: 'post', before: ctx.before, after: ctx.after });
        if (ctx.payload.notes === 'refuse after writing') throw new ValidationError('refused by a hook', { field: 'notes' }, 'REFUSED');
        if (ctx.payload.notes === 'hook edits after' && ctx.after) ctx.after.notes = 'edited by the hook';
      },
    },
  ],
});

describe.each(PROVIDERS)('fw.update on %s', (provider) => {
  let tk: TestKernel;
  const admin = adminPrincipal(T);
  const run = <R = Rec>(command: string, payload: Record<string, unknown>, p = admin) => tk.kernel.dispatch<R>(command, payload, p);
  /** The stored row as Prisma reads it, as a record (`toRecord`). */
  const stored = async (model: string, id: string) => {
    const m = tk.kernel.registry.model(model);
    const row = await delegateOf(await tk.kernel.tenants.get(T), m).findFirst({ where: { record_uuid: id } });
    return toRecord(m, row!);
  };
  /** The statements `fn` ran, as the query listeners saw them. */
  const statements = async (fn: () => Promise<unknown>) => {
    const out: string[] = [];
    const stop = onQuery((q) => { out.push(q.query); });
    try {
      await fn();
    } finally {
      stop();
    }
    return out;
  };
  let lead: string;
  let org: string;
  let user: string;

  beforeAll(async () => {
    tk = await bootTestKernel({ provider, apps: [app], settings: { ACTIVE_DOMAINS: 'crm' } });
    org = (await run('fw.create', { model: 'res.organization', values: { name: 'Tx Org', code: 'tx-org' } })).id;
    await run('fw.create', { model: 'res.organization', values: { name: 'Other Org', code: 'other-org' } });
    user = (await run('fw.search', { model: 'res.user', fields: ['email'], limit: 1 }) as unknown as { items: Rec[] }).items[0]!.id;
    lead = (await run('fw.create', { model: 'crm.lead', values: { name: 'Tx Lead', expected_revenue: 5, organization: org } })).id;
  });
  afterAll(async () => {
    await tk?.cleanup();
  });
  beforeEach(() => {
    seen.length = 0;
  });

  it('reads and writes the record with compiled statements in the transaction, not through Prisma', async () => {
    const ran = await statements(() => run('fw.update', { model: 'crm.lead', id: lead, values: { notes: 'counted' } }));
    const compiled = ran.filter((q) => /^(select|update) .*"crm_lead"/.test(q));
    const prisma = ran.filter((q) => /^(SELECT|UPDATE) .*crm_lead/.test(q));
    expect(compiled.map((q) => q.split(' ')[0])).toEqual(['select', 'update']);
    expect(prisma).toEqual([]);
  });

  it('concurrent writes each run on their own transaction\'s connection: every one commits its own value, none sees another\'s', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await run('fw.create', { model: 'crm.lead', values: { name: `Concurrent ${i}`, organization: org } })).id);
    // a post hook reads its record back inside the transaction while the others run
    const answers = await Promise.all(ids.map((id, i) => run('fw.update', { model: 'crm.lead', id, values: { notes: `written by ${i}` } })));
    expect(answers.map((a) => a.notes)).toEqual(ids.map((_, i) => `written by ${i}`));
    for (const [i, id] of ids.entries()) expect((await stored('crm.lead', id)).notes).toBe(`written by ${i}`);
    // one of them refused by its hook after writing: only that one rolls back
    // allSettled, not all: Promise.all rejects at the refusal while the others are still writing
    const settled = await Promise.allSettled(ids.map((id, i) => run('fw.update', { model: 'crm.lead', id, values: { notes: i === 2 ? 'refuse after writing' : `again ${i}` } })));
    expect(settled.map((s) => s.status)).toEqual(ids.map((_, i) => (i === 2 ? 'rejected' : 'fulfilled')));
    const refusal = settled[2];
    await expectFwError(refusal.status === 'rejected' ? Promise.reject(refusal.reason) : Promise.resolve(), 422, 'REFUSED');
    for (const [i, id] of ids.entries()) expect((await stored('crm.lead', id)).notes).toBe(i === 2 ? 'written by 2' : `again ${i}`);
  });

  it('the answer and the hooks\' before and after are the stored rows as Prisma reads them, for every kind of value', async () => {
    const was = await stored('crm.lead', lead);
    const values = {
      name: 'Tx Lead renamed', email: null, stage: 'qualified', expected_revenue: 1200, probability: 0.375,
      notes: 'é, 😀 and "quotes"', closed_at: '2026-03-04T05:06:07.089Z', date_deadline: null, salesperson: user,
    };
    await new Promise((r) => setTimeout(r, 5));
    const answer = await run('fw.update', { model: 'crm.lead', id: lead, values });
    const now = await stored('crm.lead', lead);
    expect(answer).toEqual(now);
    expect(Object.keys(answer)).toEqual(Object.keys(now));
    expect(now).toMatchObject({ ...values, revision: (was.revision as number) + 1 });
    // Prisma's @updatedAt, which the compiled UPDATE sets too
    expect(Date.parse(now.updated_at_utc as string)).toBeGreaterThan(Date.parse(was.updated_at_utc as string));
    expect(seen).toEqual([{ point: 'pre', before: was }, { point: 'post', before: was, after: now }]);
  });

  it('a hook that fails after the write rolls the write back', async () => {
    const was = await stored('crm.lead', lead);
    await expectFwError(run('fw.update', { model: 'crm.lead', id: lead, values: { notes: 'refuse after writing', expected_revenue: 99 } }), 422, 'REFUSED');
    // the post hook saw the written row: the write had happened, in the transaction
    expect(seen.at(-1)?.after).toMatchObject({ notes: 'refuse after writing', expected_revenue: 99 });
    expect(await stored('crm.lead', lead)).toEqual(was);
  });

  it('the answer is the written record, whatever a post hook does to the `after` it is given', async () => {
    const answer = await run('fw.update', { model: 'crm.lead', id: lead, values: { notes: 'hook edits after' } });
    expect(seen.at(-1)?.after).toMatchObject({ notes: 'edited by the hook' });
    expect(answer.notes).toBe('hook edits after');
    expect((await stored('crm.lead', lead)).notes).toBe('hook edits after');
  });

  it('a value another record holds is 409 UNIQUE_VIOLATION naming the field, and nothing changes', async () => {
    const was = await stored('res.organization', org);
    const err = await expectFwError(run('fw.update', { model: 'res.organization', id: org, values: { code: 'other-org', name: 'Clash' } }), 409, 'UNIQUE_VIOLATION');
    expect(JSON.stringify(err.details)).toContain('code');
    expect(await stored('res.organization', org)).toEqual(was);
  });

  it('a Reference to no record, written by the system (whose references are not checked first), is the database\'s 422 INVALID_REFERENCE, and nothing changes', async () => {
    const was = await stored('crm.lead', lead);
    await expectFwError(run('fw.update', { model: 'crm.lead', id: lead, values: { salesperson: crypto.randomUUID(), notes: 'dangling' } }, systemPrincipal(T)), 422, 'INVALID_REFERENCE');
    expect(await stored('crm.lead', lead)).toEqual(was);
  });

  it('a stale revision is refused before anything is written; the current one writes', async () => {
    const { revision } = await stored('crm.lead', lead);
    await expectFwError(run('fw.update', { model: 'crm.lead', id: lead, revision: (revision as number) - 1, values: { notes: 'late' } }), 409, 'STALE_REVISION');
    const done = await run('fw.update', { model: 'crm.lead', id: lead, revision, values: { notes: 'in time' } });
    expect(done).toMatchObject({ notes: 'in time', revision: (revision as number) + 1 });
  });

  it('record rules bind the read and the written record: outside them is 404, moving a record out is 403', async () => {
    const member = userPrincipal(T, { organization_id: org });
    const withIds = { ...member, organization_ids: [org] };
    const other = (await run('fw.create', { model: 'crm.lead', values: { name: 'Elsewhere', organization: (await run<{ items: Rec[] }>('fw.search', { model: 'res.organization', domain: [['code', '=', 'other-org']], fields: ['code'] })).items[0]!.id } })).id;
    await expectFwError(run('fw.update', { model: 'crm.lead', id: other, values: { notes: 'x' } }, withIds), 404, 'RECORD_NOT_FOUND');
    const mine = await run('fw.update', { model: 'crm.lead', id: lead, values: { notes: 'by a member' } }, withIds);
    expect(mine.notes).toBe('by a member');
    const was = await stored('crm.lead', lead);
    await expectFwError(run('fw.update', { model: 'crm.lead', id: lead, values: { organization: null } }, withIds), 403, 'ACCESS_DENIED');
    expect(await stored('crm.lead', lead)).toEqual(was);
  });

  it('JSON values are written by Prisma, booleans and the rest of the update alike', async () => {
    const me = userPrincipal(T, { user_id: user, organization_id: org });
    const p = { ...me, organization_ids: [org] };
    const filter = (await run('fw.create', { model: 'ir.filter', values: { name: 'Mine', action_key: 'crm.leads', search: { q: 'a' } } }, p)).id;
    const search = { q: 'b "quoted", é', archived: true };
    const answer = await run('fw.update', { model: 'ir.filter', id: filter, values: { search, shared: true, name: 'Mine, shared' } }, p);
    expect(answer).toMatchObject({ search, shared: true, name: 'Mine, shared' });
    expect(await stored('ir.filter', filter)).toMatchObject({ search, shared: true, name: 'Mine, shared' });
  });

  it('a create is one compiled INSERT in the transaction', async () => {
    const ran = await statements(() => run('fw.create', { model: 'crm.lead', values: { name: 'Counted', organization: org } }));
    const compiled = ran.filter((q) => q.startsWith('insert into "crm_lead"'));
    const prisma = ran.filter((q) => /^INSERT INTO .*crm_lead/.test(q));
    expect([compiled.length, prisma.length]).toEqual([1, 0]);
  });

  it('a created record is the stored row as Prisma reads it: defaults, times and revision as Prisma\'s client sends them', async () => {
    const lead2 = await run('fw.create', { model: 'crm.lead', values: { name: 'Defaults', organization: org, probability: 0.5, closed_at: '2026-01-02T03:04:05.006Z' } });
    expect(lead2).toEqual(await stored('crm.lead', lead2.id));
    // declared defaults: an enum's and an integer's; nothing for a field without one
    expect(lead2).toMatchObject({ stage: 'new', expected_revenue: 0, email: null, revision: 1, probability: 0.5, closed_at: '2026-01-02T03:04:05.006Z' });
    expect(lead2.updated_at_utc).toBe(lead2.created_at_utc);
    expect(Math.abs(Date.parse(lead2.created_at_utc as string) - Date.now())).toBeLessThan(60_000);
    // a boolean's default, and a date-time declared `default: 'now'` (the row's one time)
    const orgRec = await run('fw.create', { model: 'res.organization', values: { name: 'Defaulted', code: 'defaulted' } });
    expect(orgRec).toMatchObject({ is_active: true });
    expect(orgRec).toEqual(await stored('res.organization', orgRec.id));
    const mod = await run('fw.create', { model: 'ir.module', values: { name: 'fixture_txsql_mod', version: '1.0.0' } }, systemPrincipal(T));
    expect(mod.seeded_at).toBe(mod.created_at_utc);
    expect(mod).toEqual(await stored('ir.module', mod.id));
  });

  it('a create with a value another record holds is 409 UNIQUE_VIOLATION, one with a dangling Reference (by the system) 422 INVALID_REFERENCE; nothing is stored', async () => {
    const count = async () => (await run<{ count: number }>('fw.count', { model: 'res.organization' })).count;
    const before = await count();
    await expectFwError(run('fw.create', { model: 'res.organization', values: { name: 'Clash', code: 'tx-org' } }), 409, 'UNIQUE_VIOLATION');
    await expectFwError(run('fw.create', { model: 'res.organization', values: { name: 'Dangling', country: crypto.randomUUID() } }, systemPrincipal(T)), 422, 'INVALID_REFERENCE');
    expect(await count()).toBe(before);
  });
});
