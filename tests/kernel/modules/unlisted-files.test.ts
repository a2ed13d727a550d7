/**
 * A view file in `views/<app>/` or a translation file in `src/apps/<app>/i18n/` that the app's
 * manifest does not list in `data` is never loaded, so the boot stops naming the file and the
 * manifest (src/kernel/modules/unlisted-files.ts, called by the loader for every app it loads).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppManifest } from '../../../src/kernel/app.ts';
import { BootError } from '../../../src/kernel/errors.ts';
import { loadAllApps, projectLayout, rootDirs, type ProjectLayout } from '../../../src/kernel/modules/loader.ts';
import { refuseUnlistedTranslations, refuseUnlistedViews, unlistedTranslations, unlistedViews } from '../../../src/kernel/modules/unlisted-files.ts';
import { tempDir } from '../../helpers/kernel.ts';

const manifest = (name: string, data: string[]): AppManifest => ({
  name, summary: name, description: name, author: 'tests', category: 'Test', version: '1.0.0', depends: [], data,
});

describe('unlistedViews (pure)', () => {
  it('answers the .xml files data does not list as views/<file>, sorted', () => {
    expect(unlistedViews(['b_list.xml', 'a_form.xml', 'c_list.xml'], ['data/menus.json', 'views/c_list.xml'])).toEqual(['a_form.xml', 'b_list.xml']);
  });

  it('nothing when every view is listed; files that are not views are not its business', () => {
    expect(unlistedViews(['a_list.xml', 'README.md', 'notes.txt'], ['views/a_list.xml'])).toEqual([]);
    expect(unlistedViews([], ['views/gone.xml'])).toEqual([]);
  });

  it('a data entry outside views/ does not list a view of the same name', () => {
    expect(unlistedViews(['a_list.xml'], ['a_list.xml', 'data/a_list.xml'])).toEqual(['a_list.xml']);
  });
});

describe('unlistedTranslations (pure)', () => {
  it('answers the .json files data does not list as i18n/<file>, sorted; other files are not its business', () => {
    expect(unlistedTranslations(['fr.json', 'de.json', 'notes.md'], ['views/a.xml', 'i18n/fr.json'])).toEqual(['de.json']);
    expect(unlistedTranslations(['fr.json'], ['fr.json', 'data/fr.json'])).toEqual(['fr.json']);
    expect(unlistedTranslations([], ['i18n/fr.json'])).toEqual([]);
  });
});

describe('the loader refuses an unlisted view file', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  /** A project of one app `shop_app` whose views folder holds `files`, its manifest listing `data`. */
  function project(files: string[], data: string[]): ProjectLayout {
    const root = tempDir('views');
    dirs.push(root);
    // a project of its own only: no foundation apps from another root
    const layout: ProjectLayout = { root, fwRoot: root };
    const folders = rootDirs(root);
    fs.mkdirSync(path.join(folders.apps, 'shop_app'), { recursive: true });
    fs.writeFileSync(path.join(folders.apps, 'shop_app/manifest.ts'), `export default ${JSON.stringify(manifest('shop_app', data))};\n`);
    fs.mkdirSync(path.join(folders.views, 'shop_app'), { recursive: true });
    for (const f of files) fs.writeFileSync(path.join(folders.views, 'shop_app', f), '<view/>');
    return layout;
  }

  it('a view file not in data stops the boot with a BootError naming the file and the manifest', async () => {
    const layout = project(['shop_order_list.xml', 'shop_order_form.xml'], ['views/shop_order_list.xml']);
    const err = await loadAllApps(layout).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(BootError);
    expect((err as BootError).message).toBe("src/apps/shop_app/manifest.ts: views/shop_app/shop_order_form.xml is not listed in data (add 'views/shop_order_form.xml'), so it is never loaded");
    expect((err as BootError).details).toEqual({ app: 'shop_app', files: ['views/shop_app/shop_order_form.xml'] });
  });

  it('several unlisted files are named together', () => {
    const layout = project(['b.xml', 'a.xml'], []);
    expect(() => refuseUnlistedViews(rootDirs(layout.root).views, manifest('shop_app', []))).toThrow(/views\/shop_app\/a.xml, views\/shop_app\/b.xml are not listed in data \(add 'views\/a.xml', 'views\/b.xml'\), so they are never loaded/);
  });

  it('an app whose views are all listed, or that has no views folder, loads', async () => {
    const layout = project(['shop_order_list.xml'], ['views/shop_order_list.xml']);
    expect((await loadAllApps(layout)).map((a) => a.name)).toEqual(['shop_app']);
    expect(() => refuseUnlistedViews(rootDirs(layout.root).views, manifest('other_app', []))).not.toThrow();
  });

  it('every app of this project lists each of its view and translation files', async () => {
    expect((await loadAllApps(projectLayout())).length).toBeGreaterThan(5);
  });
});

describe('the loader refuses an unlisted translation file', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  /** A project of one app `shop_app` whose i18n folder holds `files`, its manifest listing `data`. */
  function project(files: string[], data: string[]): ProjectLayout {
    const root = tempDir('i18n');
    dirs.push(root);
    const layout: ProjectLayout = { root, fwRoot: root };
    const folders = rootDirs(root);
    fs.mkdirSync(path.join(folders.apps, 'shop_app', 'i18n'), { recursive: true });
    fs.writeFileSync(path.join(folders.apps, 'shop_app/manifest.ts'), `export default ${JSON.stringify(manifest('shop_app', data))};\n`);
    for (const f of files) fs.writeFileSync(path.join(folders.apps, 'shop_app', 'i18n', f), '{}');
    return layout;
  }

  it('an i18n file not in data stops the boot with a BootError naming the file and the manifest', async () => {
    const layout = project(['fr.json'], []);
    const err = await loadAllApps(layout).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(BootError);
    expect((err as BootError).message).toBe("src/apps/shop_app/manifest.ts: src/apps/shop_app/i18n/fr.json is not listed in data (add 'i18n/fr.json'), so it is never loaded");
    expect((err as BootError).details).toEqual({ app: 'shop_app', files: ['src/apps/shop_app/i18n/fr.json'] });
  });

  it('several unlisted files are named together; a listed one is not named', () => {
    const layout = project(['fr.json', 'de.json', 'es.json'], ['i18n/fr.json']);
    expect(() => refuseUnlistedTranslations(rootDirs(layout.root).apps, manifest('shop_app', ['i18n/fr.json'])))
      .toThrow("src/apps/shop_app/i18n/de.json, src/apps/shop_app/i18n/es.json are not listed in data (add 'i18n/de.json', 'i18n/es.json'), so they are never loaded");
  });

  it('an app whose translations are all listed, or that has no i18n folder, loads', async () => {
    const layout = project(['fr.json'], ['i18n/fr.json']);
    expect((await loadAllApps(layout)).map((a) => a.name)).toEqual(['shop_app']);
    expect(() => refuseUnlistedTranslations(rootDirs(layout.root).apps, manifest('other_app', []))).not.toThrow();
  });
});
