/**
 * What `confirm` checks again when the person confirms, not only when the model proposed: the
 * confirming principal's permissions, AI_WRITE_TOOLS_ALLOWLIST (a server restarted with another
 * list) — and a write that fails rolls the whole confirmation back (no provenance, the proposal
 * still pending), since the claim, the write and the provenance row share one transaction.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import type { Principal } from '../../src/kernel/env.ts';
import { adminPrincipal, bootTestKernel, tempDir, type TestKernel } from '../helpers/kernel.ts';

type Rec = Record<string, any>;

const AI = { ACTIVE_MODULES: 'base,auth,connectors', AI_ENABLED: 'true', AI_BYO_KEY_REQUIRED: 'false' };
const dataDir = tempDir('ai-recheck');
let k: TestKernel | undefined;
const admin: Principal = adminPrincipal('default');
let conv: string;

const boot = async (allow: string) => {
  await k?.cleanup();
  k = await bootTestKernel({ dataDir, settings: { ...AI, AI_WRITE_TOOLS_ALLOWLIST: allow } });
  return k.kernel;
};
const rows = async (model: string, where: Rec) => {
  const db = await k!.kernel.tenants.get('default');
  return delegateOf(db, k!.kernel.registry.model(model)).findMany({ where });
};
const propose = async (values: Rec) =>
  k!.kernel.dispatch<Rec>('ai.tool.create_record', { model: 'res.country', values }, admin);
const confirm = (token: string, who: Principal = admin) =>
  k!.kernel.dispatch<Rec>('ai.conversation.confirm', { id: conv, token }, who);

beforeAll(async () => {
  const kernel = await boot('create_record');
  conv = (await kernel.dispatch<Rec>('ai.conversation.start', {}, admin)).id;
});
afterAll(async () => {
  await k?.cleanup();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('confirm re-checks', () => {
  it('permissions: the same user, no longer an admin, cannot confirm a write only an admin may make; nothing is written', async () => {
    const p = await propose({ name: 'Recheckland', code: 'XR' });
    expect(p.status).toBe('confirmation_required');
    const demoted: Principal = { ...admin, role: 'user' };
    await expect(confirm(p.token, demoted)).rejects.toMatchObject({ code: 'ACCESS_DENIED' });
    expect(await rows('res.country', { code: 'XR' })).toHaveLength(0);
    expect(await rows('ai.write.provenance', { proposal_id: p.proposal_id })).toHaveLength(0);
    // the refusal rolled the claim back: the proposal is still pending, and its admin confirms it
    expect((await rows('ai.write.proposal', { record_uuid: p.proposal_id }))[0].status).toBe('pending');
    expect(await confirm(p.token)).toMatchObject({ status: 'executed', operation: 'create' });
    expect(await rows('res.country', { code: 'XR' })).toHaveLength(1);
  });

  it('a write that fails (a duplicate code) rolls the confirmation back: no provenance, the proposal still pending', async () => {
    const p = await propose({ name: 'Second France', code: 'FR' });
    await expect(confirm(p.token)).rejects.toMatchObject({ status: 409 });
    expect(await rows('ai.write.provenance', { proposal_id: p.proposal_id })).toHaveLength(0);
    expect((await rows('ai.write.proposal', { record_uuid: p.proposal_id }))[0].status).toBe('pending');
    expect(await rows('res.country', { name: 'Second France' })).toHaveLength(0);
  });

  it('a stored proposal whose arguments no longer match their canonical hash is refused and writes nothing', async () => {
    const p = await propose({ name: 'Tamperland', code: 'XT' });
    const db = await k!.kernel.tenants.get('default');
    await delegateOf(db, k!.kernel.registry.model('ai.write.proposal')).update({
      where: { record_uuid: p.proposal_id }, data: { arguments: { model: 'res.country', values: { name: 'Swapped', code: 'XS' } } },
    });
    await expect(confirm(p.token)).rejects.toMatchObject({ code: 'AI_PROPOSAL_TAMPERED' });
    expect(await rows('res.country', { code: 'XS' })).toHaveLength(0);
    expect(await rows('ai.write.provenance', { proposal_id: p.proposal_id })).toHaveLength(0);
  });

  it('the allow-list: a proposal made while its tool was allowed is refused once the server runs without it', async () => {
    const p = await propose({ name: 'Allowland', code: 'XQ' });
    await boot('update_record');
    await expect(confirm(p.token)).rejects.toMatchObject({ code: 'AI_WRITE_NOT_ALLOWED', status: 403 });
    expect(await rows('res.country', { code: 'XQ' })).toHaveLength(0);
    expect((await rows('ai.write.proposal', { record_uuid: p.proposal_id }))[0].status).toBe('pending');
    // allowed again, the same token works
    await boot('create_record');
    expect(await confirm(p.token)).toMatchObject({ status: 'executed' });
    expect(await rows('res.country', { code: 'XQ' })).toHaveLength(1);
  });
});

describe('undo is claimed atomically (PostgreSQL, where write transactions overlap)', () => {
  let pk: TestKernel;
  beforeAll(async () => {
    // a slow delete hook makes concurrent undos overlap for sure
    const { fixtureApp } = await import('../helpers/kernel.ts');
    pk = await bootTestKernel({
      provider: 'postgresql',
      settings: { ...AI, AI_WRITE_TOOLS_ALLOWLIST: 'create_record' },
      apps: [fixtureApp('slowdelete', { hooks: [{ point: 'pre.res.country.delete', handler: () => new Promise((r) => setTimeout(r, 300)) }] })],
    });
  });
  afterAll(async () => {
    await pk?.cleanup();
  });

  it('of 5 concurrent undos of one write exactly one applies; the others get AI_UNDO_CONFLICT, not a stray 404', async () => {
    const kernel = pk.kernel;
    const c = (await kernel.dispatch<Rec>('ai.conversation.start', {}, admin)).id;
    const p = await kernel.dispatch<Rec>('ai.tool.create_record', { model: 'res.country', values: { name: 'Raceland', code: 'XJ' } }, admin);
    const done = await kernel.dispatch<Rec>('ai.conversation.confirm', { id: c, token: p.token }, admin);
    const results = await Promise.allSettled(Array.from({ length: 5 }, () =>
      kernel.dispatch<Rec>('ai.conversation.undo', { id: c, provenance_id: done.provenance_id }, admin)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const codes = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason?.code);
    expect(codes).toEqual(['AI_UNDO_CONFLICT', 'AI_UNDO_CONFLICT', 'AI_UNDO_CONFLICT', 'AI_UNDO_CONFLICT']);
    const db = await kernel.tenants.get('default');
    expect(await delegateOf(db, kernel.registry.model('res.country')).count({ where: { code: 'XJ' } })).toBe(0);
  });
});
