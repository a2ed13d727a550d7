/**
 * `fw new project` and `fw new app`: the templates are pure functions of their names (snapshots),
 * and the writers refuse what would overwrite work or break the naming rules, with stable codes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newApp, newProject } from '../../../src/kernel/scaffold/index.ts';
import { appFiles, domainFile, projectFiles } from '../../../src/kernel/scaffold/templates.ts';
import { expectFwError, tempDir } from '../../helpers/kernel.ts';

const dirs: string[] = [];
const temp = (label: string): string => {
  const d = tempDir(label);
  dirs.push(d);
  return d;
};
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

describe('the scaffold templates', () => {
  it('a project: the reviewed files (package depending on fw, install-links, postinstall generate, layout)', async () => {
    const files = projectFiles({ name: 'helpdesk', fwSpec: 'file:/opt/fw', versions: { vitest: '^4.1.12', typescript: '^7.0.2' } });
    await expect(JSON.stringify(files, null, 2)).toMatchFileSnapshot('./__snapshots__/project-files.json');
    expect(JSON.parse(files['package.json']).dependencies).toEqual({ fw: 'file:/opt/fw' });
  });

  it('an app: manifest, model, four views, menu, command, hook and test, importing fw by package name only', async () => {
    const files = appFiles({ app: 'helpdesk.desk', model: 'helpdesk.ticket' });
    await expect(JSON.stringify(files, null, 2)).toMatchFileSnapshot('./__snapshots__/app-files.json');
    for (const [file, text] of Object.entries(files)) {
      if (file.endsWith('.ts') && !file.startsWith('tests/')) expect(text, file).not.toMatch(/from '\.\.\/\.\.\/(src|kernel)/);
    }
  });

  it('the same names always give the same files (pure)', () => {
    expect(appFiles({ app: 'a.b', model: 'a.c' })).toEqual(appFiles({ app: 'a.b', model: 'a.c' }));
    expect(domainFile('helpdesk', ['helpdesk.desk', 'helpdesk.sla'])).toContain("ACTIVE_MODULES: ['helpdesk.desk', 'helpdesk.sla']");
  });
});

describe('the scaffold writers', () => {
  it('a project folder that has files is refused (PROJECT_EXISTS); an empty one is filled', async () => {
    const dir = temp('scaffold');
    fs.writeFileSync(path.join(dir, 'keep.txt'), 'mine');
    await expectFwError(Promise.resolve().then(() => newProject(dir)), 409, 'PROJECT_EXISTS');
    expect(fs.readdirSync(dir)).toEqual(['keep.txt']);
    const empty = path.join(temp('scaffold'), 'acme');
    expect(newProject(empty)).toContain('package.json');
  });

  it('an app name or model key outside the rules, a res/ir domain and an existing app are refused with their codes', async () => {
    const root = path.join(temp('scaffold'), 'p');
    newProject(root);
    await expectFwError(newApp(root, 'Helpdesk'), 400, 'INVALID_APP_NAME');
    await expectFwError(newApp(root, 'res.users'), 400, 'INVALID_APP_NAME');
    await expectFwError(newApp(root, 'helpdesk.desk', { model: 'crm.ticket' }), 400, 'INVALID_MODEL_KEY');
    expect(await newApp(root, 'helpdesk.desk', { model: 'helpdesk.ticket' })).toContain('.env');
    await expectFwError(newApp(root, 'helpdesk.desk'), 409, 'APP_EXISTS');
    // a model another app declares is refused before anything is written
    const before = fs.readdirSync(root, { recursive: true }).sort();
    const err = await expectFwError(newApp(root, 'helpdesk.portal', { model: 'helpdesk.ticket' }), 409, 'MODEL_EXISTS');
    expect(err.message).toBe('model helpdesk.ticket is already declared by app helpdesk.desk (schema/helpdesk.desk/helpdesk.ticket.ts): name another with --model');
    expect(fs.readdirSync(root, { recursive: true }).sort()).toEqual(before);
  });

  it('a second app of the domain joins its list; the domain is added to .env once', async () => {
    const root = path.join(temp('scaffold'), 'p');
    newProject(root);
    await newApp(root, 'helpdesk.desk', { model: 'helpdesk.ticket' });
    await newApp(root, 'helpdesk.sla', { model: 'helpdesk.policy' });
    expect(fs.readFileSync(path.join(root, 'src', 'domains', 'helpdesk.ts'), 'utf8')).toContain("['helpdesk.desk', 'helpdesk.sla']");
    expect(fs.readFileSync(path.join(root, '.env'), 'utf8').match(/^ACTIVE_DOMAINS=.*$/gm)).toEqual(['ACTIVE_DOMAINS=helpdesk']);
  });
});
