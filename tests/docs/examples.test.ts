/**
 * The examples of README.md and docs/*.md, run against a real server so they cannot drift from
 * the code (convention: docs/examples.md; extraction and comparison: ./markdown-examples.ts).
 *
 * One server (SQLite in a temp folder, the default foundation apps plus the `crm` domain and the
 * AI layer, the event worker running) listens on a free port of 127.0.0.1; `http://127.0.0.1:8000` and
 * `localhost:8000` in the examples are pointed at it.
 *
 * - ```sh blocks marked `run` are run in one bash session per Markdown file, in document order
 *   (variables set by one command are seen by the next), in a folder holding the files the
 *   examples upload (report.pdf, report-v2.pdf, notes.md), with B (the base URL), TOKEN (an
 *   admin's access token) and ADMIN_PASSWORD set. `curl` is wrapped to record each answer's
 *   status: an answer of 400 or more fails the step unless the docs show an error for it.
 * - ```graphql blocks run as an admin of a tenant of their own, freshly created and seeded (so
 *   counts and ids are those of a new installation); `$password` is the admin's password.
 * - ```js blocks run with Node (this repository's version, 20) as an ES module under .tmp/, with
 *   `token` bound to an admin's access token.
 *
 * Every failure names the Markdown file and line of the example.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kernel } from '../../src/kernel/kernel.ts';
import { loadSettings } from '../../src/kernel/settings.ts';
import { buildServer } from '../../src/server/index.ts';
import {
  compareJson, compareLines, compareOutput, excerptFound, extractBlocks, needsMarker, parsePattern, shellSteps,
  type Block, type Step,
} from './markdown-examples.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'docs-admin-pass-1';

const FILES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const BLOCKS = FILES.flatMap((f) => extractBlocks(f, fs.readFileSync(path.join(ROOT, f), 'utf8')));
const where = (b: { file: string; line: number }) => `${b.file}:${b.line}`;

// ---------------------------------------------------------------------------------------------
// The server

let kernel: Kernel;
let server: FastifyInstance;
let port: number;
let base: string;
let dataDir: string;
let workDir: string;
/** kernel.subscribe calls so far: a subscription the server has set up shows as one more */
let subscribes = 0;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-docs-'));
  kernel = await Kernel.boot({
    settings: loadSettings({
      DATA_DIR: dataDir,
      ACTIVE_DOMAINS: 'crm',
      // the AI layer's routes and GraphQL types are documented too (docs/ai.md); no provider is called
      AI_ENABLED: 'true',
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      BCRYPT_COST: '4',
      LOG_LEVEL: 'silent',
      DATABASE_URL: '',
      EVENT_POLL_INTERVAL_MS: '50',
      CONNECTOR_TEST_TIMEOUT_MS: '2000',
    }),
    worker: true,
    log: () => {},
  });
  const subscribe = kernel.subscribe.bind(kernel);
  (kernel as { subscribe: Kernel['subscribe'] }).subscribe = async (tenant, topic, handler) => {
    const off = await subscribe(tenant, topic, handler);
    subscribes++;
    return off;
  };
  server = await buildServer(kernel);
  await kernel.tenants.get(kernel.settings.DEFAULT_TENANT);
  base = await server.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(base).port);

  // the files the upload examples send
  workDir = path.join(dataDir, 'work');
  fs.mkdirSync(workDir);
  fs.writeFileSync(path.join(workDir, 'report.pdf'), '%PDF-1.4\n% a report for the docs examples\n');
  fs.writeFileSync(path.join(workDir, 'report-v2.pdf'), '%PDF-1.4\n% the second version of the report\n');
  fs.writeFileSync(path.join(workDir, 'notes.md'), '# Notes\n\nWritten by the docs examples.\n');
}, 120_000);

