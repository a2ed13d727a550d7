/**
 * A user's preferences (language, time zone, theme, default organization): stored on `res.user`,
 * changed by the user themselves through `res.user.set_preferences` — a normal user may read users
 * but not write them, so this command is the one way in, and it writes only these fields.
 * docs/web-client.md#preferences, docs/api.md.
 */
import { f } from '../../kernel/declare.js';
import type { CommandDecl } from '../../kernel/app.js';
import { AccessDenied, ValidationError } from '../../kernel/errors.js';
import type { Env } from '../../kernel/env.js';

/**
 * The IANA name a time zone is stored under: what `Intl.DateTimeFormat` accepts is what the client
 * can show dates in, so the same check guards both ends; an alias is stored under its canonical
 * name (`US/Eastern` → `America/New_York`). Empty or null clears it (the browser's zone).
 */
export function canonicalTimeZone(tz: string): string | null {
  if (tz.length > 64) return null;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export function checkTimeZone(payload: Record<string, unknown>): void {
  if (!('tz' in payload) || payload.tz === null || payload.tz === undefined) return;
  const tz = typeof payload.tz === 'string' ? payload.tz.trim() : '';
  if (typeof payload.tz === 'string' && tz === '') { payload.tz = null; return; }
  const canonical = typeof payload.tz === 'string' ? canonicalTimeZone(tz) : null;
  if (!canonical) {
    throw new ValidationError(`"${String(payload.tz).slice(0, 64)}" is not a time zone; use an IANA name such as Europe/Paris`, { field: 'tz' }, 'INVALID_TIME_ZONE');
  }
  payload.tz = canonical;
}

/** The organizations the user belongs to as stored now: the default one and the memberships. */
async function organizationsOf(env: Env, userId: string): Promise<{ default: string | null; memberships: Map<string, string> }> {
  const sudo = env.sudo();
  const user = await sudo.dispatch<Record<string, unknown>>('fw.read_one', { model: 'res.user', id: userId });
  const rows = await sudo.dispatch<{ items: Record<string, unknown>[] }>('fw.search', { model: 'res.user.membership', domain: [['user', '=', userId]], fields: ['organization'], limit: 1000 });
  return {
    default: typeof user.organization === 'string' ? user.organization : null,
    memberships: new Map(rows.items.map((m) => [String(m.organization), String(m.id)])),
  };
}

export const setPreferences: CommandDecl = {
  name: 'res.user.set_preferences',
  op: 'read',
  record: true,
  returns: 'record',
  description: 'Set your own preferences: language, time zone, theme and default organization (one of yours). Fields left out are kept.',
  input: {
    lang: f.enum(['en', 'fr'], { description: 'Language of the client' }),
    tz: f.char(64, { description: 'IANA time zone dates are shown in; empty for the browser\'s' }),
    theme: f.enum(['system', 'light', 'dark'], { description: 'Theme; system follows the device' }),
    organization: f.uuid({ description: 'Default organization: one the user belongs to' }),
  },
  async handler(env, p) {
    // your own preferences only, admins included: an admin changes another user on the user form
    if (env.principal.user_id !== p.id) throw new AccessDenied('you may only set your own preferences');
    const values: Record<string, unknown> = {};
    for (const k of ['lang', 'theme'] as const) if (p[k] !== undefined && p[k] !== null) values[k] = p[k];
    if (p.tz !== undefined) values.tz = p.tz;
    checkTimeZone(values);
    const sudo = env.sudo();
    if (p.organization !== undefined && p.organization !== null) {
      const orgs = await organizationsOf(env, String(p.id));
      const wanted = String(p.organization);
      // 422 on the field rather than the header's 403 ORGANIZATION_NOT_ALLOWED, which the client
      // answers by leaving the workspace; the same answer for an organization that does not exist
      if (wanted !== orgs.default && !orgs.memberships.has(wanted)) {
        throw new ValidationError('your default organization must be one you belong to', { field: 'organization' }, 'NOT_YOUR_ORGANIZATION');
      }
      if (wanted !== orgs.default) {
        // the default and the memberships swap places, so the user keeps every organization
        // they had: the old default becomes a membership, the new one's membership goes
        await sudo.dispatch('fw.delete', { model: 'res.user.membership', id: orgs.memberships.get(wanted) });
        if (orgs.default) await sudo.dispatch('fw.create', { model: 'res.user.membership', values: { user: p.id, organization: orgs.default } });
        values.organization = wanted;
      }
    }
    if (!Object.keys(values).length) return env.dispatch('fw.read_one', { model: 'res.user', id: p.id });
    // written as the system: the fields are the command's fixed list above, the record the caller's own
    await sudo.dispatch('fw.update', { model: 'res.user', id: p.id, values });
    return env.dispatch('fw.read_one', { model: 'res.user', id: p.id });
  },
};
