/**
 * `env.onRollback` (src/kernel/bus/pipeline.ts, `Kernel.executeHeld`): undo steps for work done
 * outside the database, tied to the transaction the env writes in. A step runs, awaited and newest
 * first, when that transaction rolls back, before the error reaches the caller; it is forgotten
 * when the transaction commits. An `env.transaction` nested in an outer transaction is a savepoint:
 * its commit hands its steps to the outer transaction, whose rollback still takes its rows. A step
 * that fails is logged and masks nothing. Used by the storage app to remove objects of rows that
 * never commit (tests/storage/documents-rollback.test.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CommandDecl } from '../../../src/kernel/app.ts';
import { adminPrincipal, bootTestKernel, expectFwError, fixtureApp, PROVIDERS, type TestKernel } from '../../helpers/kernel.ts';
import { ValidationError } from '../../../src/kernel/errors.ts';

const ran: string[] = [];
const logged: string[] = [];
const step = (name: string) => () => { ran.push(name); };
const fail = () => { throw new ValidationError('refused', undefined, 'FIXTURE_REFUSAL'); };

const commands: CommandDecl[] = [
  { name: 'rb.fail', handler: async (env) => { env.onRollback(step('a')); env.onRollback(step('b')); fail(); } },
  { name: 'rb.ok', handler: async (env) => { env.onRollback(step('ok')); return { ok: true }; } },
  { name: 'rb.sudo_fail', handler: async (env) => { env.sudo().onRollback(step('sudo')); fail(); } },
  {
    name: 'rb.own_tx_then_fail', transaction: false,
    handler: async (env) => {
      await env.transaction(async (tx) => { tx.onRollback(step('committed')); });
      fail();
    },
  },
  {
    name: 'rb.own_tx_fails', transaction: false,
    handler: async (env) => env.transaction(async (tx) => { tx.onRollback(step('own')); fail(); }),
  },
  { name: 'rb.outside_tx_fails', transaction: false, handler: async (env) => { env.onRollback(step('outside')); fail(); } },
  { name: 'rb.nested_commit', transaction: false, handler: async (env) => env.transaction(async (tx) => { tx.onRollback(step('nested')); }) },
  {
    name: 'rb.savepoint_then_fail', transaction: false,
    handler: async (env) => env.transaction(async (tx) => {
      await tx.transaction(async (inner) => { inner.onRollback(step('savepoint')); });
      fail();
    }),
  },
  { name: 'rb.guarded_fail', effects: [], handler: async (env) => { env.onRollback(step('guarded')); fail(); } },
  { name: 'rb.outer_fails', handler: async (env) => { await env.dispatch('rb.nested_commit', {}); fail(); } },
  {
    name: 'rb.outer_survives', handler: async (env) => {
      await env.dispatch('rb.own_tx_fails', {}).catch(() => undefined);
      env.onRollback(step('outer'));
      return { ok: true };
    },
  },
  {
    name: 'rb.bad_step', handler: async (env) => {
      env.onRollback(step('first'));
      env.onRollback(() => { throw new Error('the undo step broke'); });
      env.onRollback(step('last'));
      fail();
    },
  },
];

for (const provider of PROVIDERS) {
  describe(`env.onRollback (${provider})`, () => {
    let k: TestKernel;
    const run = (name: string) => k.kernel.dispatch(name, {}, adminPrincipal('default'));
    beforeAll(async () => {
      k = await bootTestKernel({ provider, apps: [fixtureApp('rb', { commands })], log: (level, msg, extra) => { if (level === 'warn') logged.push(`${msg} ${JSON.stringify(extra)}`); } });
      await k.kernel.tenants.get('default');
    });
    afterAll(async () => {
      await k?.cleanup();
    });
    beforeEach(() => {
      ran.length = 0;
      logged.length = 0;
    });

    it('a command whose transaction rolls back runs its steps, newest first, before the error reaches the caller', async () => {
      await expectFwError(run('rb.fail'), 422, 'FIXTURE_REFUSAL');
      expect(ran).toEqual(['b', 'a']);
    });

    it('a command that commits never runs them', async () => {
      expect(await run('rb.ok')).toEqual({ ok: true });
      expect(ran).toEqual([]);
    });

    it('steps registered through sudo() belong to the same transaction', async () => {
      await expectFwError(run('rb.sudo_fail'), 422, 'FIXTURE_REFUSAL');
      expect(ran).toEqual(['sudo']);
    });

    it('a `transaction: false` command: steps of its own transaction are forgotten once it commits, even if the command fails afterwards', async () => {
      await expectFwError(run('rb.own_tx_then_fail'), 422, 'FIXTURE_REFUSAL');
      expect(ran).toEqual([]);
    });

    it('a `transaction: false` command: its own transaction rolling back runs its steps, once', async () => {
      await expectFwError(run('rb.own_tx_fails'), 422, 'FIXTURE_REFUSAL');
      expect(ran).toEqual(['own']);
      expect(logged).toEqual([]);
    });

    it('a step registered outside any transaction runs when the top-level command fails', async () => {
      await expectFwError(run('rb.outside_tx_fails'), 422, 'FIXTURE_REFUSAL');
      expect(ran).toEqual(['outside']);
    });

    it('a nested transaction (a savepoint) that committed: its steps run when the outer transaction rolls back', async () => {
      await expectFwError(run('rb.outer_fails'), 422, 'FIXTURE_REFUSAL');
      expect(ran).toEqual(['nested']);
      expect(logged).toEqual([]);
      await run('rb.nested_commit');
      expect(ran).toEqual(['nested']); // on its own it commits: nothing more ran
    });

    it('a savepoint inside a command\'s own transaction that committed: its steps run when that transaction rolls back', async () => {
      await expectFwError(run('rb.savepoint_then_fail'), 422, 'FIXTURE_REFUSAL');
      expect(ran).toEqual(['savepoint']);
    });

    it('a command with declared effects registers its steps in the same transaction', async () => {
      await expectFwError(run('rb.guarded_fail'), 422, 'FIXTURE_REFUSAL');
      expect(ran).toEqual(['guarded']);
    });

    it('a nested transaction that rolled back runs its steps then; the outer one commits and runs none', async () => {
      expect(await run('rb.outer_survives')).toEqual({ ok: true });
      expect(ran).toEqual(['own']);
    });

    it('a failing step is logged, the others still run, and the caller gets the original error', async () => {
      await expectFwError(run('rb.bad_step'), 422, 'FIXTURE_REFUSAL');
      expect(ran).toEqual(['last', 'first']);
      expect(logged).toEqual(['an undo step after a rollback failed {"err":"Error: the undo step broke"}']);
    });
  });
}
