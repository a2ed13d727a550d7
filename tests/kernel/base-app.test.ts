/**
 * The base app: ISO 3166-1 countries from a maintained package, the default organization and
 * admin seeded once per tenant, users with bcrypt-hashed passwords, organization slugs, and the
 * res.organization / res.user commands of the spec.
 */
import { createRequire } from 'node:module';
import countries from 'i18n-iso-countries';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyPassword } from '../../src/apps/base/services/passwords.ts';
import { seedBase } from '../../src/apps/base/seed.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { systemPrincipal, type Principal } from '../../src/kernel/env.ts';
import type { Kernel } from '../../src/kernel/kernel.ts';
import {
  ADMIN_EMAIL, ADMIN_PASSWORD, adminPrincipal, bootTestKernel, errorCodes, expectFwError, userPrincipal, type TestKernel,
} from '../helpers/kernel.ts';

type Row = Record<string, unknown> & { id: string };
type Page = { items: Row[] };

const T = 'base';
let tk: TestKernel;
let kernel: Kernel;
const sys = systemPrincipal(T);
const admin = adminPrincipal(T);
const run = <R = Row>(command: string, payload: Record<string, unknown>, p: Principal = admin) => kernel.dispatch<R>(command, payload, p);
const find = async (model: string, domain: unknown[], p: Principal = sys) => (await run<Page>('fw.search', { model, domain }, p)).items;
/** The stored user row, private columns included (straight from the tenant database). */
const storedUser = async (email: string) =>
  delegateOf(await kernel.tenants.get(T), kernel.registry.model('res.user')).findFirst({ where: { email } });

beforeAll(async () => {
  tk = await bootTestKernel();
  kernel = tk.kernel;
});
afterAll(async () => {
  await tk?.cleanup();
});

describe('res.country seed (ISO 3166-1)', () => {
  it('seeds every ISO 3166-1 country: 250, exactly the alpha-2 codes of i18n-iso-countries', async () => {
    expect(await run('fw.count', { model: 'res.country' }, sys)).toEqual({ count: 250 });
    const all = await run<Page>('fw.search', { model: 'res.country', fields: ['code'] }, sys);
    expect(all.items.map((c) => c.code).sort()).toEqual(Object.keys(countries.getAlpha2Codes()).sort());
  });

  it('a country is found by its alpha-2 code (code) with its alpha-3 and numeric codes', async () => {
    expect(await find('res.country', [['code', '=', 'FR']])).toEqual([expect.objectContaining({ code: 'FR', code3: 'FRA', numeric: '250' })]);
    expect(await find('res.country', [['code', '=', 'JP']])).toEqual([expect.objectContaining({ code3: 'JPN', numeric: '392' })]);
  });

  it('a country is found by its alpha-3 code (code3)', async () => {
    expect(await find('res.country', [['code3', '=', 'DEU']])).toEqual([expect.objectContaining({ code: 'DE', numeric: '276' })]);
    expect(await find('res.country', [['code3', 'in', ['BRA', 'CAN']]])).toHaveLength(2);
  });

  it('country names come from the package (English), and every name and code is unique', async () => {
    const require = createRequire(import.meta.url);
    countries.registerLocale(require('i18n-iso-countries/langs/en.json'));
    const [de] = await find('res.country', [['code', '=', 'DE']]);
    expect(de.name).toBe(countries.getName('DE', 'en', { select: 'official' }));
    const all = (await run<Page>('fw.search', { model: 'res.country' }, sys)).items;
    expect(new Set(all.map((c) => c.name)).size).toBe(250);
    expect(new Set(all.map((c) => c.code3)).size).toBe(250);
  });

  it('users may read countries but not create them', async () => {
    const user = userPrincipal(T);
    expect(await run('fw.count', { model: 'res.country', domain: [['code', '=', 'IT']] }, user)).toEqual({ count: 1 });
    await expectFwError(run('fw.create', { model: 'res.country', values: { name: 'Atlantis', code: 'QA' } }, user), 403, 'ACCESS_DENIED');
  });
});

