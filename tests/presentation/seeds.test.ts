/**
 * Navigation seed data (ir.action and ir.menu records of the apps' JSON data files): written with
 * the spec's field names (`parent_id`, `action_id`, `category`) and idempotent, whether a data
 * file is loaded again or a tenant runs its whole seed path again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { BootError } from '../../src/kernel/errors.ts';
import { loadDataFile } from '../../src/kernel/seed-data.ts';
import { bootTestKernel, tempDir, type TestKernel } from '../helpers/kernel.ts';

const T = 'seeds';
const SETTINGS = { ACTIVE_MODULES: 'base,auth,presentation,connectors,storage', ACTIVE_DOMAINS: 'crm' };

let dataDir: string;
let tk: TestKernel;

type Row = { xml_id: string; record_uuid: string; [k: string]: unknown };

/** ir.action and ir.menu rows of a tenant, straight from its database. */
async function rows(kernel = tk.kernel): Promise<{ action: Row[]; menu: Row[] }> {
  const db = await kernel.tenants.get(T);
  const read = (model: string) => delegateOf(db, kernel.registry.model(model)).findMany({ orderBy: { dbid: 'asc' } }) as Promise<Row[]>;
  return { action: await read('ir.action'), menu: await read('ir.menu') };
}

/** xml_id → number of rows carrying it. */
const countByXmlId = (rs: Row[]) => rs.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.xml_id]: (acc[r.xml_id] ?? 0) + 1 }), {});

/** Every xml_id the active apps' JSON data files declare, per model. */
function declared(kernel = tk.kernel): { action: string[]; menu: string[] } {
  const out = { action: [] as string[], menu: [] as string[] };
  for (const app of kernel.registry.apps) {
    for (const file of app.dataFiles.filter((f) => f.endsWith('.json'))) {
      for (const block of JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{ model: string; records: Array<{ xml_id: string }> }>) {
        const key = block.model === 'ir.action' ? 'action' : block.model === 'ir.menu' ? 'menu' : null;
        if (key) out[key].push(...block.records.map((r) => r.xml_id));
      }
    }
  }
  return out;
}

/** Loads every JSON data file of the active apps again, in load order, the way tenant initialisation does. */
async function reloadDataFiles(kernel = tk.kernel): Promise<number> {
  const client = await kernel.tenants.get(T);
  let written = 0;
  for (const app of kernel.registry.apps) {
    for (const file of app.dataFiles.filter((f) => f.endsWith('.json'))) {
      written += await kernel.execute(client, systemPrincipal(T), (env) => loadDataFile(env, file));
    }
  }
  return written;
}

beforeAll(async () => {
  dataDir = tempDir('seeds');
  tk = await bootTestKernel({ dataDir, settings: SETTINGS });
  await tk.kernel.tenants.get(T);
});

