/**
 * Modules: load order from `depends`, foundation apps first in ACTIVE_MODULES order, then each
 * domain listed in ACTIVE_DOMAINS; unknown apps, missing dependencies and cycles fail at boot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppManifest } from '../../src/kernel/app.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { BootError } from '../../src/kernel/errors.ts';
import { createRegistry } from '../../src/kernel/kernel.ts';
import { activePlan, discoverManifests, loadActiveApps, projectLayout } from '../../src/kernel/modules/loader.ts';
import { checkManifest, orderApps, type ActivePlan } from '../../src/kernel/modules/order.ts';
import { bootTestKernel, expectFwError, testSettings, type TestKernel } from '../helpers/kernel.ts';

const manifest = (name: string, depends: string[] = []): AppManifest => ({
  name, summary: name, description: name, author: 'tests', category: 'Test', version: '1.0.0', depends, data: [],
});

/** The spec's foundation apps and their dependencies. */
const FOUNDATION = new Map<string, AppManifest>([
  ['base', manifest('base')],
  ['auth', manifest('auth', ['base'])],
  ['presentation', manifest('presentation', ['base'])],
  ['connectors', manifest('connectors', ['base'])],
  ['storage', manifest('storage', ['base', 'connectors'])],
]);

const withApps = (...extra: AppManifest[]) => new Map([...FOUNDATION, ...extra.map((m) => [m.name, m] as const)]);
const plan = (foundation: string[], domains: ActivePlan['domains'] = []): ActivePlan => ({ foundation, domains });

function refused(fn: () => unknown, message: RegExp): void {
  expect(fn).toThrow(BootError);
  expect(fn).toThrow(message);
}

describe('orderApps (pure)', () => {
  it('loads the foundation in ACTIVE_MODULES order: base, auth, presentation, connectors, storage', () => {
    expect(orderApps(FOUNDATION, plan(['base', 'auth', 'presentation', 'connectors', 'storage'])))
      .toEqual(['base', 'auth', 'presentation', 'connectors', 'storage']);
  });

  it('an app loads after its dependencies even when a dependency is listed later (non-strict order)', () => {
    expect(orderApps(FOUNDATION, plan(['storage', 'connectors', 'base']), false)).toEqual(['base', 'connectors', 'storage']);
  });

  it('refuses storage listed before connectors in ACTIVE_MODULES (connectors must come before storage)', () => {
    refused(() => orderApps(FOUNDATION, plan(['base', 'storage', 'connectors'])), /ACTIVE_MODULES: connectors must come before storage, which depends on it/);
  });

  it('foundation apps load before user-domain apps, and domains follow ACTIVE_DOMAINS order', () => {
    const manifests = withApps(manifest('crm.sales', ['base']), manifest('crm.reports', ['crm.sales']), manifest('shop.orders', ['base', 'crm.sales']));
    expect(orderApps(manifests, plan(['base', 'auth'], [
      { domain: 'crm', apps: ['crm.reports', 'crm.sales'] },
      { domain: 'shop', apps: ['shop.orders'] },
    ]), false)).toEqual(['base', 'auth', 'crm.sales', 'crm.reports', 'shop.orders']);
  });

  it('refuses an app that does not exist', () => {
    refused(() => orderApps(FOUNDATION, plan(['base', 'billing'])), /app "billing" is listed as active but no such app exists/);
  });

  it('refuses a dependency on an unknown app', () => {
    refused(() => orderApps(withApps(manifest('billing', ['base', 'ledger'])), plan(['base', 'billing'])),
      /app billing depends on unknown app "ledger"/);
  });

  it('refuses a dependency on an app that exists but is not active', () => {
    refused(() => orderApps(FOUNDATION, plan(['storage'])), /app storage depends on "base", which is not active/);
  });

  it('refuses a dependency cycle, naming the cycle', () => {
    const manifests = withApps(manifest('a', ['base', 'b']), manifest('b', ['c']), manifest('c', ['a']));
    refused(() => orderApps(manifests, plan(['base', 'a', 'b', 'c']), false), /dependency cycle: a → b → c → a/);
  });

  it('refuses an app that depends on itself', () => {
    refused(() => orderApps(withApps(manifest('selfish', ['selfish'])), plan(['selfish']), false), /dependency cycle: selfish → selfish/);
  });

  it('a domain app must be named <domain>.<app>', () => {
    refused(() => orderApps(withApps(manifest('sales', ['base'])), plan(['base'], [{ domain: 'crm', apps: ['sales'] }])),
      /domain crm: app "sales" must be named crm.<app>/);
  });

  it('a domain app cannot be listed in the foundation ACTIVE_MODULES', () => {
    refused(() => orderApps(withApps(manifest('crm.sales', ['base'])), plan(['base', 'crm.sales'])), /"crm.sales" is a domain app/);
  });

  it('a foundation app cannot depend on a domain app', () => {
    const manifests = withApps(manifest('crm.sales', ['base']), manifest('reports', ['base', 'crm.sales']));
    refused(() => orderApps(manifests, plan(['base', 'reports'], [{ domain: 'crm', apps: ['crm.sales'] }]), false),
      /foundation app reports cannot depend on domain app crm.sales/);
  });
});

