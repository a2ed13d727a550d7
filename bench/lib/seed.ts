/** Data through the API only: log in as the seeded admin, then POST organizations with countries. */
import { ok } from './http.ts';
import type { RunContext } from './server.ts';

export async function login(base: string, ctx: RunContext, tenant?: string): Promise<string> {
  const r = await ok<{ access_token: string }>(base, 'POST', '/api/auth/login', {
    body: { email: ctx.adminEmail, password: ctx.adminPassword },
    headers: tenant ? { 'x-tenant': tenant } : {},
    timeoutMs: 60_000,
  });
  return r.access_token;
}

/** `count` organizations, each in another country (cycling through the 250 seeded ones); their ids. */
export async function seedOrganizations(base: string, token: string, count: number, prefix = 'Bench Org'): Promise<string[]> {
  const countries = await ok<{ items: Array<{ id: string }> }>(base, 'GET', '/api/data/res.country?limit=250&fields=code', { token });
  if (!countries.items.length) throw new Error('no countries seeded');
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const org = await ok<{ id: string }>(base, 'POST', '/api/data/res.organization', {
      token,
      body: { name: `${prefix} ${String(i).padStart(4, '0')}`, country: countries.items[i % countries.items.length]!.id },
    });
    ids.push(org.id);
  }
  return ids;
}