describe('default organization and admin', () => {
  it('each tenant gets one default organization and one admin (role admin) from ADMIN_EMAIL / ADMIN_PASSWORD', async () => {
    const [org] = await find('res.organization', [['code', '=', 'default']]);
    expect(org).toMatchObject({ name: 'Default Organization', is_active: true });
    const admins = await find('res.user', [['role', '=', 'admin']]);
    expect(admins).toEqual([expect.objectContaining({ email: ADMIN_EMAIL, role: 'admin', is_active: true, organization: org.id })]);
    expect(await verifyPassword(ADMIN_PASSWORD, (await storedUser(ADMIN_EMAIL))!.password_hash as string)).toBe(true);
  });

  it('the seed runs once per app version: reopening the tenant in a new kernel adds no duplicates', async () => {
    const again = await bootTestKernel({ dataDir: tk.dataDir });
    try {
      await again.kernel.dispatch('fw.count', { model: 'res.user' }, sys);
      expect(await again.kernel.dispatch('fw.count', { model: 'res.user', domain: [['role', '=', 'admin']] }, sys)).toEqual({ count: 1 });
      expect(await again.kernel.dispatch('fw.count', { model: 'res.organization', domain: [['code', '=', 'default']] }, sys)).toEqual({ count: 1 });
      expect(await again.kernel.dispatch('fw.count', { model: 'res.country' }, sys)).toEqual({ count: 250 });
    } finally {
      await again.cleanup();
    }
  });

  it('the base seed itself is idempotent: running it again changes nothing', async () => {
    const count = async (model: string) => (await run<{ count: number }>('fw.count', { model }, sys)).count;
    const before = [await count('res.country'), await count('res.organization'), await count('res.user')];
    await kernel.execute(await kernel.tenants.get(T), sys, (env) => seedBase(env));
    expect([await count('res.country'), await count('res.organization'), await count('res.user')]).toEqual(before);
  });

  it('without ADMIN_PASSWORD a strong password is generated, printed once, and only its hash is stored', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const other = await bootTestKernel({ settings: { ADMIN_PASSWORD: '' } });
    try {
      await other.kernel.dispatch('fw.count', { model: 'res.user' }, systemPrincipal('fresh'));
      const lines = log.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('generated password'));
      expect(lines).toHaveLength(1);
      const password = /generated password: (\S+)$/.exec(lines[0])![1];
      expect(password.length).toBeGreaterThanOrEqual(20);
      const row = await delegateOf(await other.kernel.tenants.get('fresh'), other.kernel.registry.model('res.user')).findFirst({ where: { email: ADMIN_EMAIL } });
      expect(row!.password_hash).not.toContain(password);
      expect(await verifyPassword(password, row!.password_hash as string)).toBe(true);
    } finally {
      log.mockRestore();
      await other.cleanup();
    }
  });

  it('the navigation data loads ir.action before ir.menu: seeded menus point at their actions and parents', async () => {
    const [action] = await find('ir.action', [['xml_id', '=', 'base.action_users']]);
    const [parent] = await find('ir.menu', [['xml_id', '=', 'base.menu_users_orgs']]);
    const [menu] = await find('ir.menu', [['xml_id', '=', 'base.menu_users']]);
    expect(menu).toMatchObject({ name: 'Users', action: action.id, parent: parent.id });
    const [crmMenu] = await find('ir.menu', [['xml_id', '=', 'crm.menu_leads']]);
    expect(crmMenu.action).toBe((await find('ir.action', [['xml_id', '=', 'crm.action_leads']]))[0].id);
  });
});

