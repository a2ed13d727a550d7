import crypto from 'node:crypto';
import * as jose from 'jose';
import { LRUCache } from 'lru-cache';
import { UAParser } from 'ua-parser-js';
import { delegateOf } from '../../../kernel/data/delegate.js';
import { checkTenantKey } from '../../../kernel/db/tenants.js';
import { systemPrincipal, type DbClient, type Env, type Principal } from '../../../kernel/env.js';
import { FwError, InvalidTokenError, OrganizationNotAllowed } from '../../../kernel/errors.js';
import type { Kernel } from '../../../kernel/kernel.js';
import { RedisName } from '../../../kernel/pubsub/names.js';
import { authSettings } from '../settings.js';
import type { AccessClaims, JwtService } from './jwt.js';

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
  expires_in: number;
}

export interface SessionUser { id: string; role: string }
type UserLoader = (id: string) => Promise<{ role: string; is_active: boolean } | null>;

/** An organization a user belongs to, by id and by its workspace slug (`res.organization.code`). */
interface Membership { id: string; code: string | null }
interface CachedSession {
  userId: string; role: string; groups: readonly string[]; names: readonly string[];
  /** The user's `lang` preference (null when unset or when base declares none). */
  lang: string | null;
  /** The user's default organization. */
  organizationId: string | null;
  /** The default organization first, then the memberships. */
  organizations: readonly Membership[];
}

/** What a request asks of its session: the organization to work in (`X-Fw-Organization`), by id or slug. */
export interface AuthenticateOptions { organization?: string | null }

/**
 * The organization a request works in: the one it names, if the user belongs to it, else the
 * default. Naming one the user does not belong to (or that does not exist) is 403
 * ORGANIZATION_NOT_ALLOWED, the same answer for both, so the header is no existence oracle.
 */
function currentOrganization(s: CachedSession, asked: string | null | undefined): string | null {
  if (asked === undefined || asked === null || asked === '') return s.organizationId;
  const key = asked.toLowerCase();
  const found = s.organizations.find((o) => o.id === key || o.code === key);
  if (!found) throw new OrganizationNotAllowed(asked);
  return found.id;
}

/**
 * The channel on which every process's session service hears what another one revoked or
 * changed (a logout, revoke-all, a deactivated user, a new role or organization): each drops
 * the sessions it cached, so a revoked token is refused on every instance at once, not after
 * AUTH_SESSION_CACHE_SECONDS. Through Redis with several processes (REDIS_URL; channel
 * `<REDIS_PREFIX>:_auth:forget`, so only the processes of this deployment hear it), in-process
 * otherwise; a lost message leaves the cache window as the bound.
 */
export const FORGET_CHANNEL = RedisName.app('auth', 'forget');
interface ForgetMessage { from: string; tenant: string; userId?: string; sid?: string }

/**
 * How long a dropped session or user is not cached again: the message can arrive before the
 * transaction that revoked it commits, and a read in between would cache the old row for the
 * whole cache window. Until then every request reads the database again.
 */
const RECHECK_MS = 5_000;

/** A long-lived stream (graphql-ws connection, server-sent events) watching its session. */
interface Watcher { tenant: string; sid: string; userId: string; check(): void }

export const sha256 = (s: string): string => crypto.createHash('sha256').update(s).digest('hex');

/** Refresh tokens carry their tenant so a refresh can find the right database: `<tenant>.<secret>`. */
export function tenantOfRefreshToken(token: unknown): string {
  if (typeof token !== 'string' || !/^[a-z0-9-]+\.[A-Za-z0-9_-]{43}$/.test(token)) {
    throw new InvalidTokenError('malformed refresh token');
  }
  return checkTenantKey(token.slice(0, token.indexOf('.')));
}

export function describeClient(userAgent: string | null | undefined): { os: string | null; browser: string | null } {
  if (!userAgent) return { os: null, browser: null };
  const r = UAParser(userAgent);
  const join = (n?: string, v?: string) => (n ? (v ? `${n} ${v}` : n).slice(0, 100) : null);
  return { os: join(r.os.name, r.os.version), browser: join(r.browser.name, r.browser.major) };
}

