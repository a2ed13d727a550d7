import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BadRequest, Conflict } from '../errors.js';
import { FW_ROOT, rootDirs } from '../modules/loader.js';
import { appFiles, domainFile, projectFiles, type Files } from './templates.js';

const APP_NAME = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;
const MODEL_KEY = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

function writeFiles(root: string, files: Files): string[] {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  return Object.keys(files);
}

function fwPackage(): { version: string; devDependencies: Record<string, string> } {
  return JSON.parse(fs.readFileSync(path.join(FW_ROOT, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };
}

/**
 * `fw new project <dir>`: a team project with fw's top-level layout that depends on this fw
 * (`fwSpec`, default a `file:` dependency on this checkout). Refuses a folder that has files.
 */
export function newProject(dir: string, opts: { fwSpec?: string } = {}): string[] {
  const root = path.resolve(dir);
  if (fs.existsSync(root) && fs.readdirSync(root).length > 0) {
    throw new Conflict(`${dir} already exists and is not empty`, { dir }, 'PROJECT_EXISTS');
  }
  const name = path.basename(root).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-._]+/, '') || 'fw-project';
  const dev = fwPackage().devDependencies;
  return writeFiles(root, projectFiles({
    name,
    fwSpec: opts.fwSpec ?? `file:${FW_ROOT}`,
    versions: { vitest: dev.vitest, typescript: dev.typescript },
  }));
}

/**
 * `fw new app <domain>.<app>` in the project at `root`: the app (manifest, one model, four views,
 * an action and a menu, a command, a hook, a test), its domain's list entry, and its domain in the
 * project's `.env` ACTIVE_DOMAINS. Returns the files written, relative to `root`.
 */
export async function newApp(root: string, app: string, opts: { model?: string } = {}): Promise<string[]> {
  if (!APP_NAME.test(app)) {
    throw new BadRequest(`app name "${app}" must read <domain>.<app> in lower_snake_case (e.g. helpdesk.desk)`, { app }, 'INVALID_APP_NAME');
  }
  const domain = app.slice(0, app.indexOf('.'));
  const model = opts.model ?? app;
  if (!MODEL_KEY.test(model) || !model.startsWith(`${domain}.`)) {
    throw new BadRequest(`model "${model}" must be named ${domain}.<name>: an app's models carry its domain's prefix`, { model }, 'INVALID_MODEL_KEY');
  }
  if (domain === 'res' || domain === 'ir') {
    throw new BadRequest(`res.* and ir.* belong to fw's foundation apps; choose another domain`, { app }, 'INVALID_APP_NAME');
  }
  const dirs = rootDirs(root);
  if (fs.existsSync(path.join(dirs.apps, app))) throw new Conflict(`app ${app} already exists (src/apps/${app})`, { app }, 'APP_EXISTS');
  // checked before anything is written: a model another app declares left a half-written app
  // behind that stopped every boot (BOOT_ERROR: declared by both)
  const owner = fs.existsSync(dirs.schema) ? fs.readdirSync(dirs.schema).find((a) => fs.existsSync(path.join(dirs.schema, a, `${model}.ts`))) : undefined;
  if (owner) {
    throw new Conflict(`model ${model} is already declared by app ${owner} (schema/${owner}/${model}.ts): name another with --model`, { model, app: owner }, 'MODEL_EXISTS');
  }

  const written = writeFiles(root, appFiles({ app, model }));
  const domainPath = path.join(dirs.domains, `${domain}.ts`);
  const listed = fs.existsSync(domainPath)
    ? ((await import(`${pathToFileURL(domainPath).href}?t=${Date.now()}`)) as { default: { ACTIVE_MODULES: string[] } }).default.ACTIVE_MODULES
    : [];
  fs.mkdirSync(dirs.domains, { recursive: true });
  fs.writeFileSync(domainPath, domainFile(domain, [...listed.filter((a) => a !== app), app]));
  written.push(path.relative(root, domainPath));

  const envFile = path.join(root, '.env');
  if (fs.existsSync(envFile)) {
    const text = fs.readFileSync(envFile, 'utf8');
    const line = /^ACTIVE_DOMAINS=(.*)$/m.exec(text);
    const active = (line?.[1] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (!active.includes(domain)) {
      const next = `ACTIVE_DOMAINS=${[...active, domain].join(',')}`;
      fs.writeFileSync(envFile, line ? text.replace(line[0], next) : `${text.trimEnd()}\n${next}\n`);
      written.push('.env');
    }
  }
  return written;
}
