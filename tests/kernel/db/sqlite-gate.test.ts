/**
 * A query made outside a transaction (the root Prisma client: the event worker's outbox updates,
 * a read command's Prisma reads, an outbox row a read emits) while another command's write
 * transaction is open never sees that transaction's uncommitted rows, and its writes are not
 * undone when that transaction rolls back. On SQLite both share one connection and the gate makes
 * the outside query wait (src/kernel/db/sqlite-gate.ts); PostgreSQL's transactions have
 * connections of their own. The open transaction is held by a post-update hook that waits, then
 * refuses the write. And on the adapter itself: the wait, and the one warning a long wait gives.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateOutsideTransactions } from '../../../src/kernel/db/sqlite-gate.ts';
import type { HookContext } from '../../../src/kernel/app.ts';
import { delegateOf } from '../../../src/kernel/data/delegate.ts';
import { systemPrincipal } from '../../../src/kernel/env.ts';
import { ValidationError } from '../../../src/kernel/errors.ts';
import { bootTestKernel, fixtureApp, PROVIDERS, type TestKernel } from '../../helpers/kernel.ts';

const T = 'gate';
/** The hook holds its transaction open until `release`, then refuses the write (a rollback). */
let held: { entered: () => void; gate: Promise<void> } | null = null;
const app = fixtureApp('fixture_gate', {
  depends: ['base'],
  hooks: [{
    point: 'post.res.organization.update',
    async handler(ctx: HookContext) {
      if (ctx.payload.name !== 'Never committed' || !held) return;
      held.entered();
      await held.gate;
      throw new ValidationError('refused after waiting', undefined, 'REFUSED');
    },
  }],
});

describe.each(PROVIDERS)('outside a transaction, on %s', (provider) => {
  let tk: TestKernel;
  const sys = systemPrincipal(T);
  beforeAll(async () => {
    tk = await bootTestKernel({ provider, apps: [app] });
    await tk.kernel.tenants.get(T);
  });
  afterAll(async () => { await tk?.cleanup(); });

  /** Opens an update that waits in its hook; `release` lets it fail (rolled back). */
  async function holdOpen(id: string): Promise<{ release: () => void; done: Promise<unknown> }> {
    let release!: () => void;
    let entered!: () => void;
    const inside = new Promise<void>((r) => { entered = r; });
    held = { entered, gate: new Promise<void>((r) => { release = r; }) };
    const done = tk.kernel.dispatch('fw.update', { model: 'res.organization', id, values: { name: 'Never committed' } }, sys).then(() => null, (e: unknown) => e);
    await inside;
    return { release, done };
  }
  const orgs = async () => delegateOf(await tk.kernel.tenants.get(T), tk.kernel.registry.model('res.organization'));

  it('a read outside the transaction never sees its uncommitted change', async () => {
    const org = await tk.kernel.dispatch<{ id: string }>('fw.create', { model: 'res.organization', values: { name: 'Committed name' } }, sys);
    const { release, done } = await holdOpen(org.id);
    // sent now (a Prisma query runs when it is awaited, hence the Promise)
    const read = Promise.resolve((await orgs()).findFirst({ where: { record_uuid: org.id }, select: { name: true } }));
    // what it answers, whenever it answers, is what was committed
    await new Promise((r) => setTimeout(r, 50));
    release();
    expect(await done).toMatchObject({ code: 'REFUSED' });
    expect(await read).toEqual({ name: 'Committed name' });
  });

  it('a write outside the transaction is kept when the transaction rolls back', async () => {
    const org = await tk.kernel.dispatch<{ id: string }>('fw.create', { model: 'res.organization', values: { name: 'Written beside' } }, sys);
    const { release, done } = await holdOpen(org.id);
    const write = Promise.resolve((await orgs()).update({ where: { record_uuid: org.id }, data: { code: 'written-beside' } }));
    await new Promise((r) => setTimeout(r, 50));
    release();
    expect(await done).toMatchObject({ code: 'REFUSED' });
    await write;
    expect(await (await orgs()).findFirst({ where: { record_uuid: org.id }, select: { name: true, code: true } })).toEqual({ name: 'Written beside', code: 'written-beside' });
  });

  it('the event worker\'s outbox updates are not undone by a rolled-back request (no second delivery)', async () => {
    const org = await tk.kernel.dispatch<{ id: string }>('fw.create', { model: 'res.organization', values: { name: 'Outbox beside' } }, sys);
    const events = delegateOf(await tk.kernel.tenants.get(T), tk.kernel.registry.model('ir.event'));
    const row = await events.create({ data: { record_uuid: crypto.randomUUID(), event_uuid: crypto.randomUUID(), name: 'fixture.gate', handler: 'fixture.gate.none', tenant_id: T, payload: {}, source: null } }) as { record_uuid: string };
    const { release, done } = await holdOpen(org.id);
    // as markDone does: the delivery is recorded outside any transaction
    const mark = Promise.resolve(events.update({ where: { record_uuid: row.record_uuid }, data: { status: 'done' } }));
    await new Promise((r) => setTimeout(r, 50));
    release();
    expect(await done).toMatchObject({ code: 'REFUSED' });
    await mark;
    expect(await events.findFirst({ where: { record_uuid: row.record_uuid }, select: { status: true } })).toEqual({ status: 'done' });
  });
});

describe('the gate on Prisma\'s SQLite adapter', () => {
  it('a query outside waits from the moment a transaction is asked for until it ends, and a long wait is warned about once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-gate-'));
    const adapter = gateOutsideTransactions(await new PrismaBetterSqlite3({ url: path.join(dir, 'gate.db') }).connect(), 80);
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }) => { if (w.code === 'FW_SQLITE_OUTSIDE_WAIT') warnings.push(w.message); };
    process.on('warning', onWarning);
    try {
      await adapter.executeScript('CREATE TABLE t (v INTEGER)');
      const tx = await adapter.startTransaction();
      await tx.executeRaw({ sql: 'INSERT INTO t (v) VALUES (1)', args: [], argTypes: [] });
      let answered: number | null = null;
      const outside = adapter.queryRaw({ sql: 'SELECT count(*) AS n FROM t', args: [], argTypes: [] }).then((r) => { answered = Number(r.rows[0]![0]); });
      await new Promise((r) => setTimeout(r, 200));
      expect(answered).toBeNull(); // still waiting: it would have counted the uncommitted row
      expect(warnings).toHaveLength(1);
      await tx.executeRaw({ sql: 'ROLLBACK', args: [], argTypes: [] });
      await tx.rollback();
      await outside;
      expect(answered).toBe(0);
      // with nothing open, a query runs at once and nothing is warned
      expect(Number((await adapter.queryRaw({ sql: 'SELECT count(*) AS n FROM t', args: [], argTypes: [] })).rows[0]![0])).toBe(0);
      expect(warnings).toHaveLength(1);
    } finally {
      process.off('warning', onWarning);
      await adapter.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
