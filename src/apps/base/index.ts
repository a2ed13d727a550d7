import crypto from 'node:crypto';
import { defineApp, type CommandDecl, type HookDecl } from '../../kernel/app.js';
import { f } from '../../kernel/declare.js';
import { delegateOf } from '../../kernel/data/delegate.js';
import { isAdmin } from '../../kernel/access.js';
import { AccessDenied, BootError, Conflict, ValidationError } from '../../kernel/errors.js';
import { didYouMean } from '../../kernel/registry/closest.js';
import type { Registry } from '../../kernel/registry/registry.js';
import manifest from './manifest.js';
import { filterHooks } from './filters.js';
import { postMessage } from './messages.js';
import { beforeOrganizationDelete } from './organizations.js';
import { baseRoutes } from './routes.js';
import { seedBase } from './seed.js';
import { checkPasswordPolicy, hashPassword, MAX_PASSWORD_BYTES, passwordWeakness } from './services/passwords.js';
import { checkSlug, slugify } from './services/slug.js';
import { checkTimeZone, setPreferences } from './preferences.js';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
function normaliseEmail(payload: Record<string, unknown>): void {
  if (typeof payload.email !== 'string') return;
  payload.email = payload.email.trim().toLowerCase();
  if (!EMAIL_RE.test(payload.email as string)) {
    throw new ValidationError(`"${String(payload.email)}" is not an email address`, { field: 'email' }, 'INVALID_EMAIL');
  }
}


/**
 * `res.user.groups` holds a list of group names the active apps declare, each once (a group
 * implied by another may be listed too). Anything else is refused with 422 before it is stored.
 */
function checkGroups(registry: Registry, payload: Record<string, unknown>): void {
  if (!('groups' in payload) || payload.groups === null) return;
  const groups = payload.groups;
  if (!Array.isArray(groups) || groups.some((g) => typeof g !== 'string')) {
    throw new ValidationError('groups must be a list of group names', { field: 'groups' }, 'INVALID_GROUPS');
  }
  const known = registry.groups.byName;
  for (const g of groups as string[]) {
    if (!known.has(g)) throw new ValidationError(`unknown group "${g}"${didYouMean(g, known.keys())}`, { field: 'groups', group: g }, 'UNKNOWN_GROUP');
  }
  if (new Set(groups).size !== groups.length) throw new ValidationError('a group is listed twice', { field: 'groups' }, 'INVALID_GROUPS');
}

const commands: CommandDecl[] = [
  {
    name: 'res.organization.change_country',
    op: 'update',
    record: true,
    returns: 'record',
    description: 'Move an organization to another registered country',
    input: { country: f.reference('res.country', { required: true }) },
    handler: (env, p) => env.dispatch('fw.update', { model: 'res.organization', id: p.id, values: { country: p.country } }),
  },
  {
    name: 'res.organization.deactivate',
    op: 'update',
    record: true,
    returns: 'record',
    description: 'Deactivate an organization',
    handler: (env, p) => env.dispatch('fw.update', { model: 'res.organization', id: p.id, values: { is_active: false } }),
  },
  {
    name: 'res.user.register',
    op: 'create',
    returns: 'record',
    description: 'Create a user with a bcrypt-hashed password',
    input: {
      email: f.char(255, { required: true }),
      name: f.char(200, { required: true }),
      password: f.char(72, { required: true }),
      role: f.enum(['admin', 'user', 'qa']),
      groups: f.json({ description: 'Groups beyond the role (admins only)' }),
      organization: f.reference('res.organization'),
    },
    async handler(env, p) {
      const password = checkPasswordPolicy(p.password);
      if (p.role && p.role !== 'user' && !isAdmin(env.principal)) {
        throw new AccessDenied('only an admin may give a user another role than "user"', { field: 'role' });
      }
      if (p.groups !== undefined && p.groups !== null && !isAdmin(env.principal)) {
        throw new AccessDenied('only an admin may give a user groups', { field: 'groups' });
      }
      const values: Record<string, unknown> = {
        email: p.email,
        name: p.name,
        role: p.role ?? 'user',
        ...(p.groups !== undefined ? { groups: p.groups } : {}),
        organization: p.organization ?? env.principal.organization_id ?? null,
        password_hash: await hashPassword(password, env.settings.BCRYPT_COST),
      };
      // the hash is a private field: written as the system, after this command's own access check
      return env.sudo().dispatch('fw.create', { model: 'res.user', values });
    },
  },
  {
    name: 'res.user.set_password',
    op: 'read',
    record: true,
    returns: 'void',
    description: 'Set a new password: your own with your current one, or anyone else\'s as an admin. The user\'s other sessions end.',
    input: {
      password: f.char(72, { required: true }),
      current_password: f.char(72, { description: 'Your current password; required to change your own' }),
    },
    async handler(env, p) {
      if (!isAdmin(env.principal) && env.principal.user_id !== p.id) {
        throw new AccessDenied('you may only set your own password');
      }
      // changing your own password proves the current one: the auth app's pre hook checks
      // `current_password` through the login throttle, as it owns credentials and sessions
      const hash = await hashPassword(checkPasswordPolicy(p.password), env.settings.BCRYPT_COST);
      await env.sudo().dispatch('fw.update', { model: 'res.user', id: p.id, values: { password_hash: hash } });
      return null;
    },
  },
  setPreferences,
  {
    name: 'res.user.deactivate',
    op: 'update',
    record: true,
    returns: 'record',
    roles: ['admin'],
    description: 'Deactivate a user: they can no longer log in or use their tokens',
    handler: (env, p) => env.dispatch('fw.update', { model: 'res.user', id: p.id, values: { is_active: false } }),
  },
  {
    name: 'res.user.activate',
    op: 'update',
    record: true,
    returns: 'record',
    roles: ['admin'],
    description: 'Activate a user',
    handler: (env, p) => env.dispatch('fw.update', { model: 'res.user', id: p.id, values: { is_active: true } }),
  },
];

