import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { defineApp, type CommandDecl, type HookDecl, type RouteContext } from '../../kernel/app.js';
import { f } from '../../kernel/declare.js';
import { delegateOf } from '../../kernel/data/delegate.js';
import { isAdmin } from '../../kernel/access.js';
import { anonymousPrincipal, type Env, type Principal } from '../../kernel/env.js';
import { AccessDenied, AuthenticationFailed, BadRequest, BootError, InvalidTokenError, ValidationError } from '../../kernel/errors.js';
import type { KernelHandle } from '../../kernel/kernel-handle.js';
import { concreteKernel } from '../../kernel/kernel.js';
import { o } from '../../kernel/output.js';
import '../../server/types.js';
import { hashPassword, verifyPassword } from '../base/services/passwords.js';
import { clearRefreshCookie, readRefreshCookie, setRefreshCookie, wantsCookie, type CookieSecure } from './cookie.js';
import manifest from './manifest.js';
import { exportPlan } from '../../server/transfer/params.js';
import { JwtService } from './services/jwt.js';
import { LinkService } from './services/links.js';
import { SessionService, tenantOfRefreshToken, type TokenPair } from './services/sessions.js';
import { LoginThrottle } from './services/throttle.js';
import { authSettings } from './settings.js';

interface AuthServices { sessions: SessionService; links: LinkService; throttle: LoginThrottle; dummyHash: Promise<string> }

/** One set of services per booted kernel (the session cache is per process; the throttle's counters are in Redis when there is one). */
const services = new WeakMap<KernelHandle, Promise<AuthServices>>();
export function authServices(kernel: KernelHandle): Promise<AuthServices> {
  let s = services.get(kernel);
  if (!s) {
    s = JwtService.fromSettings(kernel.settings).then(async (jwt) => {
      // the session check asks the kernel's tenant databases whether the token's tenant exists
      const sessions = new SessionService(concreteKernel(kernel), jwt);
      // other processes' revocations drop this one's cached sessions (closed with the pub/sub)
      await sessions.listen();
      return {
        sessions,
        // single use is claimed in Redis when there is one, so it holds across processes
        links: new LinkService(jwt.keys, sessions, concreteKernel(kernel).pubsub.store),
        // shared by every process over Redis when there is one (closed with the kernel's pub/sub)
        throttle: new LoginThrottle(kernel.settings, concreteKernel(kernel).pubsub.store),
        // unknown emails are checked against this so they cost the same bcrypt time as known ones
        dummyHash: hashPassword('fw-timing-equaliser', kernel.settings.BCRYPT_COST),
      };
    });
    services.set(kernel, s);
  }
  return s;
}

/** Commands reach the kernel through the env; the services hang off the kernel that booted them. */
const kernelOf = new WeakMap<object, KernelHandle>();
function svc(env: Env): Promise<AuthServices> {
  const kernel = kernelOf.get(env.registry);
  if (!kernel) throw new Error('auth services are not bound to this registry');
  return authServices(kernel);
}

/** GraphQL result types (src/kernel/output.ts); REST answers the same keys. */
const AuthTokens = o.object('AuthTokens', {
  access_token: o.string({ description: 'JWT for the Authorization: Bearer header' }),
  refresh_token: o.string({ description: '<tenant>.<secret>; single use (refresh rotates it)' }),
  token_type: o.string({ description: 'Always "bearer"' }),
  expires_in: o.int({ description: 'Seconds until the access token expires' }),
}, { description: 'An access token and the refresh token of the same session' });
const LogoutResult = o.object('LogoutResult', { revoked: o.boolean() });
const SessionsRevoked = o.object('SessionsRevoked', { revoked: o.int({ description: 'How many of the user\'s sessions this ended' }) });
const MeOrganization = o.object('MeOrganization', { id: o.id(), name: o.string(), code: o.nullable(o.string()) });
const Me = o.object('Me', {
  id: o.id(),
  name: o.string(),
  email: o.string(),
  tenant_id: o.string(),
  role: o.string(),
  is_active: o.boolean(),
  organization: { ...MeOrganization, nullable: true, description: 'The organization this request works in (X-Fw-Organization, else the default one)' },
  default_organization: o.id({ nullable: true, description: 'The user\'s default organization' }),
  organizations: o.list(MeOrganization, { description: 'Every organization the user belongs to, the default one first' }),
  lang: o.string({ description: 'Preferred language (en, fr)' }),
  tz: o.string({ nullable: true, description: 'Preferred IANA time zone; null for the browser\'s' }),
  theme: o.string({ description: 'Preferred theme: system, light or dark' }),
}, { description: 'The calling user' });

