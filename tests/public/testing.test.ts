/**
 * fw/testing: a team's test boots a real kernel on a temp SQLite folder from its project root
 * and runs commands as a system, admin or user principal. Imported by package name, as a team's
 * test would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FwError, ValidationError } from 'fw/errors';
import { bootTestKernel, waitFor, type TestKernel } from 'fw/testing';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Temp folders bootTestKernel made (its prefix), to see that a failed boot leaves none behind. */
const testDirs = () => fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith('fw-test-')).sort();

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection, but the call succeeded');
}

describe('bootTestKernel on the project root', () => {
  let t: TestKernel;
  beforeAll(async () => {
    t = await bootTestKernel({ root: ROOT, settings: { ACTIVE_MODULES: 'base,auth', ACTIVE_DOMAINS: 'crm' } });
  });
  afterAll(() => t?.close());

  it('boots the apps of the root and the active domain, the default tenant seeded, SQLite files in its temp folder', async () => {
    expect(t.tenant).toBe('default');
    expect(t.kernel.provider).toBe('sqlite');
    expect(t.kernel.registry.apps.map((a) => a.name)).toEqual(['kernel', 'base', 'auth', 'crm.sales']);
    expect(fs.readdirSync(t.dataDir, { recursive: true, encoding: 'utf8' }).some((f) => path.basename(f) === 'default.db')).toBe(true);
    const countries = await t.dispatch<{ total: number }>('fw.search', { model: 'res.country', limit: 1, count: true });
    expect(countries.total).toBe(250);
  });

  it('runs commands as the seeded admin, with the app\'s hooks and access rules applied', async () => {
    const admin = await t.admin();
    expect(admin).toMatchObject({ kind: 'user', role: 'admin', tenant_id: 'default', organization_id: expect.any(String) });
    const lead = await t.dispatch<{ id: string; stage: string }>('fw.create', { model: 'crm.lead', values: { name: 'Acme', organization: admin.organization_id } }, admin);
    expect(lead.stage).toBe('new');
    // crm.sales' pre-create hook refuses a probability outside 0..1
    const err = await rejection(t.dispatch('fw.create', { model: 'crm.lead', values: { name: 'Bad', probability: 2 } }, admin));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ status: 422, code: 'INVALID_PROBABILITY' });
    // a user of another organization does not see the lead (crm.lead's record rule)
    const stranger = t.user({ organization_id: null });
    expect((await t.dispatch<{ items: unknown[] }>('fw.search', { model: 'crm.lead' }, stranger)).items).toEqual([]);
    expect((await t.dispatch<{ items: unknown[] }>('fw.search', { model: 'crm.lead' }, admin)).items).toHaveLength(1);
  });

  it('newUser() registers a real res.user, so a record owned by its user (default_principal) is created; user() invents an id no user holds, which such a Reference refuses', async () => {
    const search = { q: '' };
    const ghost = t.user();
    const refused = await rejection(t.dispatch('fw.create', { model: 'ir.filter', values: { name: 'Mine', action_key: 'crm.lead', search, organization: (await t.admin()).organization_id } }, ghost));
    expect(refused).toBeInstanceOf(FwError);
    expect((refused as FwError).status).toBe(422);

    const ann = await t.newUser({ email: 'ann@example.com', name: 'Ann' });
    expect(ann).toMatchObject({ kind: 'user', role: 'user', tenant_id: 'default', organization_id: (await t.admin()).organization_id });
    const saved = await t.dispatch<{ user: string; organization: string }>('fw.create', { model: 'ir.filter', values: { name: 'Mine', action_key: 'crm.lead', search } }, ann);
    expect(saved).toMatchObject({ user: ann.user_id, organization: ann.organization_id });
    const stored = await t.dispatch<{ email: string; name: string; role: string }>('fw.read_one', { model: 'res.user', id: ann.user_id });
    expect(stored).toMatchObject({ email: 'ann@example.com', name: 'Ann', role: 'user' });
    // the seeded admin's lead is in Ann's organization: the record rule lets her see it
    expect((await t.dispatch<{ items: unknown[] }>('fw.search', { model: 'crm.lead' }, ann)).items).toHaveLength(1);
    // no organization: she sees none of its leads
    const loner = await t.newUser({ organization_id: null });
    expect(loner.organization_id).toBeNull();
    expect((await t.dispatch<{ items: unknown[] }>('fw.search', { model: 'crm.lead' }, loner)).items).toEqual([]);
  });

  it('groups: newUser({ groups }) stores them and user({ groups }) holds them, with the role each stands for (base.admin: admin); an undeclared group is refused (422 UNKNOWN_GROUP)', async () => {
    const deputy = await t.newUser({ groups: ['base.admin'] });
    expect(deputy).toMatchObject({ role: 'user', groups: ['base.admin'] });
    // crm.lead lets only admin delete: base.admin stands for it
    const lead = await t.dispatch<{ id: string }>('fw.create', { model: 'crm.lead', values: { name: 'Deputy', organization: deputy.organization_id } }, deputy);
    await t.dispatch('fw.delete', { model: 'crm.lead', id: lead.id }, deputy);
    const inMemory = t.user({ groups: ['base.admin'], organization_id: deputy.organization_id });
    const other = await t.dispatch<{ id: string }>('fw.create', { model: 'crm.lead', values: { name: 'Memory', organization: deputy.organization_id } }, inMemory);
    await t.dispatch('fw.delete', { model: 'crm.lead', id: other.id }, inMemory);
    const plain = await t.newUser();
    const denied = await rejection(t.dispatch('fw.delete', { model: 'crm.lead', id: (await t.dispatch<{ id: string }>('fw.create', { model: 'crm.lead', values: { name: 'Kept' } }, plain)).id }, plain));
    expect(denied).toMatchObject({ status: 403, code: 'ACCESS_DENIED' });
    expect(await rejection(t.newUser({ groups: ['base.admni'] }))).toMatchObject({ status: 422, code: 'UNKNOWN_GROUP' });
  });

  it('admin() fails with TEST_ADMIN_NOT_FOUND when the seeded admin is gone', async () => {
    const admin = await t.admin();
    await t.dispatch('fw.update', { model: 'res.user', id: admin.user_id, values: { email: 'someone-else@example.com' } });
    const err = await rejection(t.admin());
    expect(err).toBeInstanceOf(FwError);
    expect(err).toMatchObject({ status: 404, code: 'TEST_ADMIN_NOT_FOUND' });
  });
});

