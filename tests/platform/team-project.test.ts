/**
 * A team builds on fw without forking it (issue 23), as a team would, through the CLI only:
 *
 * 1. `fw new project` (run from this checkout) writes a project with fw's layout that depends on fw;
 *    it is installed (see `install` below), and its postinstall `fw generate` writes its own
 *    Prisma client and SDL; nothing is written into fw's folder.
 * 2. `fw new app helpdesk.desk --model helpdesk.ticket` scaffolds an app whose first migration
 *    lands in the project's prisma/migrations/helpdesk.desk/; the project's own tests pass
 *    (`npm test`, booting the project with fw/testing).
 * 3. The project serves on SQLite and on PostgreSQL: its model answers over GraphQL and REST.
 * 4. fw is upgraded with a new foundation migration (a field on res.organization, written in the
 *    installed copy of fw as fw's developers would): the team regenerates, upgrades its tenants on
 *    both engines — only the foundation migration runs, no table is created twice, the ticket is
 *    still there — and generating for its own app finds nothing to do.
 *
 * The install: tests/helpers/team-project.ts lays out node_modules as `npm install` does.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPgDatabases, PG_URL, tempDir, uniquePgPrefix } from '../helpers/kernel.ts';
import { freePort, FW, installProject } from '../helpers/team-project.ts';
import { chromium } from 'playwright-core';
import { actionUrl, CHROMIUM, login, shot } from '../web/helpers/browser.ts';

const TSX = path.join(FW, 'node_modules', '.bin', 'tsx');
const ADMIN = { email: 'admin@example.com', password: 'team-admin-pass-1' };

/** An app's client code: a display widget reading a typed document of the project (docs/extend-client.md). */
const WIDGET = `import { useQuery } from '@tanstack/react-query';
import { defineWebExtension, request, type DisplayWidget } from '@fw/web';
import { graphql } from '@fw/gql';

const OpenTickets = graphql(\`query HelpdeskOpenTickets { helpdeskTickets(where: { state: { eq: draft } }) { id } }\`);

function OpenCount() {
  const open = useQuery({ queryKey: ['helpdesk-open'], queryFn: () => request(OpenTickets) });
  return <>{open.data ? \`\${open.data.helpdeskTickets.length} open\` : '…'}</>;
}

/** The ticket's state with the number of tickets still in draft. */
const StateBadge: DisplayWidget = ({ value }) => <span data-testid="helpdesk-badge">{String(value)} · <OpenCount /></span>;

export default defineWebExtension({ widgets: { 'helpdesk.state_badge': { display: StateBadge } } });
`;

interface Run { code: number | null; out: string }