const ExportLink = o.object('ExportLink', {
  url: o.string({ description: 'Path of the download (GET, no Authorization header needed); it works once' }),
  expires_at: o.datetime({ description: 'When the link stops working (EXPORT_LINK_TTL_SECONDS after it was issued)' }),
}, { description: 'A short-lived, single-use download link of an export' });

/** A link longer than this would not survive as a URL (browsers, proxies): export that many ids with POST /api/export. */
const MAX_LINK_CHARS = 6000;

const users = (env: Env) => delegateOf(env.db, env.registry.model('res.user'));

/**
 * The password check of a login, with its throttle: the user found by `findUser` (null for none)
 * when the password is right and the user active, else 401 AUTHENTICATION_FAILED after the same
 * work (an unknown email is checked against the dummy hash, so it costs one bcrypt compare too).
 */
async function checkLogin(
  { throttle, dummyHash }: AuthServices, principal: Principal, p: Record<string, unknown>,
  findUser: (email: string) => Promise<Record<string, unknown> | null>,
): Promise<Record<string, unknown>> {
  const email = String(p.email).trim().toLowerCase();
  const ip = principal.client?.ip ?? null;
  const key = `${principal.tenant_id}:${email}`;
  await throttle.before(key, ip);
  let user: Record<string, unknown> | null;
  let ok: boolean;
  try {
    user = await findUser(email);
    ok = await verifyPassword(String(p.password), (user?.password_hash as string | undefined) ?? await dummyHash);
  } catch (err) {
    // a server error says nothing about the password: it must not count as a failed login
    await throttle.abandoned(key, ip);
    throw err;
  }
  if (!user || !ok || !user.is_active) {
    await throttle.failed(key, ip);
    throw new AuthenticationFailed();
  }
  await throttle.succeeded(key, ip);
  return user;
}