afterAll(async () => {
  await server?.close(); // closes the kernel too
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function login(tenant?: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(tenant ? { 'x-tenant': tenant } : {}) },
    body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

let tenants = 0;
/** A new tenant, created and seeded as `fw tenant create` does, and an admin token for it. */
async function freshTenant(): Promise<{ tenant: string; token: string }> {
  const tenant = `docs-${++tenants}`;
  await kernel.tenants.get(tenant);
  return { tenant, token: await login(tenant) };
}

/** The examples' addresses, pointed at the test server. */
const local = (s: string) => s.replace(/(https?:\/\/|ws:\/\/)?(127\.0\.0\.1|localhost):8000\b/g, (_m, scheme?: string) => `${scheme ?? ''}127.0.0.1:${port}`);

// ---------------------------------------------------------------------------------------------
// Shell sessions: every `run` ```sh block of one file, in one bash process

interface StepResult { status: number; stdout: string; stderr: string; http: number[] }

const CURL_WRAPPER = `curl() { command curl -w '%{stderr}@@HTTP %{http_code}@@\\n' "$@"; }`;

async function runShell(script: string, env: Record<string, string>, timeoutMs = 180_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: workDir, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const sessions = new Map<string, Promise<Map<number, StepResult>>>();

/** Runs a file's shell steps once (setup blocks included, streams excluded); results by Markdown line. */
function session(file: string): Promise<Map<number, StepResult>> {
  let s = sessions.get(file);
  if (!s) {
    s = (async () => {
      const steps = BLOCKS.filter((b) => b.file === file && isShell(b) && (b.marker?.kind === 'setup' || (b.marker?.kind === 'run' && !isStream(b))))
        .flatMap((b) => shellSteps(b));
      const script = [CURL_WRAPPER, ...steps.map((st) => [
        local(st.command),
        `__s=$?; printf '\\n@@STEP ${st.line} %s@@\\n' "$__s"; printf '@@STEP ${st.line}@@\\n' >&2`,
      ].join('\n'))].join('\n');
      const token = await login();
      const out = await runShell(script, { B: base, TOKEN: token, ADMIN_PASSWORD });
      const results = new Map<number, StepResult>();
      const outParts = out.stdout.split(/\n@@STEP (\d+) (\d+)@@\n/);
      const errParts = out.stderr.split(/@@STEP (\d+)@@\n/);
      for (let i = 0; i + 2 < outParts.length; i += 3) {
        results.set(Number(outParts[i + 1]), { status: Number(outParts[i + 2]), stdout: outParts[i], stderr: '', http: [] });
      }
      for (let i = 0; i + 1 < errParts.length; i += 2) {
        const r = results.get(Number(errParts[i + 1]));
        if (!r) continue;
        r.http = [...errParts[i].matchAll(/@@HTTP (\d+)@@/g)].map((m) => Number(m[1]));
        r.stderr = errParts[i].replace(/@@HTTP \d+@@\n?/g, '');
      }
      if (results.size < steps.length) {
        const missing = steps.filter((st) => !results.has(st.line)).map((st) => `${file}:${st.line}`);
        throw new Error(`the shell session stopped before ${missing.join(', ')} (exit ${out.code}):\n${out.stderr.slice(-2000)}`);
      }
      return results;
    })();
    sessions.set(file, s);
  }
  return s;
}

const isShell = (b: Block) => ['sh', 'bash', 'shell'].includes(b.lang);
const isStream = (b: Block) => /^stream\b/.test(b.marker?.arg ?? '');

function checkStep(file: string, st: Step, r: StepResult): void {
  const at = `${file}:${st.line}`;
  const context = `${at}: ${st.command.trim()}\n--- stdout\n${r.stdout.slice(0, 2000)}\n--- stderr\n${r.stderr.slice(0, 2000)}`;
  expect(r.status, `exit status of ${context}`).toBe(0);
  const showsError = /"error"\s*:/.test(st.expected ?? '');
  if (!showsError) expect(r.http.filter((c) => c >= 400), `HTTP status of ${context}`).toEqual([]);
  if (st.expected !== undefined) {
    const problems = compareOutput(st.expected, r.stdout.replace(/\n$/, ''), { shape: st.shape });
    expect(problems, `${context}\n--- the docs show\n${st.expected}`).toEqual([]);
  }
}

// ---------------------------------------------------------------------------------------------
// Streams: one command that keeps its connection open

/** What a stream example waits for before its trigger, and the trigger (named in the marker). */
const TRIGGERS: Record<string, (token: string) => Promise<void>> = {
  /** the default organization's slug changes: web.client.reload reaches the tenant's browsers */
  async 'change-organization-code'(token) {
    const list = await (await fetch(`${base}/api/data/res.organization?filter=${encodeURIComponent('[["code","=","default"]]')}`, { headers: { authorization: `Bearer ${token}` } })).json() as { items: Array<{ id: string }> };
    const res = await fetch(`${base}/api/data/res.organization/${list.items[0].id}`, {
      method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ code: 'acme-new' }),
    });
    expect(res.status).toBe(200);
  },
  /** an organization "Acme" is created */
  async 'create-organization'(token) {
    const res = await fetch(`${base}/api/data/res.organization`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Acme' }),
    });
    expect(res.status).toBe(201);
  },
};

/**
 * Starts `command`, waits until the server has subscribed for it (or it printed something),
 * fires the trigger, and waits until `done(output)` holds; the process is then stopped.
 */
