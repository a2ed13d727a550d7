/**
 * Memory per open tenant (issue 27 §5):
 * - PostgreSQL tenants borrow shared Prisma clients while they run commands
 *   (src/kernel/db/shared-prisma.ts): many tenants logging in and writing one after another build
 *   one client, not one each; each write lands in its own tenant's database; a client kept past
 *   its command keeps talking to its own tenant; a shared client's routing pool refuses a query
 *   outside the commands of the tenant it is lent to instead of sending it to the wrong database;
 *   a tenant's client used outside any command (a script) keeps its loan and still works;
 * - a tenant idle for TENANT_IDLE_SECONDS is closed, and its next request opens it again
 *   (login, read and write work), on both engines; one with event deliveries still to make (a
 *   retry due later) stays open, so the event sweep keeps looking at it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandDecl, EventHandlerDecl } from '../../src/kernel/app.ts';
import { inScope, SharedPrismaClients } from '../../src/kernel/db/shared-prisma.ts';
import { anonymousPrincipal, systemPrincipal, type RootDbClient } from '../../src/kernel/env.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, adminPrincipal, bootTestKernel, fixtureApp, PROVIDERS, waitFor, type TestKernel } from '../helpers/kernel.ts';

const login = (tk: TestKernel, tenant: string) =>
  tk.kernel.dispatch<{ access_token: string }>('auth.login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, anonymousPrincipal(tenant));
const orgNames = async (tk: TestKernel, tenant: string) =>
  (await tk.kernel.dispatch<{ items: Array<{ name: string }> }>('fw.search', { model: 'res.organization', fields: ['name'] }, adminPrincipal(tenant))).items.map((o) => o.name);
const createOrg = (tk: TestKernel, tenant: string, name: string) =>
  tk.kernel.dispatch('fw.create', { model: 'res.organization', values: { name } }, adminPrincipal(tenant));
type Raw = { $queryRawUnsafe<T = unknown>(sql: string): Promise<T> };
const raw = (client: RootDbClient) => client as unknown as Raw;

describe('shared Prisma clients on postgresql', () => {
  let tk: TestKernel;
  const tenants = ['sp-a', 'sp-b', 'sp-c', 'sp-d'];
  beforeAll(async () => {
    tk = await bootTestKernel({ provider: 'postgresql' });
    for (const t of tenants) await tk.kernel.tenants.get(t);
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('tenants logging in and writing one after another borrow one Prisma client between them, and each write lands in its own tenant', async () => {
    const before = (await tk.kernel.tenants.prismaClients())!.built;
    for (const t of tenants) {
      await login(tk, t);
      await createOrg(tk, t, `Org of ${t}`);
    }
    const after = (await tk.kernel.tenants.prismaClients())!;
    expect(after.built - before).toBeLessThanOrEqual(1);
    await new Promise((r) => setImmediate(r));
    expect((await tk.kernel.tenants.prismaClients())!.lent).toBe(0);
    for (const t of tenants) expect((await orgNames(tk, t)).filter((n) => n.startsWith('Org of '))).toEqual([`Org of ${t}`]);
  });

  it('commands of several tenants at once each get a client of their own, all given back afterwards', async () => {
    await Promise.all(tenants.map((t, i) => createOrg(tk, t, `Concurrent ${i}`)));
    await new Promise((r) => setImmediate(r));
    const s = (await tk.kernel.tenants.prismaClients())!;
    expect(s.lent).toBe(0);
    for (const [i, t] of tenants.entries()) expect((await orgNames(tk, t)).filter((n) => n.startsWith('Concurrent'))).toEqual([`Concurrent ${i}`]);
  });

  it('a model delegate kept past its command keeps reading its own tenant, even when called inside another tenant\'s command', async () => {
    type Orgs = { count(args?: object): Promise<number> };
    let kept: Orgs | null = null;
    const a = await tk.kernel.tenants.get('sp-a');
    await createOrg(tk, 'sp-a', 'Only in a');
    const inA = await tk.kernel.execute(a, systemPrincipal('sp-a'), async (env) => {
      kept = (env.db as unknown as { resOrganization: Orgs }).resOrganization;
      return kept.count({ where: { name: 'Only in a' } });
    }, false);
    expect(inA).toBe(1);
    const b = await tk.kernel.tenants.get('sp-b');
    const fromB = await tk.kernel.execute(b, systemPrincipal('sp-b'), async () => kept!.count({ where: { name: 'Only in a' } }), false);
    expect(fromB).toBe(1);
  });

  it('a shared client\'s routing pool refuses a query outside the commands of the tenant it is lent to, and any query once given back', async () => {
    const shared = new SharedPrismaClients((routing) => ({ routing }) as unknown as RootDbClient, 1);
    const pool = new pg.Pool({ connectionString: tk.kernel.tenants.pgUrl(tk.kernel.tenants.pgDatabase('sp-a')), max: 1 });
    try {
      const loan = shared.borrow(pool, 'sp-a', false);
      // what Prisma's adapter sees: a pg.Pool
      const routed: pg.Pool = loan.routing;
      expect(() => routed.query('SELECT 1')).toThrow(/lent to sp-a was used outside that tenant's commands/);
      expect((await inScope(pool, () => routed.query('SELECT 1 AS one'))).rows).toEqual([{ one: 1 }]);
      shared.giveBack(loan);
      await expect(inScope(pool, async () => routed.query('SELECT 1'))).rejects.toThrow(/after it was given back/);
    } finally {
      await pool.end();
    }
  });

  it('a tenant client used outside any command (a script) keeps its loan and reads its own database', async () => {
    const c = await tk.kernel.tenants.get('sp-c');
    const rows = await raw(c).$queryRawUnsafe<Array<{ db: string }>>('SELECT current_database() AS db');
    expect(rows[0]!.db).toBe(tk.kernel.tenants.pgDatabase('sp-c'));
    // other tenants' commands meanwhile do not take it over
    await createOrg(tk, 'sp-d', 'While c holds its loan');
    const again = await raw(c).$queryRawUnsafe<Array<{ db: string }>>('SELECT current_database() AS db');
    expect(again[0]!.db).toBe(tk.kernel.tenants.pgDatabase('sp-c'));
  });
});

/** An event whose handler fails until told otherwise: its delivery waits for a retry. */
let failing = true;
let delivered = 0;
const pingCommand: CommandDecl = {
  name: 'idle_fixture.emit',
  description: 'Emits one idle_fixture.ping',
  async handler(env) {
    env.emit('idle_fixture.ping', {});
    return {};
  },
};
const pingHandler: EventHandlerDecl = {
  id: 'idle_fixture.fail',
  event: 'idle_fixture.ping',
  handler: async () => {
    if (failing) throw new Error('not yet');
    delivered++;
  },
};
const idleApp = fixtureApp('idle_fixture', { commands: [pingCommand], events: ['idle_fixture.ping'], eventHandlers: [pingHandler] });

