/**
 * `npx tsx bench/dev.ts [--runs N]` — the `fw dev` loop as a developer feels it, on a copy of this
 * repository's layout (as tests/cli/dev.test.ts builds it): from saving a file to the running
 * server answering with the change, median and worst of N edits each of
 *   (a) a view label changed (views/): the plan served carries the new label;
 *   (b) a field added (schema/): a draft migration, the SQLite client regenerated, the next server
 *       up, and a GraphQL read of the field answering without errors.
 * Targets (issue 24 §1): (a) ≤ 3 s, (b) ≤ 10 s on the 2-core reference machine. Each edit waits
 * for the server to settle (its spare started) before the next one.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const FW = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const RUNS = Number(values.runs);
const ADMIN = { email: 'admin@example.com', password: 'bench-admin-pass-1' };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-bench-dev-'));
const root = path.join(dir, 'project');
fs.mkdirSync(root);
for (const p of ['bin', 'src', 'schema', 'views', 'prisma', 'generated', 'package.json', 'tsconfig.json']) fs.cpSync(path.join(FW, p), path.join(root, p), { recursive: true });
fs.symlinkSync(path.join(FW, 'node_modules'), path.join(root, 'node_modules'));

const port = await new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const p = (s.address() as net.AddressInfo).port;
    s.close(() => resolve(p));
  });
});
const base = `http://127.0.0.1:${port}`;
let log = '';
const dev = spawn(process.execPath, [path.join(root, 'bin', 'fw.js'), 'dev'], {
  cwd: root,
  env: {
    PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: path.join(root, 'data'), DATABASE_URL: '', HOST: '127.0.0.1', PORT: String(port),
    ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, BCRYPT_COST: '4', LOG_LEVEL: 'silent', WEB_CLIENT_DIR: '', EVENT_WORKER: 'false',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
dev.stdout.on('data', (c: Buffer) => { log += c.toString(); });
dev.stderr.on('data', (c: Buffer) => { log += c.toString(); });

async function until(what: string, fn: () => Promise<boolean>, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await fn().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen:\n${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const readyCount = () => log.split('fw dev: server ready').length - 1;
/** The supervisor has replaced the server and its spare has had time to load. */
async function settle(ready: number): Promise<void> {
  await until('the server', async () => readyCount() > ready);
  await new Promise((r) => setTimeout(r, 4000));
}

try {
  await settle(0);
  const login = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
  const token = ((await login.json()) as { access_token: string }).access_token;
  const auth = { authorization: `Bearer ${token}` };
  const view = path.join(root, 'views/base/res_organization_form.xml');
  const decl = path.join(root, 'schema/base/res.country.ts');

  const label: number[] = [];
  for (let i = 1; i <= RUNS; i++) {
    const ready = readyCount();
    const text = `Identity bench ${i}`;
    const t0 = performance.now();
    fs.writeFileSync(view, fs.readFileSync(view, 'utf8').replace(/<group string="Identity[^"]*">/, `<group string="${text}">`));
    await until('the label', async () => (await (await fetch(`${base}/api/presentation/view/res.organization.form`, { headers: auth })).text()).includes(text));
    label.push(performance.now() - t0);
    await settle(ready);
  }

  const field: number[] = [];
  for (let i = 1; i <= RUNS; i++) {
    const ready = readyCount();
    const name = `bench_note_${i}`;
    const t0 = performance.now();
    fs.writeFileSync(decl, fs.readFileSync(decl, 'utf8').replace(/fields: \{\n/, `fields: {\n    ${name}: f.char(40),\n`));
    await until('the field', async () => {
      const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query: `{ resCountries(limit: 1) { ${name} } }` }) });
      return !((await res.json()) as { errors?: unknown }).errors;
    });
    field.push(performance.now() - t0);
    await settle(ready);
  }

  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `median ${(s[Math.floor((s.length - 1) / 2)] / 1000).toFixed(2)} s, worst ${(s.at(-1)! / 1000).toFixed(2)} s`;
  };
  console.log(`fw dev, ${RUNS} edits each, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)} at the end`);
  console.log(`(a) view label visible:  ${stats(label)}   (target ≤ 3 s)`);
  console.log(`(b) new field usable:    ${stats(field)}   (target ≤ 10 s)`);
} finally {
  await new Promise<void>((resolve) => {
    dev.once('exit', () => resolve());
    dev.kill('SIGTERM');
  });
  fs.rmSync(dir, { recursive: true, force: true });
}
