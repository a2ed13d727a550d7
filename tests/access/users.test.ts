/**
 * Users: creation always goes through res.user.register (password hashed with bcrypt, never
 * stored in plain or returned), new users get the role `user`, only an admin hands out other
 * roles, and `role` / `is_active` are writable by admins only (field-level write access).
 */
import bcrypt from 'bcrypt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { expectError, rand, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
beforeAll(async () => {
  t = await startTestServer();
  admin = (await t.loginAdmin()).access_token;
});
afterAll(async () => {
  await t?.close();
});

const email = () => `user-${rand()}@example.com`;
const storedUser = async (id: string) => {
  const db = await t.kernel.tenants.get('default');
  return delegateOf(db, t.kernel.registry.model('res.user')).findUnique({ where: { record_uuid: id } });
};

/**
 * The shipped declarations give the `user` role no create/update on res.user, so the field-level
 * and register-level checks behind RBAC are unreachable for it. These tests grant extra letters
 * to `user` on res.user in this process only, to reach the next check in line.
 */
async function withUserLetters<T>(letters: string, fn: () => Promise<T>): Promise<T> {
  const access = t.kernel.registry.model('res.user').access as { roles: Record<string, string> };
  const saved = access.roles;
  access.roles = { ...saved, user: letters };
  try {
    return await fn();
  } finally {
    access.roles = saved;
  }
}

describe('registration', () => {
  for (const path of ['/api/res/user', '/api/data/res.user']) {
    it(`POST ${path} registers through res.user.register: password hashed with bcrypt, not returned, login works`, async () => {
      const e = email();
      const res = await t.request('POST', path, { token: admin, body: { email: e, name: 'Reg', password: 'secret-pass-1' } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ email: e, name: 'Reg', role: 'user', is_active: true });
      expect(res.body).not.toHaveProperty('password');
      expect(res.body).not.toHaveProperty('password_hash');
      expect(JSON.stringify(res.body)).not.toContain('secret-pass-1');

      const row = await storedUser(res.body.id);
      expect(row!.password_hash).toMatch(/^\$2[aby]\$04\$/);
      expect(await bcrypt.compare('secret-pass-1', row!.password_hash as string)).toBe(true);
      expect(Object.values(row!)).not.toContain('secret-pass-1');

      expect((await t.login(e, 'secret-pass-1')).access_token).toBeTruthy();
    });
  }

  it('password_hash is not readable through GET /api/data/res.user/<id>, not even by an admin', async () => {
    const u = await t.createUser(admin, { email: email(), password: 'secret-pass-1' });
    const one = await t.request('GET', `/api/data/res.user/${u.id}`, { token: admin });
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty('password_hash');
    const list = await t.request('GET', '/api/data/res.user', { token: admin });
    for (const item of list.body.items) expect(item).not.toHaveProperty('password_hash');
    expectError(await t.request('GET', `/api/data/res.user/${u.id}?fields=password_hash`, { token: admin }), 400, 'INVALID_FIELDS');
  });

  it('password_hash cannot be filtered or ordered on (no hash oracle)', async () => {
    const filter = encodeURIComponent(JSON.stringify([['password_hash', 'like', '$2b$%']]));
    expectError(await t.request('GET', `/api/data/res.user?filter=${filter}`, { token: admin }), 400, 'INVALID_DOMAIN');
    expectError(await t.request('GET', '/api/data/res.user?order=password_hash%20asc', { token: admin }), 400, 'INVALID_ORDER');
  });

  it('password_hash cannot be written through the generic API, not even by an admin', async () => {
    const u = await t.createUser(admin, { email: email(), password: 'secret-pass-1' });
    const res = await t.request('PATCH', `/api/data/res.user/${u.id}`, { token: admin, body: { password_hash: 'x' } });
    expectError(res, 422, 'VALIDATION_FAILED');
    expect(res.body.error.details.errors[0]).toMatchObject({ field: 'password_hash', code: 'UNKNOWN_FIELD' });
  });

  it('a weak password is refused with 422 WEAK_PASSWORD', async () => {
    expectError(await t.request('POST', '/api/data/res.user', { token: admin, body: { email: email(), name: 'W', password: 'short' } }), 422, 'WEAK_PASSWORD');
  });

  it('new users get the role "user" when none is given; an admin may give another role', async () => {
    const plain = await t.createUser(admin, { email: email(), password: 'secret-pass-1' });
    expect(plain.role).toBe('user');
    const qa = await t.createUser(admin, { email: email(), password: 'secret-pass-1', role: 'qa' });
    expect(qa.role).toBe('qa');
    const boss = await t.createUser(admin, { email: email(), password: 'secret-pass-1', role: 'admin' });
    expect(boss.role).toBe('admin');
  });

  it('a non-admin cannot create users at all (403 ACCESS_DENIED), with or without a role', async () => {
    const e = email();
    await t.createUser(admin, { email: e, password: 'secret-pass-1' });
    const user = (await t.login(e, 'secret-pass-1')).access_token;
    for (const path of ['/api/res/user', '/api/data/res.user']) {
      expectError(await t.request('POST', path, { token: user, body: { email: email(), name: 'X', password: 'secret-pass-1' } }), 403, 'ACCESS_DENIED');
      expectError(await t.request('POST', path, { token: user, body: { email: email(), name: 'X', password: 'secret-pass-1', role: 'admin' } }), 403, 'ACCESS_DENIED');
    }
  });

  it('even with create access, a non-admin giving a role other than "user" is refused 403 ACCESS_DENIED', async () => {
    const e = email();
    await t.createUser(admin, { email: e, password: 'secret-pass-1' });
    const user = (await t.login(e, 'secret-pass-1')).access_token;
    await withUserLetters('cr', async () => {
      const res = await t.request('POST', '/api/data/res.user', { token: user, body: { email: email(), name: 'X', password: 'secret-pass-1', role: 'admin' } });
      expectError(res, 403, 'ACCESS_DENIED');
      expect(res.body.error.details).toEqual({ field: 'role' });
      const ok = await t.request('POST', '/api/data/res.user', { token: user, body: { email: email(), name: 'X', password: 'secret-pass-1' } });
      expect(ok.status).toBe(201);
      expect(ok.body.role).toBe('user');
    });
  });
});