/**
 * The spec's session service (create, refresh, revoke one, revoke all) plus the access-token
 * check the middleware runs on every request, cached so the hot path reads no database.
 */
export class SessionService {
  private readonly cache: LRUCache<string, CachedSession>;
  /**
   * Verified access tokens: a token's signature never changes, and verifying it goes through
   * WebCrypto on libuv's pool, where it would queue behind bcrypt during a login burst.
   * Expiry is still checked on every hit; revocation is the session cache's job.
   */
  private readonly verified = new LRUCache<string, AccessClaims>({ max: 10_000 });
  private readonly refreshTtlMs: number;
  private readonly cacheTtlMs: number;
  private readonly watchers = new Set<Watcher>();
  private readonly retryMs: number;
  private readonly maxSessionMs: number;
  /** Tells this process's messages on FORGET_CHANNEL from other processes'. */
  private readonly origin = crypto.randomUUID();
  /** Sessions (`s:…`) and users (`u:…`) dropped within RECHECK_MS: read, not cached. */
  private readonly recheck = new LRUCache<string, true>({ max: 10_000, ttl: RECHECK_MS });

  constructor(private readonly kernel: Kernel, readonly jwt: JwtService) {
    const s = authSettings(kernel.settings);
    this.refreshTtlMs = s.JWT_REFRESH_TOKEN_EXPIRE_DAYS * 86_400_000;
    this.cacheTtlMs = Math.max(1, s.AUTH_SESSION_CACHE_SECONDS) * 1000;
    this.retryMs = Math.max(0, s.AUTH_REFRESH_RETRY_SECONDS) * 1000;
    this.maxSessionMs = Math.max(1, s.AUTH_SESSION_MAX_DAYS) * 86_400_000;
    this.cache = new LRUCache({ max: 50_000, ttl: this.cacheTtlMs });
  }

  private sessions(db: DbClient) {
    return delegateOf(db, this.kernel.registry.model('ir.session'));
  }

  /** Issues an access token and a new refresh token in `familyId` (a new login when omitted). */
  async issue(env: Env, user: SessionUser, familyId: string = crypto.randomUUID()): Promise<TokenPair> {
    return (await this.issueRow(env, user, familyId, Date.now())).pair;
  }

  /**
   * When the login that started `familyId` happened: the creation time of its first row (rows
   * are never deleted). AUTH_SESSION_MAX_DAYS counts from there, however often it was refreshed.
   */
  private async familyStart(env: Env, familyId: string): Promise<number> {
    const first = await this.sessions(env.db).findFirst({ where: { family_id: familyId }, orderBy: { dbid: 'asc' }, select: { created_at_utc: true } });
    return (first?.created_at_utc as Date | undefined)?.getTime() ?? Date.now();
  }

  /** A rotation (or its retry) may not carry a login past AUTH_SESSION_MAX_DAYS. */
  private async checkFamilyAge(env: Env, familyId: string): Promise<number> {
    const start = await this.familyStart(env, familyId);
    if (start + this.maxSessionMs <= Date.now()) {
      await this.revokeFamily(env.db, env.tenant, familyId, 'max_lifetime');
      throw new InvalidTokenError('the session has reached its maximum lifetime; log in again');
    }
    return start;
  }

  /** The row expires with the refresh token or at the login's absolute end, whichever is first. */
  private async issueRow(env: Env, user: SessionUser, familyId: string, started: number): Promise<{ pair: TokenPair; dbid: number }> {
    const refresh = `${env.tenant}.${crypto.randomBytes(32).toString('base64url')}`;
    const client = env.principal.client;
    const row = await this.sessions(env.db).create({
      data: {
        record_uuid: crypto.randomUUID(),
        user_id: user.id,
        tenant_id: env.tenant,
        family_id: familyId,
        refresh_token_hash: sha256(refresh),
        expires_at: new Date(Math.min(Date.now() + this.refreshTtlMs, started + this.maxSessionMs)),
        ip: client?.ip?.slice(0, 64) ?? null,
        ...describeClient(client?.user_agent),
      },
    });
    const access = await this.jwt.encode({ sub: user.id, tenant_id: env.tenant, role: user.role, sid: familyId });
    return {
      pair: { access_token: access, refresh_token: refresh, token_type: 'bearer', expires_in: this.jwt.accessTtlSeconds },
      dbid: row.dbid as number,
    };
  }

