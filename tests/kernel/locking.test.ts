/**
 * Optimistic locking: every update increments `revision`; an update naming a stale revision
 * fails with 409 STALE_REVISION, and of concurrent updates from the same revision exactly one wins.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FwError } from '../../src/kernel/errors.ts';
import { adminPrincipal, bootTestKernel, expectFwError, PROVIDERS, type TestKernel } from '../helpers/kernel.ts';

type Lead = { id: string; name: string; revision: number; notes: string | null };

describe.each(PROVIDERS)('optimistic locking on %s', (provider) => {
  let tk: TestKernel;
  const admin = adminPrincipal('locks');
  const create = (name: string) => tk.kernel.dispatch<Lead>('fw.create', { model: 'crm.lead', values: { name } }, admin);
  const update = (id: string, values: Record<string, unknown>, revision?: number) =>
    tk.kernel.dispatch<Lead>('fw.update', { model: 'crm.lead', id, values, ...(revision === undefined ? {} : { revision }) }, admin);
  const read = (id: string) => tk.kernel.dispatch<Lead>('fw.read_one', { model: 'crm.lead', id }, admin);

  beforeAll(async () => {
    tk = await bootTestKernel({ provider });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('a new record has revision 1 and every update increments it by one', async () => {
    const l = await create('Counting');
    expect(l.revision).toBe(1);
    expect((await update(l.id, { notes: 'a' })).revision).toBe(2);
    expect((await update(l.id, { notes: 'b' }, 2)).revision).toBe(3);
    expect((await read(l.id)).revision).toBe(3);
  });

  it('an update naming the current revision succeeds', async () => {
    const l = await create('Current');
    expect(await update(l.id, { notes: 'ok' }, 1)).toMatchObject({ notes: 'ok', revision: 2 });
  });

  it('an update naming a stale revision fails with 409 STALE_REVISION and changes nothing', async () => {
    const l = await create('Stale');
    await update(l.id, { notes: 'first' }, 1);
    const err = await expectFwError(update(l.id, { notes: 'second' }, 1), 409, 'STALE_REVISION');
    expect(err.details).toMatchObject({ model: 'crm.lead', expected: 1, actual: 2 });
    expect(await read(l.id)).toMatchObject({ notes: 'first', revision: 2 });
  });

  it('a revision that is not an integer is refused (422 INVALID_TYPE)', async () => {
    const l = await create('Typed');
    await expectFwError(tk.kernel.dispatch('fw.update', { model: 'crm.lead', id: l.id, values: { notes: 'x' }, revision: '1' }, admin), 422, 'INVALID_TYPE');
  });

  it('of concurrent updates from the same revision exactly one succeeds; the others get STALE_REVISION', async () => {
    const l = await create('Race');
    const writers = ['w1', 'w2', 'w3', 'w4'];
    const results = await Promise.allSettled(writers.map((w) => update(l.id, { notes: w }, 1)));
    const won = results.filter((r): r is PromiseFulfilledResult<Lead> => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost.map((r) => (r.reason as FwError).code)).toEqual(['STALE_REVISION', 'STALE_REVISION', 'STALE_REVISION']);
    expect(await read(l.id)).toMatchObject({ notes: won[0].value.notes, revision: 2 });
  });
});