async function runStreaming(cmd: string[], env: Record<string, string>, trigger: (() => Promise<void>) | undefined, done: (out: string) => boolean, at: string): Promise<string> {
  const before = subscribes;
  const child = spawn(cmd[0], cmd.slice(1), { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } });
  let out = '';
  let err = '';
  let exited = false;
  child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
  child.on('close', () => { exited = true; });
  const until = async (cond: () => boolean, what: string, ms: number) => {
    const deadline = Date.now() + ms;
    while (!cond()) {
      if (exited) throw new Error(`${at}: the example exited before ${what}\n--- stdout\n${out}\n--- stderr\n${err}`);
      if (Date.now() > deadline) throw new Error(`${at}: no ${what} within ${ms} ms\n--- stdout\n${out}\n--- stderr\n${err}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  try {
    await until(() => subscribes > before || out.length > 0, 'subscription', 20_000);
    await trigger?.();
    await until(() => done(out), 'expected output', 15_000);
    return out;
  } finally {
    child.kill('SIGKILL');
  }
}

// ---------------------------------------------------------------------------------------------
// The tests

describe('docs examples: the convention', () => {
  it('every command, query and code block of README.md and docs/ is marked run, excerpt or norun (docs/examples.md)', () => {
    const unmarked = BLOCKS.filter((b) => needsMarker(b) && !b.marker).map((b) => `${where(b)} (\`\`\`${b.lang})`);
    expect(unmarked, 'add <!-- run -->, <!-- excerpt: file --> or <!-- norun: reason --> before these blocks').toEqual([]);
  });

  it('markers stand before blocks they can handle', () => {
    const wrong = BLOCKS.filter((b) => b.marker && (
      (['run', 'guide'].includes(b.marker.kind) && !['sh', 'bash', 'shell', 'graphql', 'js'].includes(b.lang))
      || (b.marker.kind === 'guide' && b.file !== 'docs/build-an-app.md')
      || (['output', 'response'].includes(b.marker.kind) && b.lang !== 'json')
      || (b.marker.kind === 'norun' && !b.marker.arg)
      || (b.marker.kind === 'excerpt' && !fs.existsSync(path.join(ROOT, b.marker.arg)))
      || (isStream(b) && !TRIGGERS[/after=(\S+)/.exec(b.marker.arg)?.[1] ?? ''])
    )).map((b) => `${where(b)}: <!-- ${b.marker!.kind}${b.marker!.arg ? `: ${b.marker!.arg}` : ''} --> before \`\`\`${b.lang}`);
    expect(wrong).toEqual([]);
  });
});

describe('docs examples: GraphQL names', () => {
  it('every GraphQL input and result type the docs name exists in the schema served (default apps and the crm domain)', async () => {
    const res = await fetch(`${base}/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${await login()}` },
      body: JSON.stringify({ query: '{ __schema { types { name } } }' }),
    });
    const types = new Set(((await res.json()) as { data: { __schema: { types: Array<{ name: string }> } } }).data.__schema.types.map((t) => t.name));
    const named = /`([A-Z][A-Za-z0-9]*(?:Filter|Where|OrderBy|GroupByField|Input|Connection|Edge|Change|Result))`/g;
    const missing = FILES.flatMap((f) => fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n')
      .flatMap((l, i) => [...l.matchAll(named)].map((m) => m[1]).filter((n) => !types.has(n)).map((n) => `${f}:${i + 1}: ${n}`)));
    expect(missing, 'types the docs name but the schema does not have').toEqual([]);
  });
});