  /**
   * Rotation: one UPDATE retires the presented token only if it is still live, so of N
   * concurrent refreshes exactly one wins. Presenting a token that was already rotated is
   * reuse — a stolen copy or a replay — and revokes the whole family, with one exception: the
   * same rotation retried (see retry()).
   */
  async rotate(env: Env, refreshToken: string, loadUser: UserLoader, retryKey?: string): Promise<TokenPair> {
    const sessions = this.sessions(env.db);
    const row = await sessions.findUnique({ where: { refresh_token_hash: sha256(refreshToken) } });
    if (!row) throw new InvalidTokenError('unknown refresh token');
    const familyId = row.family_id as string;
    if (row.revoked) {
      if (row.revoked_reason === 'rotated') {
        const pair = await this.retry(env, row, loadUser, retryKey);
        if (pair) return pair;
        await this.revokeFamily(env.db, env.tenant, familyId, 'reuse_detected');
        throw new InvalidTokenError('refresh token reuse detected; the session has been revoked');
      }
      throw new InvalidTokenError('the session has been revoked');
    }
    if ((row.expires_at as Date).getTime() <= Date.now()) throw new InvalidTokenError('refresh token expired');
    const started = await this.checkFamilyAge(env, familyId);
    const claimed = await sessions.updateMany({
      where: { dbid: row.dbid, revoked: false },
      data: { revoked: true, revoked_reason: 'rotated', revoked_at: new Date(), rotation_key_hash: retryKey ? sha256(retryKey) : null },
    });
    if (claimed.count !== 1) throw new InvalidTokenError('refresh token already used');
    const user = await this.activeUser(env, familyId, row.user_id as string, loadUser);
    return this.succeed(env, row.dbid as number, user, familyId, started);
  }

  /**
   * A browser can lose the answer to a refresh it sent: the page that sent it is unloaded (a
   * navigation, a reload) after the server rotated the token. The next page then holds only the
   * rotated-away token, and presenting it would be reuse. The client therefore stores a random
   * retry key before it sends a refresh and sends the key with it; presenting the rotated token
   * again with that same key, within AUTH_REFRESH_RETRY_SECONDS, while its successor was never
   * used, is the same rotation repeated: the unseen successor is retired as `superseded` and a
   * new one issued in the family. Without the key (a copied token), late, or once the successor
   * was used, it is reuse as before. Returns null when the presentation is not such a retry.
   */
  private async retry(env: Env, row: Record<string, unknown>, loadUser: UserLoader, retryKey: string | undefined): Promise<TokenPair | null> {
    if (!retryKey || this.retryMs <= 0 || row.rotation_key_hash !== sha256(retryKey)) return null;
    if (Date.now() - (row.revoked_at as Date).getTime() > this.retryMs) return null;
    const started = await this.checkFamilyAge(env, row.family_id as string);
    const sessions = this.sessions(env.db);
    if (row.replaced_by != null) {
      // only a successor nobody has used yet can be the lost answer
      const gone = await sessions.updateMany({
        where: { dbid: row.replaced_by as number, revoked: false },
        data: { revoked: true, revoked_reason: 'superseded', revoked_at: new Date() },
      });
      if (gone.count !== 1) {
        const successor = await sessions.findUnique({ where: { dbid: row.replaced_by as number } });
        // another retry of the same rotation got there first: refuse this one, keep the login
        if (successor?.revoked_reason === 'superseded') throw new InvalidTokenError('this refresh was already retried');
        return null;
      }
    }
    const familyId = row.family_id as string;
    const user = await this.activeUser(env, familyId, row.user_id as string, loadUser);
    return this.succeed(env, row.dbid as number, user, familyId, started);
  }

