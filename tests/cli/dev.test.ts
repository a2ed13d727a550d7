/**
 * `fw dev` on a copy of this repository's layout (its own fw root and project root, as in fw's
 * own repository), run as a developer runs it: the supervisor, its child servers on SQLite, the
 * files edited on disk. Each restart costs seconds, so the cases follow one another on one
 * running `fw dev` and share its state.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import WebSocket from 'ws';
import { assertClientBuilt, CHROMIUM, login, WEB_DIST } from '../web/helpers/browser.ts';
import { classify } from '../../src/kernel/dev/classify.ts';
import { tempDir } from '../helpers/kernel.ts';

const FW = path.resolve(import.meta.dirname, '../..');
const LONG = 180_000;
const ADMIN = { email: 'admin@example.com', password: 'dev-admin-pass-1' };
const VIEW = 'views/base/res_organization_form.xml';
const DECL = 'schema/base/res.country.ts';

let root: string;
let env: Record<string, string>;
let dev: ChildProcess;
let log = '';
let base: string;
let token: string;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Polls until `fn` returns a value (a deadline, not a timed assertion: restarts take seconds). */
async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 150_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not happen; fw dev said:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const edit = (file: string, fn: (s: string) => string) => fs.writeFileSync(path.join(root, file), fn(fs.readFileSync(path.join(root, file), 'utf8')));

async function plan(): Promise<string> {
  const res = await fetch(`${base}/api/presentation/view/res.organization.form`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(String(res.status));
  return res.text();
}

/** The acknowledgement payload of a graphql-ws connection (what the web client's live hub reads). */
function ackPayload(): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
    ws.on('message', (m) => {
      const msg = JSON.parse(m.toString()) as { type: string; payload?: Record<string, unknown> };
      if (msg.type === 'connection_ack') resolve(msg.payload);
      ws.close();
    });
    ws.on('error', reject);
  });
}

/** The CLI of the copy, outside fw dev (no FW_DEV). */
function fw(...args: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'fw.js'), ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

let browser: Browser;

