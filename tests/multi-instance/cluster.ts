/**
 * Several real fw server processes (`node --import tsx src/cli.ts serve`, as `npm start` runs
 * it) on one PostgreSQL server and one Redis, all on 127.0.0.1: the deployment that
 * docs/operations.md describes, for the multi-instance suite (issue 27 §6).
 *
 * Every instance has a data folder of its own (as on separate machines) and shares, through its
 * environment, what the docs say instances share: the keys, DATABASE_URL under one database
 * prefix unique to the run, REDIS_URL under a REDIS_PREFIX unique to the run (other tests use the
 * same Redis at the same time: a deployment of its own), the tenant and the storage settings. `stop()` kills what is still running and drops the run's databases, whatever failed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { TEST_REDIS_URL as REDIS_URL, uniqueRedisPrefix } from '../helpers/redis.ts';

export const PG_URL = process.env.FW_TEST_PG_URL || process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'multi-admin-pass-1';
const ROOT = path.resolve(import.meta.dirname, '../..');

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface Res<T = any> { status: number; body: T; headers: Headers }

export interface Instance {
  name: string;
  base: string;
  child: ChildProcess;
  /** stdout and stderr so far */
  output(): string;
  /** true once the process has exited (killed or not) */
  gone(): boolean;
  request<T = any>(method: string, url: string, o?: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: Buffer; contentType?: string }): Promise<Res<T>>;
  /** SIGKILL, resolved once the process is gone */
  kill9(): Promise<void>;
}

export interface Cluster {
  tenant: string;
  pgPrefix: string;
  /** the tenant's database name on the server */
  database: string;
  root: string;
  start(name: string, env?: Record<string, string>): Promise<Instance>;
  /** A client on the tenant's database (the test's own connection, as an operator's psql). */
  db(): Promise<pg.Client>;
  stop(): Promise<void>;
}

export function cluster(shared: Record<string, string> = {}): Cluster {
  const run = crypto.randomBytes(4).toString('hex');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-multi-'));
  const tenant = `mi${run}`;
  const pgPrefix = `fwmi_${run}_`;
  const redisPrefix = uniqueRedisPrefix();
  const keys = { JWT_SECRET_KEY: crypto.randomBytes(32).toString('base64url'), CONNECTOR_SECRET_KEY: crypto.randomBytes(32).toString('base64url') };
  const instances: Instance[] = [];
  const clients: pg.Client[] = [];
  // a test worker that exits without running afterAll (killed, timed out) takes the servers along
  const killAll = () => { for (const i of instances) if (!i.gone()) i.child.kill('SIGKILL'); };
  process.once('exit', killAll);

  async function start(name: string, env: Record<string, string> = {}): Promise<Instance> {
    const port = await freePort();
    const dataDir = path.join(root, `data-${name}`);
    fs.mkdirSync(dataDir, { recursive: true });
    // node with tsx's loader (not the tsx wrapper): the pid killed is the server's own
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'cli.ts'), 'serve'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '',
        HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir,
        DATABASE_URL: PG_URL, PG_DATABASE_PREFIX: pgPrefix, REDIS_URL, REDIS_PREFIX: redisPrefix, DEFAULT_TENANT: tenant,
        ADMIN_EMAIL, ADMIN_PASSWORD, BCRYPT_COST: '4', LOG_LEVEL: 'warn',
        ...keys, ...shared, ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-20_000); });
    child.stderr!.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-20_000); });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const gone = () => child.exitCode !== null || child.signalCode !== null;
    const base = `http://127.0.0.1:${port}`;
    const inst: Instance = {
      name, base, child, gone,
      output: () => out,
      async request(method, url, o = {}) {
        const headers: Record<string, string> = { ...(o.headers ?? {}) };
        if (o.token) headers.authorization = `Bearer ${o.token}`;
        let body: string | Blob | undefined;
        if (o.raw) {
          body = new Blob([new Uint8Array(o.raw)]);
          headers['content-type'] = o.contentType ?? 'application/octet-stream';
        } else if (o.body !== undefined) {
          body = JSON.stringify(o.body);
          headers['content-type'] = 'application/json';
        }
        const res = await fetch(`${base}${url}`, { method, headers, body, signal: AbortSignal.timeout(30_000) });
        const buf = Buffer.from(await res.arrayBuffer());
        let parsed: unknown = buf;
        if ((res.headers.get('content-type') ?? '').includes('json')) parsed = buf.length ? JSON.parse(buf.toString('utf8')) : undefined;
        return { status: res.status, body: parsed as any, headers: res.headers };
      },
      async kill9() {
        if (!gone()) child.kill('SIGKILL');
        await exited;
      },
    };
    instances.push(inst);
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (gone()) throw new Error(`instance ${name} exited (${child.exitCode ?? child.signalCode}):\n${out}`);
      try {
        if ((await fetch(`${base}/health`, { signal: AbortSignal.timeout(2_000) })).status === 200) break;
      } catch { /* not listening yet */ }
      if (Date.now() > deadline) throw new Error(`instance ${name} did not answer /health within 90 s:\n${out}`);
      await sleep(100);
    }
    return inst;
  }

  return {
    tenant, pgPrefix, root,
    database: pgPrefix + tenant,
    start,
    async db() {
      const u = new URL(PG_URL);
      u.pathname = `/${pgPrefix}${tenant}`;
      const c = new pg.Client({ connectionString: u.toString() });
      await c.connect();
      clients.push(c);
      return c;
    },
    async stop() {
      process.off('exit', killAll);
      await Promise.all(instances.map((i) => i.kill9()));
      for (const c of clients) await c.end().catch(() => undefined);
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [pgPrefix]);
        for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      } finally {
        await admin.end();
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
