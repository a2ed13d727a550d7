import path from 'node:path';
import { BootError } from './errors.js';
import { instanceSecret } from './instance-secrets.js';
import { checkRedisPrefix, DEFAULT_REDIS_PREFIX } from './pubsub/names.js';

/**
 * Every setting, its default and its meaning lives in this table; docs/configuration.md is
 * written from it. Values come from the environment (strings) and are parsed once at boot.
 */
type Kind = 'string' | 'int' | 'number' | 'bool' | 'list';
/**
 * `min`/`max` bound an `int` or `number` setting (inclusive): a value outside stops the boot.
 * `generated` (a `string` secret): unset or empty, the value is a random key generated once into
 * `<DATA_DIR>/secrets.json` (src/kernel/instance-secrets.ts) instead of a default anyone can read.
 * `check` (a `string` setting): throws a BootError with the setting's own code for a value it refuses.
 */
interface Spec { kind: Kind; default: string; doc: string; min?: number; max?: number; generated?: boolean; check?: (value: string) => unknown }

export const SETTINGS = {
  NODE_ENV: { kind: 'string', default: 'development', doc: '`production` turns on production safety checks (e.g. `ALLOW_PUBLIC_DEV_KEYS` is ignored) and production defaults (introspection and the OpenAPI document for signed-in callers only, GraphiQL off).' },
  ALLOW_PUBLIC_DEV_KEYS: { kind: 'bool', default: 'false', doc: 'Development only: accept the public placeholder keys published in this repository as `JWT_SECRET_KEY`/`CONNECTOR_SECRET_KEY` (anyone can forge tokens and read connector secrets). Off, a placeholder stops the boot; ignored with NODE_ENV=production.' },
  HOST: { kind: 'string', default: '127.0.0.1', doc: 'Address the HTTP server binds.' },
  PORT: { kind: 'int', default: '8000', doc: 'HTTP port.' },
  DATA_DIR: { kind: 'string', default: './data', doc: 'Embedded data folder: one SQLite file per tenant under `<DATA_DIR>/tenants/`, local storage under `<DATA_DIR>/storage`.' },
  DATABASE_URL: { kind: 'string', default: '', doc: 'Empty = embedded SQLite. `postgresql://user@host:port/db` = one PostgreSQL database per tenant on that server (the path names the maintenance database used to create them).' },
  PG_DATABASE_PREFIX: { kind: 'string', default: 'fw_', doc: 'Prefix of per-tenant PostgreSQL database names (`<prefix><tenant>`).' },
  PG_POOL_MAX: { kind: 'int', default: '5', doc: 'Connections per tenant pool on PostgreSQL (one pool per tenant, shared by Prisma and the SQL reader).' },
  PG_STATEMENT_CACHE: { kind: 'int', default: '100', min: 0, max: 10000, doc: 'PostgreSQL: compiled reads each pooled connection keeps as prepared statements, parsed and planned once per connection instead of on every read (about half the database server\'s CPU per read). A connection holding this many sends further new reads unnamed. 0 = every read unnamed, for PgBouncer < 1.21 in transaction pooling; a read a pooler refuses runs again unnamed, and after three refusals that tenant\'s pool switches to unnamed reads by itself and warns FW_PG_STATEMENTS_UNNAMED once. 0 to 10000.' },
  PG_MAX_CONNECTIONS_PER_PROCESS: { kind: 'int', default: '20', min: 2, max: 10000, doc: 'PostgreSQL connections this process opens to tenant databases, all tenant pools together. Full: an idle connection of the tenant used least recently is closed for the one that needs it, else the request waits up to PG_CONNECTION_WAIT_MS and is answered 503 DATABASE_BUSY with Retry-After. Size it as (server `max_connections` − reserved − other clients) ÷ instances. 2 to 10000 (a command may read outside its transaction while it holds one).' },
  PG_CONNECTION_WAIT_MS: { kind: 'int', default: '5000', min: 10, max: 600000, doc: 'How long a query waits for a connection of the process budget (PG_MAX_CONNECTIONS_PER_PROCESS), or of its tenant\'s pool when all PG_POOL_MAX are busy, before it is answered 503 DATABASE_BUSY; closing another tenant\'s idle connection for it takes a round trip within this wait. 10 to 600000.' },
  PG_IDLE_TIMEOUT_MS: { kind: 'int', default: '10000', min: 0, max: 86400000, doc: 'A pooled PostgreSQL connection idle this long is closed (pg\'s `idleTimeoutMillis`, whose default it keeps); 0 = kept until the budget needs it or the tenant is closed. 0 to 86400000.' },
  TENANT_CACHE_MAX: { kind: 'int', default: '100', doc: 'Open tenant connections kept (least recently used are closed beyond this). Each has a read connection (a pool of up to PG_POOL_MAX on PostgreSQL); on SQLite also a Prisma client (about 3.5 MB) once the tenant is written to, while PostgreSQL tenants borrow shared ones (PRISMA_SPARE_CLIENTS).' },
  TENANT_IDLE_SECONDS: { kind: 'int', default: '600', min: 0, max: 604800, doc: 'An open tenant not used for this long is closed (its connections, reader, read cache and Prisma client released), between this and half as much again after its last request; its next request opens it again. 0 = kept until TENANT_CACHE_MAX evicts it. 0 to 604800.' },
  PRISMA_SPARE_CLIENTS: { kind: 'int', default: '4', min: 0, max: 1000, doc: 'PostgreSQL: unused Prisma clients kept for the next tenant command. Tenants borrow a shared Prisma client (about 3.5 MB each) while they run commands, so the clients built follow the tenants with a command in flight at once, not the tenants open; beyond this many spares, a client nobody borrowed for 30 s is closed (a burst\'s clients serve the next burst instead of being rebuilt). 0 to 1000.' },
  READ_CACHE_ROWS: { kind: 'int', default: '2000', doc: 'Rows of recent read results each open tenant keeps, served again until anything commits a change (SQLite: `PRAGMA data_version` checked on every read; PostgreSQL: the server snapshot, one check shared by concurrent reads). 0 = off.' },
  DEFAULT_TENANT: { kind: 'string', default: 'default', doc: 'Tenant used when a request names none (login without `X-Tenant`, CLI without `-t`).' },
  ACTIVE_MODULES: { kind: 'list', default: 'base,auth,presentation,connectors,storage', doc: 'Foundation apps to load, comma-separated, in the spec order.' },
  ACTIVE_DOMAINS: { kind: 'list', default: '', doc: 'User domains to boot, comma-separated; each lists its apps in `src/domains/<domain>.ts` (override with `<DOMAIN>_ACTIVE_MODULES`).' },
  ADMIN_EMAIL: { kind: 'string', default: 'admin@example.com', doc: 'Email of the admin user seeded in each new tenant.' },
  ADMIN_PASSWORD: { kind: 'string', default: '', doc: 'Password of the seeded admin. Empty = a strong random one is generated and printed once.' },
  BCRYPT_COST: { kind: 'int', default: '12', doc: 'bcrypt work factor for password hashes.' },
  EVENT_POLL_INTERVAL_MS: { kind: 'int', default: '1000', doc: 'How often the event worker kicks the tenants whose retry or expired lease, seen in their last drain here, has fallen due (no query; new events of this process are delivered at once). Deliveries of other processes are found by the sweep (EVENT_SWEEP_INTERVAL_MS).' },
  EVENT_SWEEP_INTERVAL_MS: { kind: 'int', default: '5000', min: 10, max: 3600000, doc: 'How often the event worker looks at every tenant open in this process for deliveries still to make, whoever wrote or claimed them: one count per tenant on its reader, a drain if any. A process killed mid-delivery is replaced within EVENT_LEASE_SECONDS plus this. 10 to 3600000.' },
  EVENT_MAX_ATTEMPTS: { kind: 'int', default: '5', doc: 'Delivery attempts before an event delivery is parked as a dead letter.' },
  EVENT_RETRY_BASE_MS: { kind: 'int', default: '500', doc: 'First retry delay; doubles each attempt (exponential backoff).' },
  FW_DEV: { kind: 'bool', default: 'false', doc: 'Set by `fw dev` on the server it supervises: draft migrations written by `fw dev` may be applied, and every app\'s data files are loaded again each time a tenant is opened (menus and views apply without a version bump). Never set it on a shared or production server.' },
  EVENT_WORKER: { kind: 'bool', default: 'true', doc: 'Run the event worker in this process.' },
  EVENT_LEASE_SECONDS: { kind: 'int', default: '60', min: 1, max: 86400, doc: 'How long a worker holds the event deliveries it claimed: a delivery still unfinished after this (its worker died or hangs) is claimed again by any worker. Longer than the slowest handler, or a slow delivery runs twice. 1 to 86400.' },
  API_DEFAULT_PAGE_SIZE: { kind: 'int', default: '50', doc: 'Records a list returns when the request gives no `limit`.' },
  API_MAX_PAGE_SIZE: { kind: 'int', default: '500', doc: 'Largest `limit` a list accepts; more is refused with 400 PAGE_TOO_LARGE.' },
  EXPORT_PAGE_SIZE: { kind: 'int', default: '2000', min: 1, max: 100000, doc: 'Records an export (`/api/export/<model>`) reads per query while it streams (after the ids of every match, read once); only one page of records is held in memory. 1 to 100000.' },
  EXPORT_LINK_TTL_SECONDS: { kind: 'int', default: '300', min: 1, max: 3600, doc: 'How long a download link of the GraphQL `exportLink` mutation stays valid (it works once). 1 to 3600.' },
  IMPORT_MAX_BYTES: { kind: 'int', default: String(20 * 1024 * 1024), min: 1024, doc: 'Largest file `/api/import/<model>` takes (20 MiB); more is refused with 413 PAYLOAD_TOO_LARGE.' },
  IMPORT_MAX_ROWS: { kind: 'int', default: '100000', min: 1, doc: 'Most data rows one import takes; more is refused with 413 IMPORT_TOO_MANY_ROWS (split the file).' },
  IMPORT_MAX_UNZIPPED_BYTES: { kind: 'int', default: String(100 * 1024 * 1024), min: 1024, doc: 'Most bytes an imported XLSX workbook (a ZIP archive) may unzip to (100 MiB): checked on the declared sizes of its entries, then on the bytes really inflated, before the workbook is read; more, or more than 10000 entries, is refused with 413 IMPORT_TOO_LARGE_UNZIPPED. ExcelJS holds the whole unzipped workbook in memory, several times over while it parses.' },
  IMPORT_BATCH_SIZE: { kind: 'int', default: '500', min: 1, max: 1000, doc: 'Rows of an import written per transaction (`fw.import_batch`). 1 to 1000.' },
  HTTP_BODY_LIMIT_BYTES: { kind: 'int', default: '1048576', doc: 'Largest JSON request body (uploads have their own limits).' },
  HTTP_HEADERS_TIMEOUT_SECONDS: { kind: 'int', default: '30', min: 1, max: 3600, doc: 'A client must send a request\'s headers within this; a slower one (slowloris) gets 408 and is disconnected.' },
  HTTP_REQUEST_TIMEOUT_SECONDS: { kind: 'int', default: '300', min: 0, max: 86400, doc: 'A client must send a whole request, headers and body, within this (408 and disconnected otherwise); 0 = no limit. Responses are not limited: event streams, subscriptions and downloads last as long as they need. Uploads must fit in it.' },
  HTTP_IDLE_TIMEOUT_SECONDS: { kind: 'int', default: '60', min: 0, max: 86400, doc: 'A connection on which no byte moves either way for this long is closed: a request body that stalls, a download nobody reads. Live streams (event streams, subscriptions, WebSocket connections) are exempt once started. 0 = never.' },
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: { kind: 'int', default: '72', min: 1, max: 3600, doc: 'How long an idle keep-alive connection waits for its next request. Above the idle timeout of a load balancer in front (often 60 s), so the balancer closes first.' },
  REDIS_URL: { kind: 'string', default: '', doc: 'Empty = in-process pub/sub (one server process). `redis://host:port` = live notifications (subscriptions, client reloads) reach subscribers of every server process, revocations drop cached sessions everywhere, the login throttle\'s counters are shared by every process, and an export link works once across them; every name fw uses there starts with REDIS_PREFIX.' },
  REDIS_PREFIX: { kind: 'string', default: DEFAULT_REDIS_PREFIX, check: checkRedisPrefix, doc: 'First part of every Redis channel and key fw uses (`<prefix>:<tenant>:<topic>`, `<prefix>:_auth:…`), so deployments sharing one Redis server stay apart: **two deployments on one Redis (staging and production, concurrent test runs) must set different prefixes**, or they hear each other\'s record changes and session revocations and share login throttle counters. Every process of one deployment sets the same. 1 to 64 letters, digits, `_`, `-` or `.` (no `:`); anything else stops the boot with REDIS_PREFIX_INVALID.' },
  TRUST_PROXY: { kind: 'bool', default: 'false', doc: 'Behind a reverse proxy: take the client address from X-Forwarded-For (login throttling per address, session records).' },
  CORS_ORIGINS: { kind: 'list', default: '', doc: 'Origins (`https://app.example.com`, comma-separated) whose pages may call /graphql from a browser: their preflights are answered and their responses readable, without credentials (the API authenticates with a bearer header, never a cookie). Empty = no cross-origin browser access; no Origin is reflected.' },
  WEB_CLIENT_DIR: { kind: 'string', default: 'web/dist', doc: 'Built web client (`npm ci` builds it) served at `/` with the SPA fallback for app URLs, relative to the project; a team project without a build of its own is served the one prebuilt in the installed fw. Empty = no web client; a missing folder logs a warning and serves none.' },
  LOG_LEVEL: { kind: 'string', default: 'info', doc: 'Server log level (fatal, error, warn, info, debug, trace, silent).' },
} satisfies Record<string, Spec>;