describe('bootTestKernel failures leave nothing behind', () => {
  it('a root without the project\'s apps fails the boot and removes the temp folder', async () => {
    const before = testDirs();
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-root-'));
    try {
      await expect(bootTestKernel({ root: empty })).rejects.toThrow();
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
    expect(testDirs()).toEqual(before);
  });

  it('an invalid setting fails before boot and removes the temp folder', async () => {
    const before = testDirs();
    await expect(bootTestKernel({ settings: { BCRYPT_COST: 'many' } })).rejects.toMatchObject({ code: 'BOOT_ERROR' });
    expect(testDirs()).toEqual(before);
  });

  it('close() stops the kernel and removes the temp folder, once', async () => {
    const t = await bootTestKernel({ settings: { ACTIVE_MODULES: 'base', ACTIVE_DOMAINS: '' } });
    expect(fs.existsSync(t.dataDir)).toBe(true);
    await t.close();
    await t.close();
    expect(fs.existsSync(t.dataDir)).toBe(false);
  });
});

describe('waitFor', () => {
  it('returns the first truthy value of the polled function', async () => {
    let n = 0;
    expect(await waitFor(() => (++n >= 3 ? n : 0), 'the third poll')).toBe(3);
  });

  it('fails naming what it waited for, with the last error, when the deadline passes', async () => {
    await expect(waitFor(() => { throw new Error('not yet'); }, 'the impossible', 30)).rejects.toThrow('timed out after 30 ms waiting for the impossible: Error: not yet');
  });
});
