/**
 * docs/build-an-app.md, run as a reader would: every ```sh block marked `<!-- guide -->`, in
 * document order, in one bash session started in an empty temp folder, with FW pointing at this
 * checkout and PORT at a free port. One substitution, the one the guide states: `npm install`
 * lays out node_modules from this checkout (tests/helpers/team-project.ts) and then runs the
 * project's postinstall (`fw generate`), instead of downloading and compiling for minutes.
 * Each block's output is checked against what the guide says happens.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appFiles } from '../../src/kernel/scaffold/templates.ts';
import { tempDir } from '../helpers/kernel.ts';
import { freePort, FW } from '../helpers/team-project.ts';
import { extractBlocks } from './markdown-examples.ts';

const GUIDE = 'docs/build-an-app.md';
const blocks = extractBlocks(GUIDE, fs.readFileSync(path.join(FW, GUIDE), 'utf8')).filter((b) => b.marker?.kind === 'guide');


describe(`${GUIDE}, as written`, () => {
  it('the model step 2 shows is the one fw new app writes', () => {
    const shown = extractBlocks(GUIDE, fs.readFileSync(path.join(FW, GUIDE), 'utf8')).find((b) => b.lang === 'ts' && b.marker?.arg.startsWith('what fw new app writes'));
    expect(shown?.code.trim()).toBe(appFiles({ app: 'helpdesk.desk', model: 'helpdesk.ticket' })['schema/helpdesk.desk/helpdesk.ticket.ts']!.trim());
  });
});

describe(GUIDE, () => {
  let dir: string;
  let out = '';
  let code: number | null = null;

  beforeAll(async () => {
    dir = tempDir('guide');
    const tsx = path.join(FW, 'node_modules', '.bin', 'tsx');
    const helper = path.join(FW, 'tests', 'helpers', 'team-project.ts');
    const script = [
      'set -eo pipefail',
      // the background server of step 6 stops with the session
      "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
      // the guide's one substitution (see the header)
      `npm() { if [ "$1" = install ]; then ${JSON.stringify(tsx)} ${JSON.stringify(helper)} . && npx fw generate; else command npm "$@"; fi; }`,
      ...blocks.map((b) => `echo "::: guide block at line ${b.line}"\n${b.code}`),
      'echo "::: guide done"',
    ].join('\n');
    // output into a file, not a pipe: the server of step 6 (a grandchild) would keep a pipe open
    // after bash exits; it is stopped by its folder below
    const log = path.join(dir, 'session.log');
    const fd = fs.openSync(log, 'w');
    const r = spawnSync('bash', ['-c', script], {
      cwd: dir,
      stdio: ['ignore', fd, fd],
      timeout: 600_000,
      env: { ...process.env, FW, PORT: String(await freePort()), HOST: '127.0.0.1', BCRYPT_COST: '4', LOG_LEVEL: 'warn', DATABASE_URL: '', FW_PROJECT_ROOT: '' },
    });
    fs.closeSync(fd);
    spawnSync('pkill', ['-f', path.join(dir, 'helpdesk')]);
    out = fs.readFileSync(log, 'utf8');
    code = r.status;
    // kept for a look after a failure
    fs.mkdirSync(path.join(FW, '.tmp'), { recursive: true });
    fs.writeFileSync(path.join(FW, '.tmp', 'build-an-app.out.txt'), out);
  }, 620_000);
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('has the walkthrough blocks (project, app, field, view, code, tests, serve, upgrade)', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
  });

  it('every block runs to the end without an error', () => {
    expect(code, out.slice(-4000)).toBe(0);
    expect(out).toContain('::: guide done');
  });

  it('step 2 wrote the app and its first migration, step 3 a second one holding only the new column', () => {
    const chain = path.join(dir, 'helpdesk', 'prisma', 'migrations', 'helpdesk.desk');
    const folders = fs.readdirSync(chain).sort();
    expect(folders.map((f) => f.slice(15))).toEqual(['initial_schema', 'ticket_priority']);
    const sql = fs.readFileSync(path.join(chain, folders[1], 'sqlite.sql'), 'utf8');
    // an ALTER TABLE, or on SQLite a rebuild of the app's table ("new_helpdesk_ticket")
    expect(sql).toMatch(/helpdesk_ticket/);
    expect(sql).toContain('"priority"');
    // SQLite may rebuild the app's table (its foreign keys name fw's tables): never a foundation table
    expect(sql).not.toMatch(/CREATE TABLE "(new_)?res_/);
  });

  it("step 5's tests pass, and step 6 serves the app: a ticket created over REST, closed by its command, read over GraphQL with the event handler's note", () => {
    expect(out.replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/Tests\s+3 passed/);
    expect(out).toMatch(/^done$/m);
    expect(out).toContain('{"data":{"helpdeskTickets":[{"name":"Printer on fire","priority":"high","state":"done"}]}}');
    // (GraphQL's answer ends without a newline)
    expect(out).toMatch(/Closed\.$/m);
  });

  it('step 7: after an fw upgrade nothing is left to apply or to generate for the app', () => {
    expect(out).toContain('already up to date');
    expect(out).toContain('no changes: the declarations of helpdesk.desk match its last migration');
  });
});