const commands: CommandDecl[] = [
  {
    name: 'auth.login',
    graphql_name: 'login',
    public: true,
    transaction: false,
    returns: 'json',
    output: AuthTokens,
    description: 'Exchange email and password for an access token and a refresh token',
    input: { email: f.char(255, { required: true }), password: f.char(1024, { required: true }) },
    async handler(env, p) {
      const services = await svc(env);
      const user = await checkLogin(services, env.principal, p, (email) => users(env).findUnique({ where: { email } }));
      // not env.sudo(): the system principal has no client, and the session records its user agent and address
      return services.sessions.issue(env, { id: user.record_uuid as string, role: user.role as string });
    },
    // a tenant that does not exist is a login that fails like any other: the same throttle, the
    // same bcrypt work against the dummy hash, the same 401 (no 404 telling tenants apart)
    async unknown_tenant({ kernel, principal, payload }) {
      await checkLogin(await authServices(kernel), principal, payload, async () => null);
      throw new AuthenticationFailed();
    },
  },
  {
    name: 'auth.refresh',
    graphql_name: 'refresh',
    public: true,
    transaction: false,
    returns: 'json',
    output: AuthTokens,
    description: 'Rotate a refresh token: a new pair, the old refresh token invalidated',
    input: {
      refresh_token: f.char(200, { required: true }),
      retry_key: f.char(64, { description: 'A random value (16–64 characters) the client stored before sending this refresh; sending the same refresh again with it, when the answer was lost, is a retry rather than reuse' }),
    },
    async handler(env, p) {
      const { sessions } = await svc(env);
      const token = String(p.refresh_token);
      if (tenantOfRefreshToken(token) !== env.tenant) throw new BadRequest('the refresh token belongs to another tenant', undefined, 'TENANT_MISMATCH');
      const retryKey = p.retry_key == null || p.retry_key === '' ? undefined : String(p.retry_key);
      if (retryKey !== undefined && retryKey.length < 16) throw new ValidationError('"retry_key" must be 16 to 64 characters', { errors: [{ field: 'retry_key', code: 'TOO_SHORT', message: '"retry_key" must be at least 16 characters' }] });
      return sessions.rotate(env, token, async (id) => {
        const u = await users(env).findUnique({ where: { record_uuid: id }, select: { role: true, is_active: true } });
        return u ? { role: u.role as string, is_active: u.is_active as boolean } : null;
      }, retryKey);
    },
    // a refresh token naming a tenant that does not exist is just an unknown token
    async unknown_tenant() {
      throw new InvalidTokenError('unknown refresh token');
    },
  },
  {
    name: 'auth.logout',
    graphql_name: 'logout',
    transaction: false,
    returns: 'json',
    output: LogoutResult,
    description: 'Revoke the current session: its access and refresh tokens stop working',
    async handler(env) {
      const { sessions } = await svc(env);
      if (!env.principal.sid) throw new BadRequest('this principal has no session', undefined, 'NO_SESSION');
      await sessions.revokeFamily(env.sudo().db, env.tenant, env.principal.sid, 'logout');
      return { revoked: true };
    },
  },
  {
    name: 'auth.export_link',
    graphql_name: 'exportLink',
    transaction: false,
    returns: 'json',
    output: ExportLink,
    description: 'A single-use link that downloads an export (the parameters of POST /api/export/{model}) without a bearer header, as the user at download time',
    input: {
      model: f.char(255, { required: true }), format: f.char(10), fields: f.json(), filter: f.json(), where: f.json(), ids: f.json(), order: f.char(1000),
    },
    async handler(env, p) {
      const { links } = await svc(env);
      const model = env.registry.model(String(p.model));
      const params = Object.fromEntries(['format', 'fields', 'filter', 'where', 'ids', 'order'].filter((k) => p[k] !== undefined && p[k] !== null).map((k) => [k, p[k]]));
      // checked now, so a wrong parameter is this mutation's error and not the download's;
      // the download checks everything again, as the user is then
      exportPlan(env.registry, model, env.principal, params);
      const { token, expires_at } = await links.issue(env.principal, 'export', { model: model.key, ...params }, env.settings.EXPORT_LINK_TTL_SECONDS);
      if (token.length > MAX_LINK_CHARS) {
        throw new BadRequest(`these export parameters make a link of ${token.length} characters (at most ${MAX_LINK_CHARS}); use POST /api/export/${model.key}`, { length: token.length, max: MAX_LINK_CHARS }, 'EXPORT_LINK_TOO_LONG');
      }
      return { url: `/api/export/download?token=${token}`, expires_at: expires_at.toISOString() };
    },
  },
  {
    name: 'auth.me',
    graphql_name: 'me',
    mutates: false,
    returns: 'json',
    output: Me,
    description: 'The current user',
    async handler(env) {
      if (!env.principal.user_id) throw new BadRequest('this principal is not a user', undefined, 'NO_USER');
      const u = await env.dispatch<Record<string, unknown>>('fw.read_one', { model: 'res.user', id: env.principal.user_id });
      const ids = env.principal.organization_ids ?? [];
      const found = ids.length
        ? (await env.sudo().dispatch<{ items: Record<string, unknown>[] }>('fw.search', { model: 'res.organization', domain: [['record_uuid', 'in', [...ids]]], fields: ['name', 'code'] })).items
        : [];
      const organizations = ids.map((id) => found.find((o) => o.id === id)).filter((o): o is Record<string, unknown> => !!o)
        .map((o) => ({ id: o.id, name: o.name, code: o.code ?? null }));
      const organization = organizations.find((o) => o.id === env.principal.organization_id) ?? null;
      return { id: u.id, name: u.name, email: u.email, tenant_id: env.tenant, role: u.role, is_active: u.is_active, organization, default_organization: u.organization ?? null, organizations, lang: u.lang ?? 'en', tz: u.tz ?? null, theme: u.theme ?? 'system' };
    },
  },
  {
    name: 'ir.session.revoke_all',
    model: 'ir.session',
    op: 'read',
    transaction: false,
    returns: 'json',
    output: SessionsRevoked,
    description: 'Revoke every session of a user (yourself, or anyone as an admin)',
    input: { user_id: f.uuid() },
    async handler(env, p) {
      const target = (p.user_id as string | undefined) ?? env.principal.user_id;
      if (!target) throw new BadRequest('user_id is required', undefined, 'INVALID_PAYLOAD');
      if (target !== env.principal.user_id && !isAdmin(env.principal)) {
        throw new AccessDenied('only an admin may revoke the sessions of another user');
      }
      const { sessions } = await svc(env);
      return { revoked: await sessions.revokeAllForUser(env.sudo().db, env.tenant, target, 'revoke_all') };
    },
  },
];

