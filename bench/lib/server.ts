/** The real fw server (`fw serve`) as a child process on the server core, with its own data. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, HOST, waitHealthy } from './http.ts';
import { BENCH_DIR } from './load.ts';
import { pinning, spawnPinned, stop, type Child } from './proc.ts';

export interface RunContext {
  quick: boolean;
  /** Temp folder of this run (deleted at the end). */
  tmp: string;
  bcryptCost: number;
  adminEmail: string;
  adminPassword: string;
  jwtKey: string;
  /** PostgreSQL: the server URL and this run's database prefix (dropped at the end). */
  pg: { url: string; prefix: string } | null;
  /** Folder for `node --cpu-prof` profiles of the servers, when asked for. */
  cpuProfDir: string | null;
}

export interface FwServer {
  child: Child;
  pid: number;
  base: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** Settings every process of the run shares (server, tenant provisioning, SQL counting). */
export function fwEnv(ctx: RunContext, name: string, dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // as deployed (graphql-js skips its development checks, fw its development conveniences);
    // the floors run the same way (bench/floors/index.ts)
    NODE_ENV: 'production',
    HOST,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ADMIN_EMAIL: ctx.adminEmail,
    ADMIN_PASSWORD: ctx.adminPassword,
    BCRYPT_COST: String(ctx.bcryptCost),
    JWT_SECRET_KEY: ctx.jwtKey,
    // production wants its keys given, the same in every process of the run
    CONNECTOR_SECRET_KEY: crypto.createHash('sha256').update(`connector:${ctx.jwtKey}`).digest('base64url'),
    DATABASE_URL: ctx.pg?.url ?? '',
    // each server of the run has its own databases, all under the run's prefix
    ...(ctx.pg ? { PG_DATABASE_PREFIX: `${ctx.pg.prefix}${name.replace(/[^a-z0-9]/g, '')}_` } : {}),
    ...extra,
  };
}

/**
 * `tsx src/cli.ts serve`, started as `node --import tsx src/cli.ts serve` so that the pid we pin
 * and measure is the server itself (the tsx CLI would add a relay parent process). `nodeArgs` go
 * to node before the script (the soak's `--inspect`).
 */
export async function startFw(ctx: RunContext, name: string, extraEnv: Record<string, string> = {}, nodeArgs: string[] = []): Promise<FwServer> {
  const port = await freePort();
  const dataDir = path.join(ctx.tmp, `data-${name}`);
  fs.mkdirSync(dataDir, { recursive: true });
  const env = fwEnv(ctx, name, dataDir, { PORT: String(port), ...extraEnv });
  const prof = ctx.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ctx.cpuProfDir, name)}`] : [];
  const root = path.dirname(BENCH_DIR);
  const child = spawnPinned(`fw server (${name})`, pinning.serverCore, process.execPath, [...prof, ...nodeArgs, '--import', 'tsx', path.join(root, 'src/cli.ts'), 'serve'], { env, cwd: root });
  const base = `http://${HOST}:${port}`;
  try {
    await waitHealthy(base, ctx.pg ? 120_000 : 90_000, () => child.proc.exitCode === null);
  } catch (err) {
    await stop(child);
    throw new Error(`${(err as Error).message}\n${(child.err() || child.out()).trim().slice(-1500)}`);
  }
  return { child, pid: child.pid, base, dataDir, env, stop: () => stop(child, 10_000) };
}

/**
 * A tenant's database as `server`'s settings name it (src/kernel/db/tenants.ts): its SQLite file,
 * or, with `--pg`, the URL of its database `<PG_DATABASE_PREFIX><tenant, - as _>` on the run's
 * PostgreSQL server. For the floors that read what fw reads.
 */
export function tenantDatabase(ctx: RunContext, server: FwServer, tenant: string): string {
  if (!ctx.pg) return path.join(server.dataDir, 'tenants', `${tenant}.db`);
  const url = new URL(ctx.pg.url);
  url.pathname = `/${server.env.PG_DATABASE_PREFIX ?? 'fw_'}${tenant.replace(/-/g, '_')}`;
  return url.toString();
}