describe('res.user', () => {
  it('res.user.register stores a bcrypt hash of the password (verify_password true) and never the plain password', async () => {
    const u = await run('res.user.register', { email: 'Hash.Me@Example.test', name: 'Hash Me', password: 'correct horse' });
    expect(u).toMatchObject({ email: 'hash.me@example.test', name: 'Hash Me', role: 'user', is_active: true });
    expect(u).not.toHaveProperty('password');
    expect(u).not.toHaveProperty('password_hash');
    const row = (await storedUser('hash.me@example.test'))!;
    expect(row.password_hash).toMatch(/^\$2[aby]\$04\$.{53}$/);
    expect(await verifyPassword('correct horse', row.password_hash as string)).toBe(true);
    expect(await verifyPassword('wrong horse', row.password_hash as string)).toBe(false);
    expect(Object.values(row).some((v) => typeof v === 'string' && v.includes('correct horse'))).toBe(false);
  });

  it('res.user.register refuses an invalid email, a weak password and a taken email', async () => {
    await expectFwError(run('res.user.register', { email: 'not-an-email', name: 'X', password: 'password-1' }), 422, 'INVALID_EMAIL');
    await expectFwError(run('res.user.register', { email: 'weak@example.test', name: 'X', password: 'short' }), 422, 'WEAK_PASSWORD');
    await expectFwError(run('res.user.register', { email: ADMIN_EMAIL.toUpperCase(), name: 'X', password: 'password-1' }), 409, 'UNIQUE_VIOLATION');
    const err = await expectFwError(run('res.user.register', { email: 'x@example.test', password: 'password-1', extra: 1 }), 422, 'VALIDATION_FAILED');
    expect(errorCodes(err)).toEqual({ name: 'REQUIRED', extra: 'UNKNOWN_FIELD' });
  });

  it('registering a user with a role other than "user" needs an admin (403 for others)', async () => {
    const [org] = await find('res.organization', [['code', '=', 'default']]);
    const user = userPrincipal(T, { organization_id: org.id });
    await expectFwError(run('res.user.register', { email: 'boss@example.test', name: 'Boss', password: 'password-1', role: 'admin' }, user), 403, 'ACCESS_DENIED');
    expect(await storedUser('boss@example.test')).toBeNull();
    expect(await run('res.user.register', { email: 'boss@example.test', name: 'Boss', password: 'password-1', role: 'admin' }, admin))
      .toMatchObject({ role: 'admin' });
  });

  it('res.user.set_password re-hashes: your own as a user (with your current password), anyone\'s as an admin, nobody else\'s', async () => {
    const [org] = await find('res.organization', [['code', '=', 'default']]);
    const me = await run('res.user.register', { email: 'me@example.test', name: 'Me', password: 'password-1', organization: org.id });
    const other = await run('res.user.register', { email: 'other@example.test', name: 'Other', password: 'password-1', organization: org.id });
    const mine = userPrincipal(T, { user_id: me.id, organization_id: org.id });
    await run('res.user.set_password', { id: me.id, password: 'password-2', current_password: 'password-1' }, mine);
    expect(await verifyPassword('password-2', (await storedUser('me@example.test'))!.password_hash as string)).toBe(true);
    await expectFwError(run('res.user.set_password', { id: other.id, password: 'password-3' }, mine), 403, 'ACCESS_DENIED');
    await run('res.user.set_password', { id: other.id, password: 'password-4' }, admin);
    expect(await verifyPassword('password-4', (await storedUser('other@example.test'))!.password_hash as string)).toBe(true);
  });

  it('changing your own password without your current one is 422 CURRENT_PASSWORD_REQUIRED, with a wrong one 422 CURRENT_PASSWORD_INVALID; the password stays', async () => {
    const u = await run('res.user.register', { email: 'own@example.test', name: 'Own', password: 'own-pass-123' });
    const self = userPrincipal(T, { user_id: u.id });
    const missing = await expectFwError(run('res.user.set_password', { id: u.id, password: 'new-pass-123' }, self), 422, 'CURRENT_PASSWORD_REQUIRED');
    expect(missing.message).toBe('changing your own password needs your current password in "current_password"');
    expect(missing.details).toEqual({ field: 'current_password' });
    await expectFwError(run('res.user.set_password', { id: u.id, password: 'new-pass-123', current_password: '' }, self), 422, 'CURRENT_PASSWORD_REQUIRED');
    const wrong = await expectFwError(run('res.user.set_password', { id: u.id, password: 'new-pass-123', current_password: 'not-my-pass-1' }, self), 422, 'CURRENT_PASSWORD_INVALID');
    expect(wrong.message).toBe('the current password is wrong');
    expect(await verifyPassword('own-pass-123', (await storedUser('own@example.test'))!.password_hash as string)).toBe(true);
    // an admin changing their own password proves it too; another user's needs none
    const boss = await run('res.user.register', { email: 'boss-own@example.test', name: 'Boss', password: 'boss-pass-123', role: 'admin' });
    const bossSelf = userPrincipal(T, { user_id: boss.id, role: 'admin' });
    await expectFwError(run('res.user.set_password', { id: boss.id, password: 'new-pass-123' }, bossSelf), 422, 'CURRENT_PASSWORD_REQUIRED');
    await run('res.user.set_password', { id: u.id, password: 'reset-pass-123' }, bossSelf);
    expect(await verifyPassword('reset-pass-123', (await storedUser('own@example.test'))!.password_hash as string)).toBe(true);
  });

  it.each([
    ['12345678', 'password must have at least 10 characters'],
    ['password', 'password must have at least 10 characters'],
    ['nine-char', 'password must have at least 10 characters'],
    ['1234567890', 'common'],
    ['qwertyuiop', 'common'],
    ['Password123', 'common'],
    ['iloveyou12', 'common'],
  ])('the password %j is refused everywhere a password is set: 422 WEAK_PASSWORD saying why', async (password, why) => {
    const u = await run('res.user.register', { email: `policy-${password.toLowerCase()}@example.test`, name: 'P', password: 'policy-pass-123' });
    const self = userPrincipal(T, { user_id: u.id });
    const attempts = [
      run('res.user.register', { email: `weak-${password.toLowerCase()}@example.test`, name: 'W', password }),
      run('res.user.set_password', { id: u.id, password }),
      run('res.user.set_password', { id: u.id, password, current_password: 'policy-pass-123' }, self),
    ];
    for (const attempt of attempts) {
      const err = await expectFwError(attempt, 422, 'WEAK_PASSWORD');
      expect(err.details).toEqual({ field: 'password' });
      if (why === 'common') expect(err.message).toMatch(/^password is one of the [\d,]+ most common passwords, which attackers try first; choose another$/);
      else expect(err.message).toBe(why);
    }
    expect(await storedUser(`weak-${password.toLowerCase()}@example.test`)).toBeNull();
  });

  it('a long passphrase that is on no list is accepted', async () => {
    expect(await run('res.user.register', { email: 'phrase@example.test', name: 'Phrase', password: 'violet staple orbit lantern' })).toMatchObject({ email: 'phrase@example.test' });
  });

  it('any Unicode (spaces, accents, emoji) and 64 characters are accepted; over 72 UTF-8 bytes (or characters) is refused with 422, never silently truncated by bcrypt', async () => {
    for (const [i, password] of ['ünïcödé 🐴 pässphrase 🔑', 'x7'.repeat(32), '€'.repeat(24)].entries()) {
      expect(await run('res.user.register', { email: `unicode-${i}@example.test`, name: 'U', password }), password).toMatchObject({ email: `unicode-${i}@example.test` });
    }
    // 25 characters but 75 bytes: past the input's 72 characters the payload check refuses first
    const err = await expectFwError(run('res.user.register', { email: 'toolong-0@example.test', name: 'L', password: '€'.repeat(25) }), 422, 'PASSWORD_TOO_LONG');
    expect(err.details).toEqual({ field: 'password' });
    const chars = await expectFwError(run('res.user.register', { email: 'toolong-1@example.test', name: 'L', password: 'x7'.repeat(36) + 'y' }), 422, 'VALIDATION_FAILED');
    expect(chars.details?.errors).toEqual([expect.objectContaining({ field: 'password', message: '"password": longer than 72 characters' })]);
    for (const i of [0, 1]) expect(await storedUser(`toolong-${i}@example.test`)).toBeNull();
  });

  it('a weak ADMIN_PASSWORD refuses to boot (WEAK_ADMIN_PASSWORD) with a sentence saying why', async () => {
    for (const [weak, why] of [['admin123', 'password must have at least 10 characters'], ['1234567890', 'password is one of the']]) {
      const err = await bootTestKernel({ settings: { ADMIN_PASSWORD: weak } }).then(() => null, (e: unknown) => e);
      expect(err).toMatchObject({ code: 'WEAK_ADMIN_PASSWORD' });
      expect((err as Error).message).toContain(`ADMIN_PASSWORD is refused: ${why}`);
      expect((err as Error).message).toContain('leave ADMIN_PASSWORD empty to have a strong one generated');
    }
  });

  it('res.user.deactivate and res.user.activate are admin-only and toggle is_active', async () => {
    const u = await run('res.user.register', { email: 'toggle@example.test', name: 'Toggle', password: 'password-1' });
    await expectFwError(run('res.user.deactivate', { id: u.id }, userPrincipal(T)), 403, 'ACCESS_DENIED');
    expect(await run('res.user.deactivate', { id: u.id })).toMatchObject({ is_active: false });
    await expectFwError(run('res.user.activate', { id: u.id }, userPrincipal(T)), 403, 'ACCESS_DENIED');
    expect(await run('res.user.activate', { id: u.id })).toMatchObject({ is_active: true });
  });
});

