import crypto from 'node:crypto';
import { systemPrincipal } from '../../../kernel/env.js';
import { BadRequest } from '../../../kernel/errors.js';
import type { Kernel } from '../../../kernel/kernel.js';

/** The user a replay signs in as, created fresh in the sandbox after each reset. */
export const REPLAY_EMAIL = 'qa-replay@sandbox.invalid';
export const REPLAY_NAME = 'QA Replay';

export interface SandboxCredentials {
  tenant: string;
  email: string;
  /** Random, held in memory only; dies with the next reset. */
  password: string;
  role: 'admin' | 'user' | 'qa';
  user_id: string;
  /** The sandbox's default organization (its `code` is the first URL segment of the web client). */
  organization: { id: string; code: string } | null;
}

/**
 * One replay at a time per sandbox database, process-wide: a reset drops the database another
 * replay's browser is using, so the lock covers the reset AND the use case that runs on it
 * (`withSandbox`). Keyed by the sandbox's database (SQLite file, or PostgreSQL URL + database),
 * so kernels on different data never wait for each other. Two processes (two `fw e2e replay`
 * at once on the same DATA_DIR / DATABASE_URL) are NOT serialised: run replays one at a time.
 */
const locks = new Map<string, Promise<void>>();

function lockKey(kernel: Kernel, sandbox: string): string {
  return kernel.tenants.provider === 'sqlite'
    ? `sqlite:${kernel.tenants.sqliteFile(sandbox)}`
    : `pg:${kernel.settings.DATABASE_URL}#${kernel.tenants.pgDatabase(sandbox)}`;
}

async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const before = locks.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((r) => { release = r; });
  const chained = before.then(() => mine);
  locks.set(key, chained);
  await before;
  try {
    return await fn();
  } finally {
    release();
    if (locks.get(key) === chained) locks.delete(key);
  }
}

/**
 * Drops the sandbox tenant's database if it exists, then opens it again: `tenants.get` creates
 * it, applies every migration and seeds every active app (countries, the default organization,
 * the admin of ADMIN_EMAIL…), which is the known state each use case starts from. Then registers
 * the replay user (`res.user.register` as the system principal) with a random password and the
 * use case's `replay_role`, in the default organization. Call inside `withSandbox`.
 */
export async function resetSandbox(kernel: Kernel, sandbox: string, role: SandboxCredentials['role']): Promise<SandboxCredentials> {
  if (await kernel.tenants.exists(sandbox)) await kernel.tenants.drop(sandbox);
  // records the replay creates get ids from their model and position: a rerun of the same use
  // case on the freshly reset sandbox creates the same uuids
  kernel.useDeterministicIds(sandbox);
  await kernel.tenants.get(sandbox);
  const sys = systemPrincipal(sandbox);
  const orgs = await kernel.dispatch<{ items: Array<{ id: string; code: string | null }> }>('fw.search', {
    model: 'res.organization', order: 'dbid asc', limit: 1, fields: ['code'],
  }, sys);
  const org = orgs.items[0] ? { id: orgs.items[0].id, code: orgs.items[0].code ?? '-' } : null;
  const password = `qa-${crypto.randomBytes(18).toString('base64url')}`;
  const user = await kernel.dispatch<{ id: string }>('res.user.register', {
    email: REPLAY_EMAIL, name: REPLAY_NAME, password, role, ...(org ? { organization: org.id } : {}),
  }, sys);
  return { tenant: sandbox, email: REPLAY_EMAIL, password, role, user_id: user.id, organization: org };
}

/**
 * Resets the sandbox and runs `fn` with the replay user's credentials, holding the sandbox's
 * lock until `fn` is done. Refuses to reset the tenant the use cases come from.
 */
export async function withSandbox<T>(
  kernel: Kernel,
  o: { sandbox: string; source: string; role: SandboxCredentials['role'] },
  fn: (creds: SandboxCredentials) => Promise<T>,
): Promise<T> {
  if (o.sandbox === o.source) {
    throw new BadRequest(`QA_SANDBOX_TENANT_KEY is "${o.sandbox}", the tenant the use cases come from: a replay would wipe it. Use another sandbox tenant.`, { tenant: o.source }, 'QA_SANDBOX_IS_SOURCE');
  }
  return withLock(lockKey(kernel, o.sandbox), async () => fn(await resetSandbox(kernel, o.sandbox, o.role)));
}
