/**
 * Declared effects are enforced: a command that declares `effects` runs (with its hooks) in an
 * env that refuses any dispatch, event, topic, model write or raw SQL its declaration does not
 * list, with UNDECLARED_EFFECT, and rolls back. Undeclared commands are untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandDecl } from '../../../src/kernel/app.ts';
import { delegateOf } from '../../../src/kernel/data/delegate.ts';
import { systemPrincipal } from '../../../src/kernel/env.ts';
import { adminPrincipal, bootTestKernel, expectFwError, fixtureApp, PROVIDERS, type TestKernel } from '../../helpers/kernel.ts';

const country = (env: Parameters<CommandDecl['handler']>[0]) => delegateOf(env.db, env.registry.model('res.country'));
const commands: CommandDecl[] = [
  { name: 'fx.count_then_search', mutates: false, effects: [{ dispatch: 'fw.count' }], handler: async (env) => env.dispatch('fw.search', { model: 'res.country' }) },
  { name: 'fx.count', mutates: false, effects: [{ dispatch: 'fw.count' }], handler: async (env) => env.dispatch('fw.count', { model: 'res.country' }) },
  { name: 'fx.emit', mutates: false, effects: [], handler: async (env) => { env.emit('fx.happened', {}); } },
  { name: 'fx.publish', mutates: false, effects: [], handler: async (env) => { env.publish('fx.topic', {}); } },
  { name: 'fx.read_direct', mutates: false, effects: [{ read: 'res.country' }], handler: async (env) => ({ n: await country(env).count({}) }) },
  { name: 'fx.write_direct', effects: [{ read: 'res.country' }], handler: async (env) => country(env).updateMany({ where: { code: 'FR' }, data: { name: 'Changed' } }) },
  { name: 'fx.raw', mutates: false, effects: [{ read: 'res.country' }], handler: async (env) => env.db.$queryRaw`SELECT 1` },
  { name: 'fx.sudo_write', effects: [], handler: async (env) => env.sudo().dispatch('fw.update', { model: 'res.country', id: '00000000-0000-4000-8000-000000000000', values: {} }) },
  { name: 'fx.tx', mutates: false, transaction: false, effects: [], handler: async (env) => env.transaction(async () => 1) },
  { name: 'fx.allowed_write', effects: [{ write: 'res.country' }], handler: async (env) => country(env).updateMany({ where: { code: 'ZZ-none' }, data: { name: 'x' } }) },
  { name: 'fx.undeclared', mutates: false, handler: async (env) => ({ n: await country(env).count({}) }) },
];

for (const provider of PROVIDERS) {
  describe(`declared effects (${provider})`, () => {
    let k: TestKernel;
    const run = (name: string) => k.kernel.dispatch(name, {}, adminPrincipal('default'));
    beforeAll(async () => {
      k = await bootTestKernel({ provider, apps: [fixtureApp('fx', { commands })] });
    });
    afterAll(async () => {
      await k?.cleanup();
    });

    it('a declared dispatch runs; an undeclared one is refused with UNDECLARED_EFFECT (500)', async () => {
      expect(await run('fx.count')).toMatchObject({ count: expect.any(Number) });
      const err = await expectFwError(run('fx.count_then_search'), 500, 'UNDECLARED_EFFECT');
      expect(err.message).toContain('fx.count_then_search dispatches fw.search');
    });

    it('events and live topics must be declared', async () => {
      await expectFwError(run('fx.emit'), 500, 'UNDECLARED_EFFECT');
      await expectFwError(run('fx.publish'), 500, 'UNDECLARED_EFFECT');
    });

    it('direct model reads need a read or write effect; writes need a write effect, and a refused write changes nothing', async () => {
      expect(await run('fx.read_direct')).toMatchObject({ n: expect.any(Number) });
      const err = await expectFwError(run('fx.write_direct'), 500, 'UNDECLARED_EFFECT');
      expect(err.message).toContain('writes res.country (updateMany)');
      const db = await k.kernel.tenants.get('default');
      expect(await delegateOf(db, k.kernel.registry.model('res.country')).count({ where: { name: 'Changed' } })).toBe(0);
      expect(await run('fx.allowed_write')).toEqual({ count: 0 });
    });

    it('raw SQL, write transactions and sudo cannot escape the declaration', async () => {
      await expectFwError(run('fx.raw'), 500, 'UNDECLARED_EFFECT');
      await expectFwError(run('fx.tx'), 500, 'UNDECLARED_EFFECT');
      await expectFwError(run('fx.sudo_write'), 500, 'UNDECLARED_EFFECT');
    });

    it('a command without declared effects is not restricted', async () => {
      expect(await k.kernel.dispatch('fx.undeclared', {}, systemPrincipal('default'))).toMatchObject({ n: expect.any(Number) });
    });
  });
}