beforeAll(async () => {
  assertClientBuilt();
  browser = await chromium.launch({ executablePath: CHROMIUM });
  root = path.join(tempDir('fw-dev'), 'project');
  fs.mkdirSync(root, { recursive: true });
  for (const p of ['bin', 'src', 'schema', 'views', 'prisma', 'generated', 'package.json', 'tsconfig.json']) fs.cpSync(path.join(FW, p), path.join(root, p), { recursive: true });
  fs.symlinkSync(path.join(FW, 'node_modules'), path.join(root, 'node_modules'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    DATA_DIR: path.join(root, 'data'), DATABASE_URL: '', HOST: '127.0.0.1', PORT: String(port), ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password,
    BCRYPT_COST: '4', LOG_LEVEL: 'warn', WEB_CLIENT_DIR: WEB_DIST, EVENT_WORKER: 'false',
  };
  dev = spawn(process.execPath, [path.join(root, 'bin', 'fw.js'), 'dev'], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  dev.stdout!.on('data', (c: Buffer) => { log += c.toString(); });
  dev.stderr!.on('data', (c: Buffer) => { log += c.toString(); });
  await until('the first server', async () => (log.includes('fw dev: server ready') ? true : undefined));
  const res = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
  expect(res.status).toBe(200);
  token = ((await res.json()) as { access_token: string }).access_token;
}, LONG);

afterAll(async () => {
  await browser?.close();
  if (dev && dev.exitCode === null) {
    await new Promise<void>((resolve) => {
      dev.once('exit', () => resolve());
      dev.kill('SIGTERM');
    });
  }
  if (root) fs.rmSync(path.dirname(root), { recursive: true, force: true });
});

describe('fw dev', () => {
  it('classifies a change: declarations, a restart, or nothing (an app\'s web client sources)', () => {
    expect(classify('/p', '/p/schema/base/res.country.ts')).toBe('declarations');
    expect(classify('/p', '/p/views/base/x.xml')).toBe('restart');
    expect(classify('/p', '/p/src/apps/base/data/menus.json')).toBe('restart');
    expect(classify('/p', '/p/src/domains/crm.ts')).toBe('restart');
    expect(classify('/p', '/p/.env')).toBe('restart');
    expect(classify('/p', '/p/src/apps/crm.sales/web/Widget.tsx')).toBeNull();
    expect(classify('/p', '/p/docs/x.md')).toBeNull();
  });

  it('a changed view label is served by the next server, fw dev still running, and an open tab reloads', async () => {
    expect(await plan()).toContain('"Identity"');
    const first = (await ackPayload())?.fw_dev_instance;
    // an open tab: a mark on its window survives anything but a page load
    const page = await browser.newPage({ baseURL: base });
    await login(page, { email: ADMIN.email, password: ADMIN.password });
    await page.waitForFunction(() => document.documentElement.dataset.liveLeader === 'true');
    await page.evaluate(() => { (window as unknown as { devMark: boolean }).devMark = true; });
    edit(VIEW, (s) => s.replace('string="Identity"', 'string="Identity (dev)"'));
    await until('the new label', async () => ((await plan()).includes('Identity (dev)') ? true : undefined));
    expect(dev.exitCode).toBeNull();
    // open tabs reconnect their live connection to a server of another name, and reload
    const second = (await ackPayload())?.fw_dev_instance;
    expect(first).toMatch(/^fw-dev-/);
    expect(second).toMatch(/^fw-dev-/);
    expect(second).not.toBe(first);
    // the tab reloaded once its live connection met the new server, and is signed in again
    await page.waitForFunction(() => !(window as unknown as { devMark?: boolean }).devMark, undefined, { timeout: 60_000 });
    await page.getByTestId('user-menu').waitFor();
    await page.close();
  }, LONG);

  it('a menu changed in a data file applies without a version bump (FW_DEV loads changed data files again)', async () => {
    const bootstrap = async () => (await fetch(`${base}/api/presentation/bootstrap`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(await bootstrap()).toContain('"Settings"');
    edit('src/apps/base/data/menus.json', (s) => s.replace('"name": "Settings"', '"name": "Settings (dev)"'));
    await until('the new menu name', async () => ((await bootstrap()).includes('Settings (dev)') ? true : undefined));
  }, LONG);

  it('a view that does not load leaves the last good server answering, the error naming the file and element; fixing the file recovers', async () => {
    const before = log.length;
    edit(VIEW, (s) => s.replace('<group string="Identity (dev)">', '<group string="Identity (broken)"><bogus_tag/>'));
    await until('the refusal', async () => (log.slice(before).includes('does not load') ? true : undefined));
    const said = log.slice(before);
    expect(said).toContain('the last good server keeps running');
    expect(said).toContain(VIEW);
    expect(said).toContain('bogus_tag');
    // the old server still answers, with the last good view
    expect(await plan()).toContain('Identity (dev)');
    edit(VIEW, (s) => s.replace('<group string="Identity (broken)"><bogus_tag/>', '<group string="Identity (fixed)">'));
    await until('the fixed label', async () => ((await plan()).includes('Identity (fixed)') ? true : undefined));
  }, LONG);

  it('a new field gets a draft migration (marked as such) and is usable over GraphQL and REST', async () => {
    edit(DECL, (s) => s.replace(/fields: \{\n/, "fields: {\n    dev_note: f.char(80),\n"));
    const data = await until('the new field over GraphQL', async () => {
      const res = await fetch(`${base}/graphql`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: 'mutation { resCountryCreate(input: { code: "DV", name: "Devland", dev_note: "hello" }) { id dev_note } }' }),
      });
      const body = (await res.json()) as { data?: { resCountryCreate: { id: string; dev_note: string } }; errors?: unknown };
      return body.errors ? undefined : body.data;
    });
    expect(data.resCountryCreate.dev_note).toBe('hello');
    const rest = await fetch(`${base}/api/data/res.country/${data.resCountryCreate.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { dev_note: string }).dev_note).toBe('hello');
    const drafts = fs.readdirSync(path.join(root, 'prisma/migrations/base')).filter((f) => f.endsWith('_draft_dev'));
    expect(drafts).toHaveLength(1);
    const sql = fs.readFileSync(path.join(root, 'prisma/migrations/base', drafts[0], 'sqlite.sql'), 'utf8');
    expect(sql.split('\n')[0]).toBe('-- DRAFT written by fw dev: finalise with fw migrate generate -m "<what changed>" --app base');
    expect(sql).toContain('dev_note');
    // the typed app code follows: the SDL and fw-types.ts are written once the server listens
    await until('the new field in generated/fw-types.ts', async () => (fs.readFileSync(path.join(root, 'generated/fw-types.ts'), 'utf8').includes('dev_note') ? true : undefined));
    expect(fs.readFileSync(path.join(root, 'generated/schema.graphql'), 'utf8')).toContain('dev_note');
  }, LONG);

  it('a declaration that does not load writes no draft and leaves the last good server answering; the error names the model and field', async () => {
    const before = log.length;
    const drafts = () => fs.readdirSync(path.join(root, 'prisma/migrations/base')).filter((f) => f.endsWith('_draft_dev'));
    const had = drafts();
    edit(DECL, (s) => s.replace(/fields: \{\n/, "fields: {\n    dev_bad: f.reference('no.such_model'),\n"));
    await until('the refusal', async () => (log.slice(before).includes('does not load') ? true : undefined));
    const said = log.slice(before);
    expect(said).toContain('the last good server keeps running');
    expect(said).toContain('dev_bad');
    expect(said).toContain('no.such_model');
    expect(drafts()).toEqual(had);
    expect(await plan()).toContain('Identity (fixed)');
    edit(DECL, (s) => s.replace("    dev_bad: f.reference('no.such_model'),\n", ''));
    await until('the next server', async () => (log.slice(before).includes('server ready') ? true : undefined));
    expect(drafts()).toEqual(had);
  }, LONG);

  it('outside fw dev a draft is refused: fw migrate upgrade names the app, the draft and the command', async () => {
    await new Promise<void>((resolve) => {
      dev.once('exit', () => resolve());
      dev.kill('SIGTERM');
    });
    const r = fw('migrate', 'upgrade');
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain('DRAFT_MIGRATION');
    expect(r.out).toMatch(/app base has draft migrations written by fw dev \(prisma\/migrations\/base\/\d{14}_draft_dev\)/);
    expect(r.out).toContain('fw migrate generate -m "<what changed>" --app base');
  }, LONG);

  it('fw migrate generate replaces the drafts with a real migration, which the dev tenant records as applied without running it again', async () => {
    const gen = fw('migrate', 'generate', '-m', 'country dev note', '--app', 'base');
    expect(gen.code, gen.out).toBe(0);
    expect(gen.out).toMatch(/replaced the drafts base\/\d{14}_draft_dev/);
    const dir = path.join(root, 'prisma/migrations/base');
    const folders = fs.readdirSync(dir);
    expect(folders.filter((f) => f.endsWith('_draft_dev'))).toEqual([]);
    const real = folders.find((f) => f.endsWith('_country_dev_note'))!;
    expect(real).toBeTruthy();
    const sql = fs.readFileSync(path.join(dir, real, 'sqlite.sql'), 'utf8');
    expect(sql).not.toContain('DRAFT');
    expect(sql).toContain('dev_note');
    const up = fw('migrate', 'upgrade');
    expect(up.code, up.out).toBe(0);
    expect(up.out).toContain(`base/${real} (replaces drafts)`);
    // the country written under fw dev is still there
    const again = fw('migrate', 'upgrade');
    expect(again.out).toContain('already up to date');
  }, LONG);
});
