/**
 * Forgetting `fw generate` after a declaration change stops the boot with the command to run,
 * instead of every write on the model answering 500 (Prisma's "Unknown argument"): `fw generate`
 * records what its clients were built from, and boot compares the loaded declarations with it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { f } from '../../../src/kernel/declare.ts';
import { BootError } from '../../../src/kernel/errors.ts';
import { checkGeneratedClient, writeClientFingerprint } from '../../../src/kernel/generate/index.ts';
import { fullRegistry } from '../../../src/kernel/generate/registry-all.ts';
import { loadAllApps, projectLayout, type ProjectLayout } from '../../../src/kernel/modules/loader.ts';
import type { LoadedApp } from '../../../src/kernel/registry/registry.ts';
import { tempDir } from '../../helpers/kernel.ts';

describe('the generated client against the declarations', () => {
  let layout: ProjectLayout;
  let apps: LoadedApp[];

  beforeAll(async () => {
    const root = tempDir('fingerprint');
    layout = { root, fwRoot: projectLayout().fwRoot };
    apps = await loadAllApps(projectLayout());
  });
  afterAll(() => fs.rmSync(layout.root, { recursive: true, force: true }));

  it('without a generated client the boot is refused, naming fw generate', () => {
    expect(() => checkGeneratedClient(layout, apps)).toThrow(BootError);
    expect(() => checkGeneratedClient(layout, apps)).toThrow(/no generated database client .*: run fw generate/);
  });

  it('after fw generate the declarations match', async () => {
    writeClientFingerprint(layout, await fullRegistry(projectLayout()));
    expect(fs.existsSync(path.join(layout.root, 'generated', 'prisma', 'models.json'))).toBe(true);
    expect(() => checkGeneratedClient(layout, apps)).not.toThrow();
  });

  it('a field added since is refused with the model, its file and the command', () => {
    const changed = apps.map((a) => (a.name !== 'crm.sales' ? a : {
      ...a, models: a.models.map((m) => ({ ...m, fields: { ...m.fields, deadline: f.datetime() } })),
    }));
    expect(() => checkGeneratedClient(layout, changed)).toThrow('the generated database client is older than the declaration of crm.lead (schema/crm.sales/crm.lead.ts): run fw generate');
  });

  it('a label change needs no regeneration, and fixture apps without a root are not checked', () => {
    const relabelled = apps.map((a) => (a.name !== 'crm.sales' ? a : {
      ...a, models: a.models.map((m) => ({ ...m, description: 'Opportunity' })),
    }));
    expect(() => checkGeneratedClient(layout, relabelled)).not.toThrow();
    const fixture: LoadedApp = { ...apps[0], name: 'fixture', root: undefined, models: [{ key: 'fixture.thing', description: 'Thing', fields: { name: f.char(10) } }] };
    expect(() => checkGeneratedClient(layout, [...apps, fixture])).not.toThrow();
  });
});
