/**
 * `fw/testing`: boot a real kernel in a test — SQLite files in a temp folder, the project's apps
 * and declarations, the default tenant created and seeded — and run commands on it as a chosen
 * principal. The stable subset of the repository's own test helpers (tests/helpers/kernel.ts),
 * documented in docs/app-api.md.
 *
 * The kernel's implementation is imported when a kernel boots, not when this module is: so this
 * entry point, like the others, statically imports only the app contract (tests/public/api.test.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemPrincipal, type Principal } from '../kernel/env.js';
import type { KernelHandle } from '../kernel/kernel-handle.js';
import { NotFound } from '../kernel/errors.js';
import { loadSettings, type Settings } from '../kernel/settings.js';

export interface TestKernelOptions {
  /**
   * The project root: the folder holding the project's `src/apps`, `schema`, `src/domains`
   * and `views` (default: fw's own repository).
   */
  root?: string;
  /**
   * Settings, as strings as the environment would give them, over the test defaults: a temp
   * DATA_DIR (SQLite), BCRYPT_COST 4, quiet logs, keys of this process only, a REDIS_PREFIX of
   * its own (with a REDIS_URL, it hears no other test kernel on that Redis). The kernel's own
   * defaults hold for the rest (foundation apps: ACTIVE_MODULES; no domain: set ACTIVE_DOMAINS).
   * No setting is taken from `process.env`.
   */
  settings?: Record<string, string>;
  /** Run the event worker, so event handlers run after commit (default false: events wait in the outbox). */
  worker?: boolean;
}

export interface NewUserOptions {
  /** Default `user-<random>@example.com`. */
  email?: string;
  /** Default: the email. */
  name?: string;
  /** Default `user`. */
  role?: string;
  /** Declared group names (res.user.groups); unknown ones are refused as the API refuses them (422 UNKNOWN_GROUP). */
  groups?: readonly string[];
  /** Their default organization; default: the seeded admin's, null for none. */
  organization_id?: string | null;
}

export interface TestKernel {
  /** The booted kernel, as apps see it. */
  kernel: KernelHandle;
  /** The default tenant (DEFAULT_TENANT), created and seeded by the boot. */
  tenant: string;
  /** The temp folder holding the tenant databases; removed by `close`. */
  dataDir: string;
  /** The tenant's system principal: access control off (seeds, the CLI, the event worker run so). */
  system: Principal;
  /**
   * A principal made in memory (default role `user`, no organization, a random user id that no
   * `res.user` holds: a Reference to the user, such as an owner filled by `default_principal`,
   * refuses it; use `newUser` for that). `groups` are held with what they imply, as a session's.
   */
  user(o?: { role?: string; groups?: readonly string[]; organization_id?: string | null; user_id?: string }): Principal;
  /**
   * A new `res.user` of the tenant, registered as an administrator registers one (`res.user.register`:
   * role, groups, organization, a random password), and the principal a session of theirs carries:
   * their id, role, groups and default organization (default: the admin's).
   */
  newUser(o?: NewUserOptions): Promise<Principal>;
  /** The seeded admin user (ADMIN_EMAIL) as a principal: role `admin`, the default organization. */
  admin(): Promise<Principal>;
  /** Runs one command as `principal` (default: `system`), with its own transaction, hooks and events. */
  dispatch<T = unknown>(command: string, payload?: Record<string, unknown>, principal?: Principal): Promise<T>;
  /** Stops the kernel and removes `dataDir`. */
  close(): Promise<void>;
}

/** The seeded admin's password in a test kernel (ADMIN_PASSWORD), unless `settings` names another. */
export const TEST_ADMIN_PASSWORD = 'fw-test-admin-1';