for (const file of FILES) {
  // guide blocks are run in order by tests/docs/build-an-app.test.ts, not here
  const blocks = BLOCKS.filter((b) => b.file === file && b.marker && b.marker.kind !== 'norun' && b.marker.kind !== 'guide');
  if (!blocks.length) continue;
  describe(file, () => {
    blocks.forEach((b, i) => {
      const kind = b.marker!.kind;
      if (kind === 'excerpt') {
        it(`${where(b)}: the \`\`\`${b.lang} block is an excerpt of ${b.marker!.arg}`, () => {
          const source = fs.readFileSync(path.join(ROOT, b.marker!.arg), 'utf8');
          expect(excerptFound(b.code, source), `${where(b)}: this block is not (any more) in ${b.marker!.arg}:\n${b.code}`).toBe(true);
        });
      } else if ((kind === 'run' || kind === 'setup') && isShell(b) && !isStream(b)) {
        for (const st of shellSteps(b)) {
          it(`${file}:${st.line}: ${st.command.trim().split('\n')[0].slice(0, 90)}`, async () => {
            const results = await session(file);
            checkStep(file, st, results.get(st.line)!);
          });
        }
      } else if (kind === 'run' && isShell(b)) {
        // every comment after a streaming command is the text it prints
        const [st, ...more] = shellSteps(b, { allComments: true });
        it(`${where(b)}: streaming ${st.command.trim().slice(0, 80)}`, async () => {
          expect(more, `${where(b)}: a stream example holds one command`).toEqual([]);
          expect(st.expected, `${where(b)}: a stream example shows its output as # lines`).toBeTruthy();
          const token = await login();
          const trigger = TRIGGERS[/after=(\S+)/.exec(b.marker!.arg)![1]];
          let last: string[] = [];
          const out = await runStreaming(['bash', '-c', local(st.command)], { B: base, TOKEN: token }, () => trigger(token), (o) => (last = compareLines(st.expected!, o)).length === 0, `${file}:${st.line}`)
            .catch((err: Error) => { throw new Error(`${err.message}\n${last.join('\n')}`); });
          expect(compareLines(st.expected!, out)).toEqual([]);
        });
      } else if (kind === 'run' && b.lang === 'graphql') {
        const next = blocks[i + 1];
        const output = next?.marker?.kind === 'output' ? next : undefined;
        it(`${where(b)}: GraphQL ${b.code.replace(/\s+/g, ' ').slice(0, 80)}`, async () => {
          const inline = b.code.split('\n').filter((l) => /^\s*# [{[]/.test(l)).map((l) => l.replace(/^\s*# /, '')).join('\n');
          const expected = output?.code ?? (inline || undefined);
          // `run: anonymous`: no token and no X-Tenant, as a client that has not logged in yet (the default tenant)
          const anonymous = /\banonymous\b/.test(b.marker!.arg);
          const { tenant, token } = anonymous ? { tenant: '', token: '' } : await freshTenant();
          const variables = /\$password\b/.test(b.code) ? { password: ADMIN_PASSWORD } : undefined;
          const res = await fetch(`${base}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(anonymous ? {} : { 'x-tenant': tenant, authorization: `Bearer ${token}` }) },
            body: JSON.stringify({ query: b.code, variables }),
          });
          const text = await res.text();
          const at = `${where(b)}${output ? ` (output at ${where(output)})` : ''}`;
          if (expected === undefined) {
            expect(res.status, `${at}: ${text}`).toBe(200);
            expect(JSON.parse(text).errors, `${at}: ${text}`).toBeUndefined();
            return;
          }
          const pattern = parsePattern(expected);
          expect(pattern, `${at}: the expected output is not JSON:\n${expected}`).toBeDefined();
          expect(compareJson(pattern, JSON.parse(text)), `${at}: got ${text.slice(0, 3000)}`).toEqual([]);
        });
      } else if (kind === 'run' && b.lang === 'js') {
        it(`${where(b)}: JavaScript (Node ${process.versions.node.split('.')[0]})`, async () => {
          const lines = b.code.split('\n');
          const at = lines.findIndex((l) => /^\s*\/\/ after (GET|POST|PATCH|PUT|DELETE) (\S+)(?: (.*))?, prints:\s*$/.test(l));
          expect(at, `${where(b)}: a js example ends with "// after <METHOD> <path> [json], prints:" and the printed lines`).toBeGreaterThanOrEqual(0);
          const [, method, route, body] = /^\s*\/\/ after (GET|POST|PATCH|PUT|DELETE) (\S+)(?: (.*))?, prints:\s*$/.exec(lines[at])!;
          const expected = lines.slice(at + 1).map((l) => l.replace(/^\s*\/\/ ?/, '')).filter(Boolean);
          const token = await login();
          const dir = path.join(ROOT, '.tmp', 'docs-examples');
          fs.mkdirSync(dir, { recursive: true });
          const script = path.join(dir, `${b.file.replace(/[^\w]+/g, '_')}_${b.line}.mjs`);
          fs.writeFileSync(script, `const token = process.env.FW_DOCS_TOKEN;\n${local(b.code)}\n`);
          try {
            const matches = (out: string) => expected.every((e) => out.split('\n').some((l) => compareOutput(e, l).length === 0));
            await runStreaming([process.execPath, script], { FW_DOCS_TOKEN: token }, async () => {
              const res = await fetch(`${base}${route}`, {
                method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body || undefined,
              });
              expect(res.status, await res.clone().text()).toBeLessThan(400);
            }, matches, where(b));
          } finally {
            fs.rmSync(script, { force: true });
          }
        });
      } else if (kind === 'response') {
        it(`${where(b)}: the answer of ${b.marker!.arg}`, async () => {
          const [method, route] = b.marker!.arg.split(/\s+/);
          const token = await login();
          const res = await fetch(`${base}${route}`, { method, headers: { authorization: `Bearer ${token}` } });
          const text = await res.text();
          expect(res.status, `${where(b)}: ${text}`).toBeLessThan(400);
          const pattern = parsePattern(b.code);
          expect(pattern, `${where(b)}: not JSON`).toBeDefined();
          expect(compareJson(pattern, JSON.parse(text)), `${where(b)}: got ${text.slice(0, 3000)}`).toEqual([]);
        });
      }
    });
  });
}