describe.each(PROVIDERS)('idle tenants on %s', (provider) => {
  let tk: TestKernel;
  beforeAll(async () => {
    tk = await bootTestKernel({
      provider, apps: [idleApp], worker: true,
      // retries a few seconds apart: the delivery stays to make for longer than the idle time
      settings: { TENANT_IDLE_SECONDS: '1', EVENT_SWEEP_INTERVAL_MS: '200', EVENT_RETRY_BASE_MS: '6000' },
    });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('a tenant idle for TENANT_IDLE_SECONDS is closed, and its next login, read and write open it again', async () => {
    await tk.kernel.tenants.get('idle-a');
    await login(tk, 'idle-a');
    await createOrg(tk, 'idle-a', 'Before the idle time');
    expect(tk.kernel.tenants.openTenants()).toContain('idle-a');
    await waitFor(() => tk.kernel.tenants.openConnections() === 0, 'the idle tenant closed', 5_000);
    expect(tk.kernel.tenants.openTenants()).toEqual([]);
    await login(tk, 'idle-a');
    await createOrg(tk, 'idle-a', 'After reopening');
    expect((await orgNames(tk, 'idle-a')).filter((n) => n === 'Before the idle time' || n === 'After reopening').sort()).toEqual(['After reopening', 'Before the idle time']);
    expect(tk.kernel.tenants.openTenants()).toEqual(['idle-a']);
  });

  it('a tenant in use is not closed: each request counts as use', async () => {
    await tk.kernel.tenants.get('idle-b');
    const until = Date.now() + 2_500;
    while (Date.now() < until) {
      await orgNames(tk, 'idle-b');
      expect(tk.kernel.tenants.openTenants()).toContain('idle-b');
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  it('a tenant with an event delivery still to make is not closed for idleness; once delivered, it is', async () => {
    failing = true;
    delivered = 0;
    await tk.kernel.dispatch('idle_fixture.emit', {}, adminPrincipal('idle-c'));
    const until = Date.now() + 4_000;
    while (Date.now() < until) {
      expect(tk.kernel.tenants.openTenants()).toContain('idle-c');
      await new Promise((r) => setTimeout(r, 250));
    }
    failing = false;
    await waitFor(() => delivered === 1, 'the retry delivered', 15_000);
    await waitFor(() => !tk.kernel.tenants.openTenants().includes('idle-c'), 'the tenant closed once nothing was left to deliver', 10_000);
  });
});

describe('the spare shared Prisma clients', () => {
  it('a burst\'s clients beyond the spares are kept for the next burst, and closed once unused for 30 s, the oldest first', async () => {
    const closed: number[] = [];
    let n = 0;
    const make = () => {
      const id = n++;
      return { $disconnect: async () => { closed.push(id); } } as unknown as RootDbClient;
    };
    const shared = new SharedPrismaClients(make, 1);
    const pool = new pg.Pool({ max: 1 });
    try {
      const burst = [0, 1, 2].map(() => shared.borrow(pool, 't', false));
      for (const c of burst) shared.giveBack(c);
      expect(shared.stats()).toMatchObject({ lent: 0, spare: 3, built: 3 });
      // the next burst reuses them: nothing is built
      const again = [0, 1, 2].map(() => shared.borrow(pool, 't', false));
      expect(shared.stats().built).toBe(3);
      for (const c of again) shared.giveBack(c);
      shared.trim(Date.now() + 29_000);
      expect(closed).toEqual([]);
      shared.trim(Date.now() + 31_000);
      expect(shared.stats().spare).toBe(1);
      expect(closed).toHaveLength(2);
    } finally {
      await shared.close();
      await pool.end();
    }
  });
});
