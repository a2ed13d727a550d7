import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import countries from 'i18n-iso-countries';
import { delegateOf } from '../../kernel/data/delegate.js';
import type { Env } from '../../kernel/env.js';
import { hashPassword } from './services/passwords.js';

const require = createRequire(import.meta.url);
countries.registerLocale(require('i18n-iso-countries/langs/en.json'));

/** ISO 3166-1 from i18n-iso-countries (maintained upstream), never typed by hand. */
export function isoCountries(): Array<{ name: string; code: string; code3: string; numeric: string }> {
  return Object.entries(countries.getNames('en', { select: 'official' })).map(([code, name]) => ({
    name, code, code3: countries.alpha2ToAlpha3(code)!, numeric: countries.alpha2ToNumeric(code)!,
  }));
}

export const DEFAULT_ORG_CODE = 'default';

/**
 * Countries (missing ones only, so a version bump re-run adds new codes and keeps edits), the
 * default organization and the admin user (only when the tenant has no user yet).
 */
export async function seedBase(env: Env): Promise<void> {
  const countryModel = env.registry.model('res.country');
  const c = delegateOf(env.db, countryModel);
  const have = new Set((await c.findMany({ select: { code: true } })).map((r) => r.code as string));
  const missing = isoCountries().filter((x) => !have.has(x.code)).map((x) => ({ ...x, record_uuid: crypto.randomUUID() }));
  if (missing.length) await (c as unknown as { createMany(a: object): Promise<unknown> }).createMany({ data: missing });

  let org = await env.dispatch<{ items: Array<{ id: string }> }>('fw.search', {
    model: 'res.organization', domain: [['code', '=', DEFAULT_ORG_CODE]], limit: 1,
  }).then((r) => r.items[0]);
  if (!org) {
    org = await env.dispatch('fw.create', { model: 'res.organization', values: { name: 'Default Organization', code: DEFAULT_ORG_CODE } });
  }

  const users = await env.dispatch<{ count: number }>('fw.count', { model: 'res.user' });
  if (users.count === 0) {
    const { ADMIN_EMAIL: email, ADMIN_PASSWORD: configured, BCRYPT_COST: cost } = env.settings;
    const password = configured || crypto.randomBytes(18).toString('base64url');
    await env.dispatch('fw.create', {
      model: 'res.user',
      values: { email, name: 'Administrator', role: 'admin', organization: org.id, password_hash: await hashPassword(password, cost) },
    });
    if (!configured) {
      // printed once: the hash is all that is stored
      console.log(`[fw] tenant ${env.tenant}: admin ${email} created with generated password: ${password}`);
    }
  }
}