export async function bootTestKernel(opts: TestKernelOptions = {}): Promise<TestKernel> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-test-'));
  const removeDir = () => fs.rmSync(dataDir, { recursive: true, force: true });
  const key = () => crypto.randomBytes(32).toString('base64url');
  let settings: Settings;
  try {
    settings = loadSettings({
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      BCRYPT_COST: '4',
      LOG_LEVEL: 'silent',
      EVENT_POLL_INTERVAL_MS: '50',
      EVENT_RETRY_BASE_MS: '20',
      JWT_SECRET_KEY: key(),
      CONNECTOR_SECRET_KEY: key(),
      // with a REDIS_URL: a deployment of its own, so test kernels running at once on one Redis
      // (all with tenant `default`) never hear each other
      REDIS_PREFIX: `fw-test-${crypto.randomBytes(5).toString('hex')}`,
      ...opts.settings,
    });
  } catch (err) {
    removeDir();
    throw err;
  }
  const tenant = settings.DEFAULT_TENANT;
  const [{ Kernel }, { projectLayout }] = await Promise.all([import('../kernel/kernel.js'), import('../kernel/modules/loader.js')]);
  const kernel = await Kernel.boot({
    settings, worker: opts.worker ?? false, log: () => {},
    ...(opts.root !== undefined ? { layout: projectLayout(path.resolve(opts.root)) } : {}),
  }).catch((err: unknown) => {
    removeDir();
    throw err;
  });
  try {
    // created, migrated and seeded now, so a seed that fails fails the boot, not the first command
    await kernel.tenants.get(tenant);
  } catch (err) {
    await kernel.close();
    removeDir();
    throw err;
  }
  const system = systemPrincipal(tenant);
  const dispatch = <T = unknown>(command: string, payload: Record<string, unknown> = {}, principal: Principal = system) =>
    kernel.dispatch<T>(command, payload, principal);
  const admin = async (): Promise<Principal> => {
    const page = await dispatch<{ items: Array<{ id: string; role: string; organization: string | null }> }>('fw.search', {
      model: 'res.user', domain: [['email', '=', settings.ADMIN_EMAIL]], fields: ['role', 'organization'], limit: 1,
    });
    const row = page.items[0];
    if (!row) throw new NotFound(`no admin user ${settings.ADMIN_EMAIL} in tenant ${tenant}`, { email: settings.ADMIN_EMAIL, tenant }, 'TEST_ADMIN_NOT_FOUND');
    return { kind: 'user', user_id: row.id, tenant_id: tenant, role: row.role, organization_id: row.organization };
  };
  let closed = false;
  return {
    kernel, tenant, dataDir, system, dispatch,
    user: (o = {}) => ({
      kind: 'user', user_id: o.user_id ?? crypto.randomUUID(), tenant_id: tenant,
      role: o.role ?? 'user', organization_id: o.organization_id ?? null,
      ...(o.groups ? { groups: o.groups } : {}),
    }),
    async newUser(o = {}) {
      const organization = o.organization_id === undefined ? (await admin()).organization_id : o.organization_id;
      const email = o.email ?? `user-${crypto.randomBytes(5).toString('hex')}@example.com`;
      const made = await dispatch<{ id: string; role: string; groups: string[] | null; organization: string | null }>('res.user.register', {
        email, name: o.name ?? email, password: crypto.randomBytes(18).toString('base64url'), role: o.role ?? 'user',
        ...(o.groups ? { groups: o.groups } : {}),
        organization,
        // as the system: an administrator may give a role and groups, but would lend a user
        // without an organization their own
      }, system);
      return {
        kind: 'user', user_id: made.id, tenant_id: tenant, role: made.role, organization_id: made.organization,
        ...(made.groups ? { groups: made.groups } : {}),
      };
    },
    admin,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await kernel.close();
      } finally {
        removeDir();
      }
    },
  };
}

/**
 * Polls `fn` until it returns a truthy value (then returns it) or `timeoutMs` passes (then fails
 * naming `what`): how a test waits for something asynchronous, such as an event handler's write.
 */
export async function waitFor<T>(fn: () => Promise<T> | T, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