const hooks: HookDecl[] = [
  {
    // a deactivated user loses every session at once; a role or group change applies on the next
    // request, and so does a new language (the session's principal carries it: translated plans
    // and the bootstrap read it from there)
    point: 'post.res.user.update',
    async handler(ctx) {
      const { before, after } = ctx;
      if (!before || !after) return;
      const { sessions } = await svc(ctx.env);
      const id = after.id as string;
      if (before.is_active && !after.is_active) await sessions.revokeAllForUser(ctx.env.sudo().db, ctx.env.tenant, id, 'user_inactive');
      const groupsChanged = JSON.stringify(before.groups ?? null) !== JSON.stringify(after.groups ?? null);
      if (before.role !== after.role || groupsChanged || before.organization !== after.organization || before.is_active !== after.is_active
        || before.lang !== after.lang) {
        ctx.env.afterCommit(() => sessions.forgetUser(ctx.env.tenant, id));
      }
    },
  },
  // a membership given or taken applies at the user's next request on every instance, as a role change does
  ...(['create', 'update', 'delete'] as const).map((op): HookDecl => ({
    point: `post.res.user.membership.${op}`,
    async handler(ctx) {
      const { sessions } = await svc(ctx.env);
      const users = new Set([ctx.before?.user, ctx.after?.user].filter((u): u is string => typeof u === 'string'));
      for (const id of users) ctx.env.afterCommit(() => sessions.forgetUser(ctx.env.tenant, id));
    },
  })),
  {
    // a stolen access token, or a session left open on a shared screen, must not be enough to
    // take the account over: changing your own password proves the current one. The guesses go
    // through the login throttle's (email, address) pair, so a token cannot be used to guess the
    // password faster than the login allows.
    point: 'pre.res.user.set_password',
    async handler(ctx) {
      const { principal } = ctx.env;
      if (principal.kind !== 'user' || !ctx.before || principal.user_id !== ctx.before.id) return;
      const current = ctx.payload.current_password;
      if (typeof current !== 'string' || current === '') {
        throw new ValidationError('changing your own password needs your current password in "current_password"', { field: 'current_password' }, 'CURRENT_PASSWORD_REQUIRED');
      }
      const { throttle } = await svc(ctx.env);
      const user = await users(ctx.env).findUnique({ where: { record_uuid: ctx.before.id }, select: { email: true, password_hash: true } });
      const key = `${ctx.env.tenant}:${String(user?.email)}`;
      const ip = principal.client?.ip ?? null;
      await throttle.before(key, ip);
      let ok: boolean;
      try {
        ok = await verifyPassword(current, user?.password_hash as string | undefined);
      } catch (err) {
        await throttle.abandoned(key, ip);
        throw err;
      }
      if (!ok) {
        await throttle.failed(key, ip);
        throw new ValidationError('the current password is wrong', { field: 'current_password' }, 'CURRENT_PASSWORD_INVALID');
      }
      await throttle.succeeded(key, ip);
    },
  },
  {
    // a new password ends every other login of the user: whoever knew the old one (or holds a
    // stolen token) is out. The caller's own session, when it is the user's, stays valid.
    point: 'post.res.user.set_password',
    async handler(ctx) {
      if (!ctx.before) return;
      const id = ctx.before.id as string;
      const { principal } = ctx.env;
      const { sessions } = await svc(ctx.env);
      const keep = principal.kind === 'user' && principal.user_id === id ? principal.sid : undefined;
      await sessions.revokeAllForUser(ctx.env.sudo().db, ctx.env.tenant, id, 'password_changed', keep);
      ctx.env.afterCommit(() => sessions.forgetUser(ctx.env.tenant, id));
    },
  },
  {
    // a deleted user's logins end with it: the session rows name the user by uuid, so nothing
    // cascades, and a session cached in this process would otherwise work on for a while
    point: 'post.res.user.delete',
    async handler(ctx) {
      if (!ctx.before) return;
      const { sessions } = await svc(ctx.env);
      const id = ctx.before.id as string;
      await sessions.revokeAllForUser(ctx.env.sudo().db, ctx.env.tenant, id, 'user_deleted');
      ctx.env.afterCommit(() => sessions.forgetUser(ctx.env.tenant, id));
    },
  },
];