const hooks: HookDecl[] = [
  {
    point: 'pre.res.organization.create',
    async handler(ctx) {
      if (ctx.payload.code === undefined || ctx.payload.code === null) {
        const base = slugify(String(ctx.payload.name ?? 'org'));
        const orgs = delegateOf(ctx.env.db, ctx.env.registry.model('res.organization'));
        const taken = await orgs.count({ where: { code: base } });
        ctx.payload.code = taken ? `${base}-${crypto.randomUUID().slice(0, 6)}` : base;
      }
      checkSlug(ctx.payload.code);
    },
  },
  {
    point: 'pre.res.organization.update',
    handler(ctx) {
      if ('code' in ctx.payload) checkSlug(ctx.payload.code);
    },
  },
  { point: 'pre.res.user.create', handler: (ctx) => { normaliseEmail(ctx.payload); checkGroups(ctx.env.registry, ctx.payload); checkTimeZone(ctx.payload); } },
  { point: 'pre.res.user.update', handler: (ctx) => { normaliseEmail(ctx.payload); checkGroups(ctx.env.registry, ctx.payload); checkTimeZone(ctx.payload); } },
  { point: 'pre.res.organization.delete', handler: beforeOrganizationDelete },
  {
    // deleting yourself ends your own sessions at once and can leave a tenant without an admin
    point: 'pre.res.user.delete',
    handler(ctx) {
      if (ctx.env.principal.kind === 'user' && ctx.before?.id === ctx.env.principal.user_id) {
        throw new Conflict('you cannot delete your own user; another admin can', { model: 'res.user' }, 'SELF_DELETE');
      }
    },
  },
  // the spec's tracked field: a changed slug emits res.organization.field_changed
  { point: 'post.res.organization.update', track_fields: ['code'] },
  ...filterHooks,
];

export const app = defineApp({
  manifest,
  commands: [...commands, postMessage],
  hooks,
  seed: seedBase,
  routes: baseRoutes,
  boot(kernel) {
    // the seeded admin's password follows the same policy as every other: refused here, before
    // any tenant is seeded with it, rather than discovered as a weak admin login later
    const configured = kernel.settings.ADMIN_PASSWORD;
    if (!configured) return;
    const weakness = passwordWeakness(configured) ?? (Buffer.byteLength(configured) > MAX_PASSWORD_BYTES ? `password must be at most ${MAX_PASSWORD_BYTES} bytes` : null);
    if (weakness) {
      throw new BootError(`ADMIN_PASSWORD is refused: ${weakness}. Set a stronger one, or leave ADMIN_PASSWORD empty to have a strong one generated and printed once`, undefined, 'WEAK_ADMIN_PASSWORD');
    }
  },
});