describe('manifests', () => {
  it('a manifest has the spec keys name, summary, description, author, category, version, depends, data, and no other key but the optional web', () => {
    expect(() => checkManifest(manifest('ok'), 'ok')).not.toThrow();
    const { data: _data, ...lacking } = manifest('x');
    expect(() => checkManifest(lacking as AppManifest, 'x/manifest.ts')).toThrow(/manifest lacks "data"/);
    expect(() => checkManifest({ ...manifest('x'), license: 'MIT' } as AppManifest, 'x/manifest.ts')).toThrow(/unknown manifest key "license"/);
    expect(() => checkManifest({ ...manifest('x'), version: 'one' }, 'x/manifest.ts')).toThrow(/version "one" must be dotted numbers/);
    expect(() => checkManifest({ ...manifest('x'), web: { widgets: ['x.map'] } }, 'x/manifest.ts')).not.toThrow();
  });

  it('every app in src/apps has a valid manifest named like its folder', async () => {
    const manifests = await discoverManifests(projectLayout());
    expect([...manifests.keys()]).toEqual(expect.arrayContaining(['base', 'auth', 'crm.sales']));
    for (const [dir, m] of manifests) expect(m.name).toBe(dir);
  });
});

describe('the real loader', () => {
  const layout = projectLayout();
  const settings = (domains: string) => testSettings({ provider: 'sqlite', dataDir: '/nonexistent', pgPrefix: 'unused_', settings: { ACTIVE_DOMAINS: domains } });

  it('ACTIVE_DOMAINS=crm boots the crm domain: crm.sales loads after base and crm.lead is in the registry', async () => {
    const apps = await loadActiveApps(layout, settings('crm'));
    expect(apps.map((a) => a.name)).toEqual(['base', 'auth', 'crm.sales']);
    expect(apps.find((a) => a.name === 'crm.sales')!.domain).toBe('crm');
    const registry = createRegistry(apps);
    expect(registry.model('crm.lead').app).toBe('crm.sales');
    expect(registry.command('crm.lead.mark_won').model).toBe('crm.lead');
  });

  it('a domain that is not listed never boots: its models and commands are absent', async () => {
    const registry = createRegistry(await loadActiveApps(layout, settings('')));
    expect(registry.apps.map((a) => a.name)).toEqual(['kernel', 'base', 'auth']);
    expect(registry.models.has('crm.lead')).toBe(false);
    expect(registry.commands.has('crm.lead.mark_won')).toBe(false);
  });

  it('a listed domain without src/domains/<domain>.ts fails at boot', async () => {
    await expect(activePlan(layout, settings('nosuchdomain'))).rejects.toThrow(/ACTIVE_DOMAINS lists "nosuchdomain" but src\/domains\/nosuchdomain.ts does not exist/);
  });

  it('<DOMAIN>_ACTIVE_MODULES overrides the domain app list', async () => {
    const s = testSettings({ provider: 'sqlite', dataDir: '/nonexistent', pgPrefix: 'unused_', settings: { ACTIVE_DOMAINS: 'crm', CRM_ACTIVE_MODULES: '' } });
    expect((await loadActiveApps(layout, s)).map((a) => a.name)).toEqual(['base', 'auth']);
  });

  it('ACTIVE_MODULES naming an unknown app fails at boot', async () => {
    const s = testSettings({ provider: 'sqlite', dataDir: '/nonexistent', pgPrefix: 'unused_', settings: { ACTIVE_MODULES: 'base,billing' } });
    await expect(loadActiveApps(layout, s)).rejects.toThrow(/app "billing" is listed as active but no such app exists/);
  });

  it('ACTIVE_MODULES listing auth before base fails at boot', async () => {
    const s = testSettings({ provider: 'sqlite', dataDir: '/nonexistent', pgPrefix: 'unused_', settings: { ACTIVE_MODULES: 'auth,base' } });
    await expect(loadActiveApps(layout, s)).rejects.toThrow(/base must come before auth/);
  });
});

describe('a booted kernel without ACTIVE_DOMAINS', () => {
  let tk: TestKernel;
  beforeAll(async () => {
    tk = await bootTestKernel({ settings: { ACTIVE_DOMAINS: '' } });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('fw.search on crm.lead fails with UNKNOWN_MODEL (404)', async () => {
    await expectFwError(tk.kernel.dispatch('fw.search', { model: 'crm.lead' }, systemPrincipal('acme')), 404, 'UNKNOWN_MODEL');
  });

  it('the crm command crm.lead.mark_won is unknown (UNKNOWN_COMMAND)', async () => {
    await expectFwError(tk.kernel.dispatch('crm.lead.mark_won', { id: crypto.randomUUID() }, systemPrincipal('acme')), 404, 'UNKNOWN_COMMAND');
  });

  it('records only the active apps as installed in the tenant (ir.module)', async () => {
    const r = await tk.kernel.dispatch<{ items: Array<{ name: string; version: string }> }>('fw.search', { model: 'ir.module' }, systemPrincipal('acme'));
    expect(r.items.map((i) => i.name).sort()).toEqual(['auth', 'base', 'kernel']);
  });
});
