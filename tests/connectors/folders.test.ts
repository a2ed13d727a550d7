/**
 * Where a local storage connector may keep files (src/apps/connectors/services/folders.ts): with
 * NODE_ENV=production its folder must be STORAGE_LOCAL_ROOT or inside it, or inside a folder
 * listed in CONNECTOR_LOCAL_ROOTS; a tenant administrator cannot make the server write, or probe,
 * elsewhere on its disks. Real folders.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalProvider } from '../../src/apps/connectors/providers/local/index.ts';
import { providerContextOf } from '../../src/apps/connectors/providers/context.ts';
import { folderPolicy } from '../../src/apps/connectors/services/folders.ts';
import { BootError } from '../../src/kernel/errors.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { tempDir } from '../helpers/kernel.ts';

const setup = (env: Record<string, string> = {}) => {
  const dir = tempDir('folders');
  const settings = loadSettings({ NODE_ENV: 'production', DATA_DIR: path.join(dir, 'data'), ...env });
  return { dir, settings, ctx: providerContextOf(settings, 'default', 'c1') };
};

describe('local connectors in production', () => {
  it('a folder outside STORAGE_LOCAL_ROOT is refused before anything touches the disk: the test says why, naming the setting, and the backend is 403 CONNECTOR_FOLDER_NOT_ALLOWED', async () => {
    const { dir, ctx } = setup();
    const refused = [path.join(dir, 'elsewhere'), path.join(dir, 'data', 'storage', '..', '..', 'elsewhere'), path.join(dir, 'data', 'storage-sibling')];
    for (const root of refused) {
      const err = (() => { try { createLocalProvider().from_config({ root }, ctx); } catch (e) { return e; } return null; })();
      expect(err, root).toMatchObject({ code: 'CONNECTOR_FOLDER_NOT_ALLOWED', status: 403 });
      expect((err as Error).message).toContain('CONNECTOR_LOCAL_ROOTS');
    }
    for (const root of refused) expect(fs.existsSync(root), root).toBe(false);
  });

  it('the default folder, a folder inside STORAGE_LOCAL_ROOT and a folder inside a listed one are allowed and written', async () => {
    const nas = path.join(tempDir('listed'), 'nas');
    const { dir, ctx } = setup({ CONNECTOR_LOCAL_ROOTS: `${tempDir('listed-other')},${nas}` });
    for (const root of ['', path.join(dir, 'data', 'storage', 'archive'), path.join(nas, 'tenant-a')]) {
      const result = await createLocalProvider().from_config(root ? { root } : {}, ctx).test_connection();
      expect(result, root || 'default').toMatchObject({ success: true });
    }
    expect(fs.existsSync(path.join(nas, 'tenant-a'))).toBe(true);
  });

  it('outside production any folder is allowed (local development)', async () => {
    const dir = tempDir('folders-dev');
    const ctx = providerContextOf(loadSettings({ NODE_ENV: 'development', DATA_DIR: path.join(dir, 'data') }), 'default');
    expect(await createLocalProvider().from_config({ root: path.join(dir, 'anywhere') }, ctx).test_connection()).toMatchObject({ success: true });
  });

  it('a relative CONNECTOR_LOCAL_ROOTS entry is a BootError CONNECTOR_SETTINGS_INVALID naming it', () => {
    const err = (() => { try { folderPolicy({ NODE_ENV: 'production', STORAGE_LOCAL_ROOT: '/srv/fw/storage', CONNECTOR_LOCAL_ROOTS: ['nas/archive'] }); } catch (e) { return e; } return null; })();
    expect(err).toBeInstanceOf(BootError);
    expect(err).toMatchObject({ code: 'CONNECTOR_SETTINGS_INVALID' });
    expect((err as BootError).message).toContain('nas/archive');
  });
});