  private async activeUser(env: Env, familyId: string, userId: string, loadUser: UserLoader): Promise<SessionUser> {
    const user = await loadUser(userId);
    if (!user?.is_active) {
      await this.revokeFamily(env.db, env.tenant, familyId, 'user_inactive');
      throw new InvalidTokenError('the user is inactive');
    }
    return { id: userId, role: user.role };
  }

  /** Issues the successor of row `from` and links it, so a retry of this rotation can find it. */
  private async succeed(env: Env, from: number, user: SessionUser, familyId: string, started: number): Promise<TokenPair> {
    const { pair, dbid } = await this.issueRow(env, user, familyId, started);
    await this.sessions(env.db).updateMany({ where: { dbid: from }, data: { replaced_by: dbid } });
    return pair;
  }

  async revokeFamily(db: DbClient, tenant: string, familyId: string, reason: string): Promise<number> {
    const r = await this.sessions(db).updateMany({
      where: { family_id: familyId, revoked: false },
      data: { revoked: true, revoked_reason: reason, revoked_at: new Date() },
    });
    // an already-rotated row keeps its reason, but the family is dead either way: none of its
    // rotations may be retried any more (a retry issues a successor, which would revive it)
    await this.sessions(db).updateMany({ where: { family_id: familyId, rotation_key_hash: { not: null } }, data: { rotation_key_hash: null } });
    this.forgetSession(tenant, familyId);
    return r.count;
  }

  /** Revokes every live session of a user, but the login `keepFamily` when given (the caller's own). */
  async revokeAllForUser(db: DbClient, tenant: string, userId: string, reason: string, keepFamily?: string): Promise<number> {
    const which = { user_id: userId, ...(keepFamily ? { family_id: { not: keepFamily } } : {}) };
    const r = await this.sessions(db).updateMany({
      where: { ...which, revoked: false },
      data: { revoked: true, revoked_reason: reason, revoked_at: new Date() },
    });
    await this.sessions(db).updateMany({ where: { ...which, rotation_key_hash: { not: null } }, data: { rotation_key_hash: null } });
    this.forgetUser(tenant, userId);
    return r.count;
  }

  /**
   * Drops cached sessions of a user (after revocation or a role/activity change), in this
   * process and, through FORGET_CHANNEL, in every other.
   */
  forgetUser(tenant: string, userId: string): void {
    this.dropUser(tenant, userId);
    this.announce({ tenant, userId });
  }

  forgetSession(tenant: string, familyId: string): void {
    this.dropSession(tenant, familyId);
    this.announce({ tenant, sid: familyId });
  }

  /** Listens on FORGET_CHANNEL for the other processes' revocations; resolves to the unsubscribe. */
  listen(): Promise<() => void> {
    return this.kernel.pubsub.subscribe(FORGET_CHANNEL, (raw) => {
      if (!raw || typeof raw !== 'object') return;
      const m = raw as ForgetMessage;
      if (m.from === this.origin || typeof m.tenant !== 'string') return;
      if (typeof m.userId === 'string') this.dropUser(m.tenant, m.userId);
      if (typeof m.sid === 'string') this.dropSession(m.tenant, m.sid);
    });
  }

  private announce(m: Omit<ForgetMessage, 'from'>): void {
    const message: ForgetMessage = { from: this.origin, ...m };
    this.kernel.pubsub.publish(FORGET_CHANNEL, message).catch((err: unknown) => {
      // the others' caches still expire within AUTH_SESSION_CACHE_SECONDS
      this.kernel.log('warn', 'session revocation not published to other processes', { tenant: m.tenant, err: String(err) });
    });
  }

  private dropUser(tenant: string, userId: string): void {
    this.recheck.set(`u:${tenant}:${userId}`, true);
    for (const [key, v] of this.cache.entries()) {
      if (v.userId === userId && key.startsWith(`${tenant}:`)) this.cache.delete(key);
    }
    for (const w of this.watchers) if (w.tenant === tenant && w.userId === userId) w.check();
  }

  private dropSession(tenant: string, familyId: string): void {
    this.recheck.set(`s:${tenant}:${familyId}`, true);
    this.cache.delete(`${tenant}:${familyId}`);
    for (const w of this.watchers) if (w.tenant === tenant && w.sid === familyId) w.check();
  }