describe('field-level write access: role and is_active are admin-only', () => {
  it('a user PATCHing their own role is refused with 403 ACCESS_DENIED (the role has no update on res.user) and the role is unchanged', async () => {
    const e = email();
    const u = await t.createUser(admin, { email: e, password: 'secret-pass-1' });
    const token = (await t.login(e, 'secret-pass-1')).access_token;
    expectError(await t.request('PATCH', `/api/data/res.user/${u.id}`, { token, body: { role: 'admin' } }), 403, 'ACCESS_DENIED');
    expectError(await t.request('PUT', `/api/data/res.user/${u.id}`, { token, body: { email: e, name: 'x', role: 'admin' } }), 403, 'ACCESS_DENIED');
    expect((await storedUser(u.id))!.role).toBe('user');
  });

  it('with update access on the model, writing role or is_active is still refused: 422 FIELD_ACCESS_DENIED per field', async () => {
    const e = email();
    const u = await t.createUser(admin, { email: e, password: 'secret-pass-1' });
    const token = (await t.login(e, 'secret-pass-1')).access_token;
    await withUserLetters('ru', async () => {
      const role = await t.request('PATCH', `/api/data/res.user/${u.id}`, { token, body: { role: 'admin' } });
      expectError(role, 422, 'VALIDATION_FAILED');
      expect(role.body.error.details.errors).toEqual([expect.objectContaining({ field: 'role', code: 'FIELD_ACCESS_DENIED' })]);
      const active = await t.request('PATCH', `/api/data/res.user/${u.id}`, { token, body: { is_active: false } });
      expectError(active, 422, 'VALIDATION_FAILED');
      expect(active.body.error.details.errors).toEqual([expect.objectContaining({ field: 'is_active', code: 'FIELD_ACCESS_DENIED' })]);
      // an unrestricted field goes through
      const name = await t.request('PATCH', `/api/data/res.user/${u.id}`, { token, body: { name: 'Renamed' } });
      expect(name.status).toBe(200);
      // PUT leaves fields the caller may not write alone instead of resetting them
      const put = await t.request('PUT', `/api/data/res.user/${u.id}`, { token, body: { email: e, name: 'Put' } });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      // the record read and sent back: role and is_active unchanged are no change, changed they are refused
      const mine = (await t.request('GET', `/api/data/res.user/${u.id}`, { token })).body;
      const back = await t.request('PUT', `/api/data/res.user/${u.id}`, { token, body: { ...mine, name: 'Put Back' } });
      expect(back.status, JSON.stringify(back.body)).toBe(200);
      const climb = await t.request('PUT', `/api/data/res.user/${u.id}`, { token, body: { ...back.body, role: 'admin', name: 'Put' } });
      expectError(climb, 422, 'VALIDATION_FAILED');
      expect(climb.body.error.details.errors).toEqual([expect.objectContaining({ field: 'role', code: 'FIELD_ACCESS_DENIED' })]);
    });
    const row = await storedUser(u.id);
    expect(row).toMatchObject({ role: 'user', is_active: true, name: 'Put Back' });
  });

  it('an admin may change role and is_active; the new role applies to the user\'s next request', async () => {
    const e = email();
    const u = await t.createUser(admin, { email: e, password: 'secret-pass-1' });
    const token = (await t.login(e, 'secret-pass-1')).access_token;
    expectError(await t.request('POST', '/api/data/res.country', { token, body: { name: `Atlantis ${rand()}`, code: 'QZ' } }), 403, 'ACCESS_DENIED');
    const res = await t.request('PATCH', `/api/data/res.user/${u.id}`, { token: admin, body: { role: 'admin' } });
    expect(res.status).toBe(200);
    expect(res.body.role).toBe('admin');
    const me = await t.request('GET', '/api/auth/me', { token });
    expect(me.body.role).toBe('admin');
    const c = await t.request('POST', '/api/data/res.country', { token, body: { name: `Atlantis ${rand()}`, code: 'QZ' } });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
  });
});
