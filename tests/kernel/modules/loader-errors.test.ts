/**
 * An error thrown while a project file runs (a model file calling `f.chr`, an app's index) stops
 * the boot naming the file and line it came from (src/kernel/modules/loader.ts): the message
 * alone, "f.chr is not a function", named neither.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BootError } from '../../../src/kernel/errors.ts';
import { loadAllApps, rootDirs, type ProjectLayout } from '../../../src/kernel/modules/loader.ts';
import { tempDir } from '../../helpers/kernel.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A project of one app `shop_app` with one model file and, when given, an index. */
function project(model: string, index?: string): ProjectLayout {
  const root = tempDir('loader');
  dirs.push(root);
  const folders = rootDirs(root);
  fs.mkdirSync(path.join(folders.apps, 'shop_app'), { recursive: true });
  const manifest = { name: 'shop_app', summary: 's', description: 'd', author: 'tests', category: 'Test', version: '1.0.0', depends: [], data: [] };
  fs.writeFileSync(path.join(folders.apps, 'shop_app/manifest.ts'), `export default ${JSON.stringify(manifest)};\n`);
  if (index !== undefined) fs.writeFileSync(path.join(folders.apps, 'shop_app/index.ts'), index);
  fs.mkdirSync(path.join(folders.schema, 'shop_app'), { recursive: true });
  fs.writeFileSync(path.join(folders.schema, 'shop_app/shop.order.ts'), model);
  return { root, fwRoot: root };
}

const failure = (layout: ProjectLayout) => loadAllApps(layout).then(() => { throw new Error('the apps loaded'); }, (e: unknown) => e as Error);

describe('errors while a project file runs', () => {
  it('a model file that throws names its file and line', async () => {
    const err = await failure(project([
      'const f: Record<string, (n: number) => unknown> = { char: (size) => ({ type: \'char\', size }) };',
      'export default {',
      '  key: \'shop.order\', description: \'Order\',',
      '  fields: { name: f.chr(20) },',
      '};',
      '',
    ].join('\n')));
    expect(err).toBeInstanceOf(BootError);
    expect(err.message).toMatch(/schema\/shop_app\/shop\.order\.ts:4:\d+: f\.chr is not a function \(did you mean char\?\)$/);
  });

  it('a field constructor that does not exist is told with the ones that do', async () => {
    const err = await failure(project([
      'const f: Record<string, (n: number) => unknown> = {};',
      "export default { key: 'shop.order', description: 'Order', fields: { due: f.calendarday(1) } };",
      '',
    ].join('\n')));
    expect(err.message).toMatch(/shop\.order\.ts:2:\d+: f\.calendarday is not a function \(one of char, text, integer, float, boolean, datetime, json, uuid, enum, reference, one2many\)$/);
  });

  it('an app index that throws names its file and line too', async () => {
    const model = "export default { key: 'shop.order', description: 'Order', fields: {} };\n";
    const err = await failure(project(model, '\nconst broken = undefined as unknown as { x: () => void };\nbroken.x();\nexport const app = {};\n'));
    expect(err).toBeInstanceOf(BootError);
    expect(err.message).toMatch(/src\/apps\/shop_app\/index\.ts:3:\d+: Cannot read properties of undefined \(reading 'x'\)$/);
  });
});
