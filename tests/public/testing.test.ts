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