  /**
   * Keeps a long-lived stream honest about the session it was opened with: the request
   * middleware checks the session on every request, but a graphql-ws connection or an event
   * stream authenticates once and then stays open. `onEnd` is called once, with the reason,
   *
   * - at once when this process logs the session out, revokes it or the user's sessions, or
   *   changes the user (every path that drops a cache entry above re-checks the watchers);
   * - when the access token expires (a timer at its `exp`);
   * - otherwise on the periodic re-check, every AUTH_SESSION_CACHE_SECONDS: a change made by
   *   another server process is seen once this process's cache entry has expired, so within
   *   twice that setting at worst (the same window requests have, see docs/security.md).
   *
   * A role or organization that no longer matches the one the stream was opened with ends it
   * too: a stream keeps the principal it started with, so it must not go on with a stale scope
   * (the client reconnects and gets the new one). Returns a function that stops watching.
   */
  watch(token: string, principal: Principal, onEnd: (reason: string) => void): () => void {
    if (principal.kind !== 'user' || !principal.sid || !principal.user_id) return () => {};
    const timers: NodeJS.Timeout[] = [];
    let done = false;
    const stop = () => {
      done = true;
      for (const t of timers) clearTimeout(t);
      this.watchers.delete(watcher);
    };
    const end = (reason: string) => {
      if (done) return;
      stop();
      onEnd(reason);
    };
    const watcher: Watcher = {
      tenant: principal.tenant_id,
      sid: principal.sid,
      userId: principal.user_id,
      // only called while watched: stop() clears the timer and leaves this.watchers as it sets `done`
      check: () => {
        // asked for the organization the stream works in: losing that membership ends the stream
        this.authenticate(token, { organization: principal.organization_id }).then((now) => {
          const same = now.role === principal.role && now.organization_id === principal.organization_id
            && (now.organization_ids ?? []).join(',') === (principal.organization_ids ?? []).join(',')
            && (now.names ?? []).join(',') === (principal.names ?? now.names ?? []).join(',');
          if (!same) end('the user\'s role, groups or organization changed');
        }, (err: unknown) => {
          // the organization the stream works in is no longer the user's: a change like any other
          if (err instanceof OrganizationNotAllowed) end('the user\'s role, groups or organization changed');
          // a refused token ends the stream; anything else (a database hiccup) waits for the next check
          else if (err instanceof FwError) end(err.message);
        });
      },
    };
    this.watchers.add(watcher);
    const exp = (jose.decodeJwt(token).exp ?? 0) * 1000;
    // setTimeout holds at most 2^31 − 1 ms (about 24 days); the periodic check covers the rest.
    // The delay is rounded up to a whole second: Node keeps one timer list per distinct delay
    // until that delay has passed, even once its timer is cleared, so millisecond delays left a
    // list per closed stream for up to the token's lifetime (seen in the soak's heap snapshots)
    const delay = Math.min(2 ** 31 - 1, Math.ceil(Math.max(0, exp - Date.now()) / 1000) * 1000);
    timers.push(setTimeout(() => end('the access token has expired'), delay));
    timers.push(setInterval(() => watcher.check(), this.cacheTtlMs));
    for (const t of timers) t.unref();
    return stop;
  }

  /** Bearer token → principal: signature and expiry, then a live session and an active user. */
  async authenticate(token: string, options: AuthenticateOptions = {}): Promise<Principal> {
    let claims = this.verified.get(token);
    if (!claims || claims.exp * 1000 <= Date.now()) {
      claims = await this.jwt.decode(token);
      this.verified.set(token, claims);
    }
    return this.principalOf(claims, options);
  }