/** AUTH_COOKIE_SECURE, checked at boot. */
function cookieSecure(kernel: KernelHandle): CookieSecure {
  const v = authSettings(kernel.settings).AUTH_COOKIE_SECURE.trim().toLowerCase();
  if (v !== 'auto' && v !== 'always' && v !== 'never') throw new BootError(`AUTH_COOKIE_SECURE must be auto, always or never, not ${JSON.stringify(v)}`, { setting: 'AUTH_COOKIE_SECURE' });
  return v;
}

function authRoutes(server: FastifyInstance, { kernel }: RouteContext): void {
  const pub = { config: { auth: 'public' as const } };
  const bodyOf = (b: unknown) => (b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {});
  const secure = cookieSecure(kernel);
  const cookieAge = authSettings(kernel.settings).JWT_REFRESH_TOKEN_EXPIRE_DAYS * 86_400;
  /** In cookie mode (./cookie.ts) the refresh token goes into the cookie and out of the body. */
  const answer = (req: FastifyRequest, reply: FastifyReply, pair: TokenPair): Partial<TokenPair> => {
    if (!wantsCookie(req)) return pair;
    setRefreshCookie(req, reply, pair.refresh_token, cookieAge, secure);
    const { refresh_token: _omitted, ...rest } = pair;
    return rest;
  };
  server.post('/api/auth/login', pub, async (req, reply) => {
    const b = bodyOf(req.body);
    const principal = typeof b.tenant === 'string' && !req.headers['x-tenant']
      ? { ...anonymousPrincipal(b.tenant), client: req.principal.client }
      : req.principal;
    return answer(req, reply, await kernel.dispatch<TokenPair>('auth.login', { email: b.email, password: b.password }, principal));
  });
  server.post('/api/auth/refresh', pub, async (req, reply) => {
    const body = bodyOf(req.body);
    // cookie mode: the token and its retry key come from the cookie, never from the body
    const fromCookie = wantsCookie(req) ? readRefreshCookie(req) : null;
    if (wantsCookie(req) && !fromCookie) throw new InvalidTokenError('no refresh cookie');
    const token = fromCookie ? fromCookie.token : body.refresh_token;
    const retry_key = fromCookie ? fromCookie.retryKey : body.retry_key;
    const principal = { ...anonymousPrincipal(tenantOfRefreshToken(token)), client: req.principal.client };
    // an absent retry_key (undefined) is left out by the command's input check; a tenant that does
    // not exist answers 401 TOKEN_INVALID (the command's unknown_tenant)
    return answer(req, reply, await kernel.dispatch<TokenPair>('auth.refresh', { refresh_token: token, retry_key }, principal));
  });
  server.post('/api/auth/logout', async (req, reply) => {
    const result = await kernel.dispatch('auth.logout', {}, req.principal);
    if (wantsCookie(req)) clearRefreshCookie(req, reply, secure);
    return result;
  });
  server.get('/api/auth/me', async (req) => kernel.dispatch('auth.me', {}, req.principal));
}

export const app = defineApp({
  manifest,
  commands,
  hooks,
  routes: authRoutes,
  async boot(kernel) {
    kernelOf.set(kernel.registry, kernel);
    cookieSecure(kernel);
    // settings are checked here so a bad JWT configuration stops the boot, not the first request
    await authServices(kernel);
  },
  authenticator(kernel) {
    const ready = authServices(kernel);
    return {
      authenticate: async (token, options) => (await ready).sessions.authenticate(token, options),
      redeemLink: async (token, purpose, tenant) => (await ready).links.redeem(token, purpose, tenant),
      watch(token, principal, onEnd) {
        // the services are ready by now (the token was just authenticated with them)
        let stop: (() => void) | null = null;
        let stopped = false;
        void ready.then(({ sessions }) => { if (!stopped) stop = sessions.watch(token, principal, onEnd); });
        return () => {
          stopped = true;
          stop?.();
        };
      },
    };
  },
});
