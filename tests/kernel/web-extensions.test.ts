/**
 * The generated `@fw/extensions` module: every app of a project with a web/index.ts(x) becomes one
 * lazy import (one chunk per app), sorted by name; apps without a web/ folder are left out; the
 * file is rewritten only when its text changes (a dev server restarts on a change).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findWebEntries, webExtensionsSource, writeWebExtensions } from '../../src/kernel/generate/web-extensions.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-web-ext-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const touch = (rel: string) => { fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true }); fs.writeFileSync(path.join(root, rel), ''); };

describe('web extensions module', () => {
  it('lists the apps with a web/index.tsx or index.ts, sorted, and no other', () => {
    touch('src/apps/zoo/web/index.ts');
    touch('src/apps/acme.maps/web/index.tsx');
    touch('src/apps/plain/manifest.ts');
    touch('src/apps/half/web/Widget.tsx');
    expect(findWebEntries(path.join(root, 'src/apps'))).toEqual([
      { name: 'acme.maps', webEntry: path.join(root, 'src/apps/acme.maps/web/index.tsx') },
      { name: 'zoo', webEntry: path.join(root, 'src/apps/zoo/web/index.ts') },
    ]);
    expect(findWebEntries(path.join(root, 'nowhere'))).toEqual([]);
  });

  it('each app is a lazy import of its absolute entry path', () => {
    const text = webExtensionsSource([{ name: 'acme.maps', webEntry: '/p/src/apps/acme.maps/web/index.tsx' }]);
    expect(text).toContain('  "acme.maps": () => import("/p/src/apps/acme.maps/web/index.tsx"),');
    expect(text).toContain('export default loaders;');
    expect(webExtensionsSource([])).toContain('const loaders = {\n};');
  });

  it('writes the file when its text changes, and only then', () => {
    const out = path.join(root, 'generated/web-extensions.ts');
    const apps = findWebEntries(path.join(root, 'src/apps'));
    expect(writeWebExtensions(out, apps)).toBe(true);
    expect(fs.readFileSync(out, 'utf8')).toBe(webExtensionsSource(apps));
    expect(writeWebExtensions(out, apps)).toBe(false);
    expect(writeWebExtensions(out, apps.slice(1))).toBe(true);
  });
});