function run(cwd: string, cmd: string, args: string[], env: Record<string, string> = {}): Run {
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 240_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** fw as a team project runs it: the installed package's bin, from the project folder. */
const fw = (project: string, args: string[], env: Record<string, string> = {}): Run =>
  run(project, process.execPath, [path.join(project, 'node_modules', 'fw', 'bin', 'fw.js'), ...args], env);


interface Served { base: string; stop(): Promise<void>; log(): string }

async function serve(project: string, env: Record<string, string>): Promise<Served> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(project, 'node_modules', 'fw', 'bin', 'fw.js'), 'serve'], {
    cwd: project, env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`fw serve exited ${child.exitCode}:\n${log}`);
    if (await fetch(`${base}/health`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) throw new Error(`fw serve did not answer:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    log: () => log,
    stop: () => new Promise((resolve) => {
      child.once('exit', () => resolve());
      // bin/fw.js runs the CLI in a child of its own: end the whole group
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    }),
  };
}

async function loginToken(base: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function graphql<T>(base: string, token: string, query: string): Promise<T> {
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query }) });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data!;
}

describe('a team project outside the fw tree', () => {
  let dir: string;
  let project: string;
  const pgPrefix = uniquePgPrefix();
  let settings: Record<string, string>;
  const fwFilesBefore = new Map<string, number>();

  beforeAll(() => {
    dir = tempDir('team');
    project = path.join(dir, 'helpdesk');
    settings = { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, BCRYPT_COST: '4', LOG_LEVEL: 'warn', PG_DATABASE_PREFIX: pgPrefix };
    for (const sub of ['generated', 'prisma']) {
      for (const f of fs.readdirSync(path.join(FW, sub), { recursive: true }) as string[]) {
        const p = path.join(FW, sub, f);
        if (fs.statSync(p).isFile()) fwFilesBefore.set(p, fs.statSync(p).mtimeMs);
      }
    }
  });
  afterAll(async () => {
    await dropPgDatabases(pgPrefix);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('fw new project writes the layout and a package depending on fw; fw generate there writes the project\'s own client', () => {
    const made = run(FW, TSX, ['src/cli.ts', 'new', 'project', project]);
    expect(made.code, made.out).toBe(0);
    for (const f of ['package.json', '.npmrc', '.gitignore', '.env', 'README.md', 'tsconfig.json', 'codegen.ts', 'vitest.config.ts', 'tests/project.test.ts', 'src/apps', 'schema', 'views', 'prisma/migrations', 'generated']) {
      expect(fs.existsSync(path.join(project, f)), f).toBe(true);
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies.fw).toBe(`file:${FW}`);
    // a second run refuses to write over the project
    const again = run(FW, TSX, ['src/cli.ts', 'new', 'project', project]);
    expect(again.code).toBe(1);
    expect(again.out).toContain('PROJECT_EXISTS');

    installProject(project);
    const gen = fw(project, ['generate']);
    expect(gen.code, gen.out).toBe(0);
    expect(fs.existsSync(path.join(project, 'generated', 'prisma', 'sqlite', 'client.ts'))).toBe(true);
    expect(fs.readFileSync(path.join(project, 'generated', 'schema.graphql'), 'utf8')).toContain('resCountries');
  }, 240_000);

  it('fw new app scaffolds an app with its first migration in the project; the project\'s own tests pass', () => {
    const made = fw(project, ['new', 'app', 'helpdesk.desk', '--model', 'helpdesk.ticket']);
    expect(made.code, made.out).toBe(0);
    const chain = fs.readdirSync(path.join(project, 'prisma', 'migrations', 'helpdesk.desk'));
    expect(chain).toHaveLength(1);
    expect(fs.readFileSync(path.join(project, 'prisma', 'migrations', 'helpdesk.desk', chain[0], 'sqlite.sql'), 'utf8')).toContain('CREATE TABLE "helpdesk_ticket"');
    // only the app's table: the foundation's are fw's
    expect(fs.readFileSync(path.join(project, 'prisma', 'migrations', 'helpdesk.desk', chain[0], 'postgresql.sql'), 'utf8')).not.toContain('CREATE TABLE "res_');
    expect(fs.readFileSync(path.join(project, '.env'), 'utf8')).toMatch(/^ACTIVE_DOMAINS=helpdesk$/m);
    expect(fs.readFileSync(path.join(project, 'generated', 'schema.graphql'), 'utf8')).toContain('helpdeskTickets');
    // the app imports fw by package name only
    expect(fs.readFileSync(path.join(project, 'src', 'apps', 'helpdesk.desk', 'index.ts'), 'utf8')).toMatch(/from 'fw\/app'/);

    const tests = run(project, process.execPath, [path.join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run']);
    expect(tests.code, tests.out).toBe(0);
    // vitest colours its summary
    expect(tests.out.replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/Tests\s+3 passed/);
  }, 300_000);

  for (const provider of ['sqlite', 'postgresql'] as const) {
    it(`the project serves on ${provider}: its model answers over GraphQL and REST`, async () => {
      const env = { ...settings, DATABASE_URL: provider === 'postgresql' ? PG_URL : '' };
      const s = await serve(project, env);
      try {
        // the project has not built a client of its own: fw's prebuilt one is served
        const page = await fetch(`${s.base}/`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('<div id="root"');
        const token = await loginToken(s.base);
        const created = await graphql<{ helpdeskTicketCreate: { id: string; state: string } }>(s.base, token,
          `mutation { helpdeskTicketCreate(input: { name: "Printer on fire (${provider})" }) { id state } }`);
        expect(created.helpdeskTicketCreate.state).toBe('draft');
        const rest = await fetch(`${s.base}/api/data/helpdesk.ticket`, { headers: { authorization: `Bearer ${token}` } });
        expect(rest.status).toBe(200);
        const body = (await rest.json()) as { items: Array<{ name: string }> };
        expect(body.items.map((t) => t.name)).toEqual([`Printer on fire (${provider})`]);
        const done = await fetch(`${s.base}/api/data/helpdesk.ticket/${created.helpdeskTicketCreate.id}/mark_done`, {
          method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}',
        });
        expect(done.status, await done.clone().text()).toBe(200);
        expect(((await done.json()) as { state: string }).state).toBe('done');
      } finally {
        await s.stop();
      }
    }, 180_000);
  }

  it("an app's web/ code builds into the project's client: its widget in a chunk of its own, its typed documents from the project's codegen, shown by the served client", async () => {
    const app = path.join(project, 'src', 'apps', 'helpdesk.desk');
    fs.mkdirSync(path.join(app, 'web'), { recursive: true });
    fs.writeFileSync(path.join(app, 'web', 'index.tsx'), WIDGET);
    const manifest = path.join(app, 'manifest.ts');
    fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8').replace(/\n\};\n/, "\n  web: { widgets: ['helpdesk.state_badge'] },\n};\n"));
    const list = path.join(project, 'views', 'helpdesk.desk', 'helpdesk_ticket_list.xml');
    fs.writeFileSync(list, fs.readFileSync(list, 'utf8').replace('widget="badge"', 'widget="helpdesk.state_badge"'));

    // a document the project's SDL refuses: named with its file and line, and nothing is built
    fs.writeFileSync(path.join(app, 'web', 'broken.ts'), "import { graphql } from '@fw/gql';\nexport const Broken = graphql(`query Broken { helpdeskTickets { nope } }`);\n");
    const broken = fw(project, ['build', 'web']);
    expect(broken.code).toBe(1);
    expect(broken.out).toContain('CODEGEN_FAILED');
    expect(broken.out).toMatch(/Cannot query field "nope" on type "HelpdeskTicket"[\s\S]*web\/broken\.ts/);
    expect(fs.existsSync(path.join(project, 'web', 'dist'))).toBe(false);
    fs.rmSync(path.join(app, 'web', 'broken.ts'));

    const built = fw(project, ['build', 'web']);
    expect(built.code, built.out).toBe(0);
    const assets = fs.readdirSync(path.join(project, 'web', 'dist', 'assets'));
    const chunk = assets.find((a) => a.startsWith('app-helpdesk.desk-'));
    expect(chunk, assets.join(' ')).toBeDefined();
    // the widget and the project's own document are in the app's chunk; fw's foundation apps keep theirs; fw's example domain is not the project's
    const code = fs.readFileSync(path.join(project, 'web', 'dist', 'assets', chunk!), 'utf8');
    expect(code).toContain('helpdesk-badge');
    expect(code).toContain('query HelpdeskOpenTickets');
    expect(assets.some((a) => a.startsWith('app-storage-'))).toBe(true);
    expect(assets.some((a) => a.startsWith('app-crm.sales-'))).toBe(false);
    expect(fs.readFileSync(path.join(project, 'web', 'src', 'gql', 'graphql.ts'), 'utf8')).toContain('HelpdeskOpenTicketsQuery');
    // the project's client code typechecks against fw's client API (web/tsconfig.json)
    const tsc = run(project, path.join(project, 'node_modules', '.bin', 'tsc'), ['--noEmit', '-p', 'web']);
    expect(tsc.code, tsc.out).toBe(0);
    // and the project's own typecheck does not take in the client code through the build's list of it
    expect(fs.existsSync(path.join(project, 'generated', 'web-extensions.ts'))).toBe(true);
    const own = run(project, path.join(project, 'node_modules', '.bin', 'tsc'), ['--noEmit', '-p', '.']);
    expect(own.code, own.out).toBe(0);

    const s = await serve(project, { ...settings, DATABASE_URL: '' });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await (await browser.newContext({ baseURL: s.base, viewport: { width: 1280, height: 800 } })).newPage();
      await login(page, { email: ADMIN.email, password: ADMIN.password });
      // the ticket created on SQLite above was marked done; one more in draft
      const token = await loginToken(s.base);
      const toner = await graphql<{ helpdeskTicketCreate: { id: string } }>(s.base, token, 'mutation { helpdeskTicketCreate(input: { name: "Toner low" }) { id } }');
      const { me } = await graphql<{ me: { organization: { code: string } } }>(s.base, token, '{ me { organization { code } } }');
      await page.goto(actionUrl(me.organization.code, 'helpdesk.action_helpdesk_ticket'));
      await expect.poll(() => page.getByTestId('helpdesk-badge').allInnerTexts(), { timeout: 20_000 }).toEqual(expect.arrayContaining(['draft · 1 open', 'done · 1 open']));
      await shot(page, 'team-project-widget', { dark: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await expect.poll(() => page.getByTestId('helpdesk-badge').count()).toBeGreaterThan(0);
      // the phone layout keeps the theme button in its menu
      await shot(page, 'team-project-widget-phone', { dark: true, themeByAttribute: true });
      // the upgrade below counts the tickets of the SQLite tenant
      const del = await fetch(`${s.base}/api/data/helpdesk.ticket/${toner.helpdeskTicketCreate.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
      expect(del.status).toBe(200);
    } finally {
      await browser.close();
      await s.stop();
    }
  }, 300_000);

  it('an fw upgrade with a new foundation migration upgrades the team\'s tenants on both engines: nothing created twice, data kept, nothing for the team to generate', async () => {
    // fw's developers add a field to res.organization and its migration, in the installed copy
    const installed = path.join(project, 'node_modules', 'fw');
    const decl = path.join(installed, 'schema', 'base', 'res.organization.ts');
    const src = fs.readFileSync(decl, 'utf8');
    expect(src).toMatch(/fields: \{\n/);
    const chainBefore = fs.readdirSync(path.join(installed, 'prisma', 'migrations', 'base')).length;
    fs.writeFileSync(decl, src.replace(/fields: \{\n/, "fields: {\n    website: f.char(200),\n"));
    const upstream = run(installed, process.execPath, [path.join(installed, 'bin', 'fw.js'), 'migrate', 'generate', '-m', 'organization website', '--app', 'base'], { FW_PROJECT_ROOT: installed });
    expect(upstream.code, upstream.out).toBe(0);
    expect(fs.readdirSync(path.join(installed, 'prisma', 'migrations', 'base'))).toHaveLength(chainBefore + 1);

    // the team reinstalls (postinstall: fw generate) and upgrades each tenant
    const gen = fw(project, ['generate']);
    expect(gen.code, gen.out).toBe(0);
    for (const provider of ['sqlite', 'postgresql'] as const) {
      const env = { ...settings, DATABASE_URL: provider === 'postgresql' ? PG_URL : '' };
      const up = fw(project, ['migrate', 'upgrade', '-t', 'default'], env);
      expect(up.code, up.out).toBe(0);
      expect(up.out).toMatch(/applied base\/\d{14}_organization_website\s*$/m);
      const again = fw(project, ['migrate', 'upgrade', '-t', 'default'], env);
      expect(again.out).toContain('already up to date');
      const s = await serve(project, env);
      try {
        const token = await loginToken(s.base);
        const data = await graphql<{ helpdeskTickets: Array<{ name: string; state: string }>; resOrganizations: Array<{ website: string | null }> }>(s.base, token,
          '{ helpdeskTickets { name state } resOrganizations { website } }');
        expect(data.helpdeskTickets).toEqual([{ name: `Printer on fire (${provider})`, state: 'done' }]);
        expect(data.resOrganizations[0].website).toBeNull();
      } finally {
        await s.stop();
      }
    }
    const mine = fw(project, ['migrate', 'generate', '-m', 'after the upgrade', '--app', 'helpdesk.desk']);
    expect(mine.code, mine.out).toBe(0);
    expect(mine.out).toContain('no changes: the declarations of helpdesk.desk match its last migration');
    expect(fs.readdirSync(path.join(project, 'prisma', 'migrations', 'helpdesk.desk'))).toHaveLength(1);
  }, 400_000);

  it("nothing was written into fw's own folder", () => {
    for (const [file, mtime] of fwFilesBefore) expect(fs.statSync(file).mtimeMs, file).toBe(mtime);
    expect(fs.existsSync(path.join(FW, 'prisma', 'migrations', 'helpdesk.desk'))).toBe(false);
    expect(fs.existsSync(path.join(FW, 'src', 'apps', 'helpdesk.desk'))).toBe(false);
  });
});