afterAll(async () => {
  await tk?.cleanup();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('seeded navigation', () => {
  it('opening a tenant seeds every declared action and menu exactly once', async () => {
    const want = declared();
    expect(want.menu).toEqual(expect.arrayContaining(['storage.menu_documents', 'connectors.menu_connectors', 'crm.menu_root']));
    const { action, menu } = await rows();
    expect(countByXmlId(action)).toEqual(Object.fromEntries(want.action.map((x) => [x, 1])));
    expect(countByXmlId(menu)).toEqual(Object.fromEntries(want.menu.map((x) => [x, 1])));
  });

  it('the Documents entry is top level, category application, sequence 20, opening storage.action_documents', async () => {
    const { action, menu } = await rows();
    const docs = menu.find((m) => m.xml_id === 'storage.menu_documents')!;
    const docsAction = action.find((a) => a.xml_id === 'storage.action_documents')!;
    expect(docs).toMatchObject({ name: 'Documents', parent: null, category: 'application', sequence: 20, action: docsAction.record_uuid });
    expect(docsAction).toMatchObject({ name: 'Documents', model_key: 'storage.document', view_type: 'list' });
  });

  it('the Connectors entry sits under Settings > Integrations with sequence 40, admin-only, opening connectors.action_connectors', async () => {
    const { action, menu } = await rows();
    const uuid = (x: string) => menu.find((m) => m.xml_id === x)!.record_uuid;
    const connectors = menu.find((m) => m.xml_id === 'connectors.menu_connectors')!;
    expect(connectors).toMatchObject({
      name: 'Connectors', parent: uuid('base.menu_integrations'), sequence: 40, roles: 'admin',
      action: action.find((a) => a.xml_id === 'connectors.action_connectors')!.record_uuid,
    });
    expect(menu.find((m) => m.xml_id === 'base.menu_integrations')).toMatchObject({ name: 'Integrations', parent: uuid('base.menu_settings') });
    expect(action.find((a) => a.xml_id === 'connectors.action_connectors')).toMatchObject({ model_key: 'ir.connector' });
  });
});

describe('idempotence', () => {
  it('loading every data file twice more creates no duplicate ir.menu or ir.action rows and keeps their ids and links', async () => {
    const before = await rows();
    const want = declared();
    expect(await reloadDataFiles()).toBe(want.action.length + want.menu.length);
    expect(await reloadDataFiles()).toBe(want.action.length + want.menu.length);
    const after = await rows();
    expect(countByXmlId(after.action)).toEqual(countByXmlId(before.action));
    expect(countByXmlId(after.menu)).toEqual(countByXmlId(before.menu));
    const links = (r: { menu: Row[] }) => r.menu.map((m) => [m.xml_id, m.record_uuid, m.parent, m.action, m.sequence]);
    expect(links(after)).toEqual(links(before));
    expect(after.action.map((a) => [a.xml_id, a.record_uuid])).toEqual(before.action.map((a) => [a.xml_id, a.record_uuid]));
  });

  it('re-running the tenant seed path (app versions forgotten, tenant reopened by another process) creates no duplicates', async () => {
    const before = await rows();
    const db = await tk.kernel.tenants.get(T);
    const modules = delegateOf(db, tk.kernel.registry.model('ir.module'));
    expect((await modules.findMany({})).length).toBeGreaterThanOrEqual(6);
    await modules.updateMany({ data: { version: '0.0.0' } });
    await tk.cleanup(); // the folder is ours: it stays for the next kernel

    tk = await bootTestKernel({ dataDir, settings: SETTINGS });
    const after = await rows(); // opening the tenant re-seeds every app: the versions differ
    const reseeded = await delegateOf(await tk.kernel.tenants.get(T), tk.kernel.registry.model('ir.module')).findMany({});
    expect(reseeded.every((m) => m.version !== '0.0.0')).toBe(true);
    expect(countByXmlId(after.action)).toEqual(countByXmlId(before.action));
    expect(countByXmlId(after.menu)).toEqual(countByXmlId(before.menu));
    expect(Object.values(countByXmlId(after.menu)).every((n) => n === 1)).toBe(true);
    expect(after.menu.map((m) => [m.xml_id, m.record_uuid, m.parent, m.action])).toEqual(before.menu.map((m) => [m.xml_id, m.record_uuid, m.parent, m.action]));
  });

  it('a data file referencing an xml_id that is not loaded yet is refused, naming the file and the reference', async () => {
    const dir = tempDir('seed-file');
    try {
      const file = path.join(dir, 'broken_menus.json');
      fs.writeFileSync(file, JSON.stringify([{ model: 'ir.menu', records: [{ xml_id: 'test.menu_orphan', name: 'Orphan', parent_id: 'test.menu_missing' }] }]));
      const client = await tk.kernel.tenants.get(T);
      const err = await tk.kernel.execute(client, systemPrincipal(T), (env) => loadDataFile(env, file)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BootError);
      expect((err as Error).message).toBe('broken_menus.json: ir.menu "test.menu_missing" is referenced before it is loaded');
      expect((await rows()).menu.some((m) => m.xml_id === 'test.menu_orphan')).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