describe('res.organization', () => {
  it.each(['Bad Slug', 'UPPER', '-lead', 'trail-', 'a--b', 'dots.not.ok', 'é', 'under_score'])('the code %j is not a valid slug (422 INVALID_SLUG)', async (code) => {
    await expectFwError(run('fw.create', { model: 'res.organization', values: { name: 'Sluggish', code } }), 422, 'INVALID_SLUG');
  });

  it('a code longer than 63 characters is refused as TOO_LONG', async () => {
    const err = await expectFwError(run('fw.create', { model: 'res.organization', values: { name: 'Long', code: 'x'.repeat(64) } }), 422, 'VALIDATION_FAILED');
    expect(errorCodes(err)).toEqual({ code: 'TOO_LONG' });
  });

  it('a valid code is kept; changing it to an invalid one is refused', async () => {
    const org = await run('fw.create', { model: 'res.organization', values: { name: 'Keeper', code: 'keeper-01' } });
    expect(org.code).toBe('keeper-01');
    await expectFwError(run('fw.update', { model: 'res.organization', id: org.id, values: { code: 'Not OK' } }), 422, 'INVALID_SLUG');
    expect((await run('fw.read_one', { model: 'res.organization', id: org.id })).code).toBe('keeper-01');
  });

  it('without a code, one is generated from the name (lowercase, URL-safe, unique)', async () => {
    const a = await run('fw.create', { model: 'res.organization', values: { name: 'Ünïcode Café & Co' } });
    expect(a.code).toBe('unicode-cafe-co');
    const b = await run('fw.create', { model: 'res.organization', values: { name: 'Ünïcode Café & Co' } });
    expect(b.code).toMatch(/^unicode-cafe-co-[0-9a-f]{6}$/);
    expect((await run('fw.create', { model: 'res.organization', values: { name: '!!!' } })).code).toMatch(/^org(-[0-9a-f]{6})?$/);
  });

  it('res.organization.change_country moves the organization to another registered country', async () => {
    const org = await run('fw.create', { model: 'res.organization', values: { name: 'Mover' } });
    const [fr] = await find('res.country', [['code', '=', 'FR']]);
    expect(await run('res.organization.change_country', { id: org.id, country: fr.id })).toMatchObject({ id: org.id, country: fr.id, revision: 2 });
    await expectFwError(run('res.organization.change_country', { id: org.id, country: crypto.randomUUID() }), 422, 'INVALID_REFERENCE');
    expect(errorCodes(await expectFwError(run('res.organization.change_country', { id: org.id }), 422, 'VALIDATION_FAILED'))).toEqual({ country: 'REQUIRED' });
    await expectFwError(run('res.organization.change_country', { id: crypto.randomUUID(), country: fr.id }), 404, 'RECORD_NOT_FOUND');
  });

  it('res.organization.deactivate sets is_active false; users may not run it', async () => {
    const org = await run('fw.create', { model: 'res.organization', values: { name: 'Sleepy' } });
    await expectFwError(run('res.organization.deactivate', { id: org.id }, userPrincipal(T, { organization_id: org.id })), 403, 'ACCESS_DENIED');
    expect(await run('res.organization.deactivate', { id: org.id })).toMatchObject({ is_active: false });
  });
});