  /**
   * The principal of a verified token's session as it is now: 401 TOKEN_INVALID when the tenant
   * is unknown, the session ended or the user is inactive. Signed links (./links.ts) use it too.
   */
  async principalOf(claims: Pick<AccessClaims, 'sub' | 'tenant_id' | 'sid'>, options: AuthenticateOptions = {}): Promise<Principal> {
    const tenant = claims.tenant_id;
    // verifying a token never creates a tenant: one naming an invalid tenant key, or a tenant
    // that does not exist (never provisioned, or dropped since the session was cached), is an
    // invalid token, 401 like a bad signature. Checked on cache hits too; an open tenant costs
    // a map lookup
    try {
      await this.kernel.tenants.assertExists(tenant);
    } catch (err) {
      if (err instanceof FwError && (err.code === 'UNKNOWN_TENANT' || err.code === 'INVALID_TENANT')) throw new InvalidTokenError();
      throw err;
    }
    const key = `${tenant}:${claims.sid}`;
    let s = this.cache.get(key);
    if (!s) {
      // plain reads through the bus as the system: outside a transaction they run as compiled SQL
      const system = systemPrincipal(tenant);
      const search = (model: string, domain: unknown[], fields: string[]) =>
        this.kernel.dispatch<{ items: Record<string, unknown>[] }>('fw.search', { model, domain, fields, limit: 1 }, system).then((r) => r.items[0]);
      // whether a live row exists is all that counts: no fields asked for (the record id alone comes back)
      const live = await search('ir.session', [
        ['family_id', '=', claims.sid], ['user_id', '=', claims.sub], ['revoked', '=', false], ['expires_at', '>', new Date().toISOString()],
      ], []);
      if (!live) throw new InvalidTokenError('the session has ended');
      const user = await search('res.user', [['record_uuid', '=', claims.sub]], ['is_active', 'role', 'groups', 'organization', ...this.langField()]);
      if (!user?.is_active) throw new InvalidTokenError('the user is inactive');
      const role = user.role as string;
      // a group no active app declares any more (an app uninstalled) is simply not held
      const groups = Array.isArray(user.groups) ? (user.groups as unknown[]).filter((g): g is string => typeof g === 'string' && this.kernel.registry.groups.byName.has(g)) : [];
      const organizationId = (user.organization as string | null) ?? null;
      s = {
        userId: claims.sub, role, groups, names: this.kernel.registry.groups.namesOf(role, groups), lang: typeof user.lang === 'string' ? user.lang : null,
        organizationId, organizations: await this.organizationsOf(tenant, claims.sub, organizationId),
      };
      if (!this.recheck.has(`s:${tenant}:${claims.sid}`) && !this.recheck.has(`u:${tenant}:${claims.sub}`)) this.cache.set(key, s);
    }
    return {
      kind: 'user', user_id: s.userId, tenant_id: tenant, role: s.role, groups: s.groups, names: s.names, lang: s.lang,
      organization_id: currentOrganization(s, options.organization), organization_ids: s.organizations.map((o) => o.id), sid: claims.sid,
    };
  }

  /** `lang` when res.user has it (base declares the preferences; a bare test app may not). */
  private langField(): string[] {
    return this.kernel.registry.models.get('res.user')?.fields.has('lang') ? ['lang'] : [];
  }

  /** The organizations a user belongs to: the default one, then the memberships (without repeats). */
  private async organizationsOf(tenant: string, userId: string, defaultId: string | null): Promise<Membership[]> {
    const system = systemPrincipal(tenant);
    const dispatch = this.kernel.dispatch.bind(this.kernel);
    // a tenant whose apps predate memberships (or run without base's model) has only the default
    const memberships = this.kernel.registry.models.has('res.user.membership')
      ? (await dispatch<{ items: Record<string, unknown>[] }>('fw.search', { model: 'res.user.membership', domain: [['user', '=', userId]], fields: ['organization'] }, system)).items
      : [];
    const ids = [...new Set([defaultId, ...memberships.map((m) => m.organization as string | null)].filter((id): id is string => !!id))];
    if (!ids.length) return [];
    const orgs = (await dispatch<{ items: Record<string, unknown>[] }>('fw.search', { model: 'res.organization', domain: [['record_uuid', 'in', ids]], fields: ['code'] }, system)).items;
    const code = new Map(orgs.map((o) => [o.id as string, (o.code as string | null) ?? null]));
    return ids.filter((id) => code.has(id)).map((id) => ({ id, code: code.get(id) ?? null }));
  }
}