export type SettingName = keyof typeof SETTINGS;
type ValueOf<K extends Kind> = K extends 'int' | 'number' ? number : K extends 'bool' ? boolean : K extends 'list' ? string[] : string;
export type Settings = { readonly [K in SettingName]: ValueOf<(typeof SETTINGS)[K]['kind']> } & {
  /** Settings added by apps (auth, storage, …) with their own tables, read through `extra`. */
  readonly extra: Readonly<Record<string, string | undefined>>;
};

/** An empty variable means "unset" for numbers and booleans (`PORT=` is not port 0). */
function rawValue(raw: string | undefined, spec: Spec): string {
  if (raw === undefined || (raw === '' && spec.kind !== 'string' && spec.kind !== 'list')) return spec.default;
  return raw;
}

/** A number within the setting's declared range, else a BootError naming the range. */
function inRange(name: string, spec: Spec, raw: string, n: number): number {
  const { min, max } = spec;
  if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
    const range = min !== undefined && max !== undefined ? `between ${min} and ${max}` : min !== undefined ? `at least ${min}` : `at most ${max}`;
    throw new BootError(`setting ${name}="${raw}" must be ${range}`);
  }
  return n;
}

function parse(name: string, spec: Spec, raw: string): unknown {
  switch (spec.kind) {
    case 'int': {
      const n = Number(raw);
      if (!Number.isInteger(n)) throw new BootError(`setting ${name}="${raw}" must be an integer`);
      return inRange(name, spec, raw, n);
    }
    case 'number': {
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new BootError(`setting ${name}="${raw}" must be a number`);
      return inRange(name, spec, raw, n);
    }
    case 'bool':
      if (!/^(true|false|1|0|yes|no)$/i.test(raw)) throw new BootError(`setting ${name}="${raw}" must be true or false`);
      return /^(true|1|yes)$/i.test(raw);
    case 'list':
      return raw.split(',').map((s) => s.trim()).filter(Boolean);
    default:
      spec.check?.(raw);
      return raw;
  }
}

export function loadSettings(source: Record<string, string | undefined> = process.env): Settings {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(SETTINGS) as [string, Spec][]) {
    out[name] = parse(name, spec, rawValue(source[name], spec));
  }
  out.DATA_DIR = path.resolve(out.DATA_DIR as string);
  out.extra = { ...source };
  return Object.freeze(out) as Settings;
}

type Table = Record<string, Spec>;
type Parsed<T extends Table> = { readonly [K in keyof T]: ValueOf<T[K]['kind']> };

/** Every app settings table, so docs/configuration.md lists them all. */
export const APP_SETTINGS: Array<{ app: string; table: Table }> = [];

/**
 * `build(settings)` once per settings object (a deployment's parsed settings never change): what
 * is derived from them, such as an app's policies, is kept beside them, not rebuilt per call.
 */
export function perSettings<T>(build: (settings: Settings) => T): (settings: Settings) => T {
  const cache = new WeakMap<Settings, T>();
  return (settings) => {
    if (!cache.has(settings)) cache.set(settings, build(settings));
    return cache.get(settings)!;
  };
}

/** An app's own settings, declared like the kernel's and parsed with the same rules. */
export function defineSettings<T extends Table>(app: string, table: T): (settings: Settings) => Parsed<T> {
  APP_SETTINGS.push({ app, table });
  return perSettings((settings) => {
    const out: Record<string, unknown> = {};
    for (const [name, spec] of Object.entries(table)) {
      const raw = settings.extra[name];
      out[name] = spec.generated && !raw ? instanceSecret(settings.DATA_DIR, name) : parse(name, spec, rawValue(raw, spec));
    }
    return Object.freeze(out) as Parsed<T>;
  });
}
