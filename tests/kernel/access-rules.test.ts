/**
 * The decisions of src/kernel/access.ts one by one, on models resolved by the real registry
 * (createRegistry over declarations, no database): role letters and the `*` entry, field read and
 * write lists, private fields, which record rules bind which principal and operation, and the
 * `$principal.<name>` placeholders. tests/kernel/access.test.ts and tests/access/ check the same
 * rules through the command pipeline.
 */
import { describe, expect, it } from 'vitest';
import { canAccess, canReadField, canWriteField, checkAccess, principalPlaceholder, rulesFor } from '../../src/kernel/access.ts';
import type { AccessOp } from '../../src/kernel/declare.ts';
import { defineModel, f } from '../../src/kernel/declare.ts';
import { anonymousPrincipal, systemPrincipal, type Principal } from '../../src/kernel/env.ts';
import { AccessDenied } from '../../src/kernel/errors.ts';
import { createRegistry } from '../../src/kernel/kernel.ts';
import { fixtureApp, userPrincipal } from '../helpers/kernel.ts';

const T = 'acl';
const OPS: AccessOp[] = ['create', 'read', 'update', 'delete'];

const registry = createRegistry([fixtureApp('fixture_acl', {
  models: [
    defineModel({
      key: 'acl.note',
      description: 'Note',
      fields: {
        name: f.char(50),
        body: f.text(),
        owner: f.uuid(),
        secret: f.char(50, { private: true }),
        grade: f.integer(),
        org: f.uuid(),
      },
      access: {
        roles: { admin: 'crud', user: 'ru', auditor: 'r', '*': 'c', nobody: '' },
        fields: {
          body: { read: ['admin', 'auditor'] },
          grade: { write: ['admin'] },
          secret: { read: ['admin', 'user'], write: ['admin', 'user'] },
        },
        rules: [
          // no roles: binds every role but admin, every operation
          { domain: [['org', '=', '$principal.organization_id']] },
          // named roles, some operations: binds admins too when it names them
          { roles: ['user', 'admin'], ops: ['update', 'delete'], domain: [['owner', '=', '$principal.user_id']] },
          { roles: ['auditor'], ops: ['read'], domain: [['grade', '>', 0]] },
        ],
      },
    }),
    defineModel({ key: 'acl.plain', description: 'Plain', fields: { name: f.char(50) } }),
  ],
})]);
const note = registry.model('acl.note');
const plain = registry.model('acl.plain');
const field = (name: string) => note.fields.get(name)!;

const as = (role: string, o: Partial<Principal> = {}): Principal => ({ ...userPrincipal(T, { role }), ...o });
const system = systemPrincipal(T);
const allowed = (p: Principal) => OPS.filter((op) => canAccess(note, p, op));

describe('role permissions (canAccess, checkAccess)', () => {
  it('a role listed on the model gets exactly its letters', () => {
    expect(allowed(as('admin'))).toEqual(OPS);
    expect(allowed(as('user'))).toEqual(['read', 'update']);
    expect(allowed(as('auditor'))).toEqual(['read']);
  });

  it('a role not listed gets the "*" entry and nothing more', () => {
    expect(allowed(as('guest'))).toEqual(['create']);
  });

  it('a role listed with no letters gets nothing, not the "*" entry', () => {
    expect(allowed(as('nobody'))).toEqual([]);
  });

  it('a model without access lets admins do everything and every other role nothing', () => {
    expect(OPS.filter((op) => canAccess(plain, as('admin'), op))).toEqual(OPS);
    for (const role of ['user', 'guest', 'qa']) expect(OPS.filter((op) => canAccess(plain, as(role), op))).toEqual([]);
  });

  it('without a "*" entry an unlisted role gets nothing (no letters from elsewhere)', () => {
    const reg = createRegistry([fixtureApp('fixture_acl2', {
      models: [defineModel({ key: 'acl.other', description: 'Other', fields: { name: f.char(5) }, access: { roles: { user: 'r' } } })],
    })]);
    expect(OPS.filter((op) => canAccess(reg.model('acl.other'), as('auditor'), op))).toEqual([]);
    expect(OPS.filter((op) => canAccess(reg.model('acl.other'), as('user'), op))).toEqual(['read']);
  });

  it('the system principal may do everything on every model; the role name "system" alone gives nothing', () => {
    for (const m of [note, plain]) expect(OPS.filter((op) => canAccess(m, system, op))).toEqual(OPS);
    expect(allowed({ ...as('system'), kind: 'user' })).toEqual(['create']);
    expect(OPS.filter((op) => canAccess(plain, anonymousPrincipal(T), op))).toEqual([]);
  });

  it('checkAccess throws 403 ACCESS_DENIED naming role, operation and model, and passes when allowed', () => {
    expect(() => checkAccess(note, as('user'), 'read')).not.toThrow();
    expect(() => checkAccess(note, system, 'delete')).not.toThrow();
    let err: unknown;
    try {
      checkAccess(note, as('auditor'), 'delete');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AccessDenied);
    expect(err).toMatchObject({
      status: 403, code: 'ACCESS_DENIED', message: 'role "auditor" may not delete acl.note',
      details: { model: 'acl.note', op: 'delete', role: 'auditor' },
    });
    // groups given to the user are checked too, and the refusal names them
    expect(() => checkAccess(note, { ...as('auditor'), groups: ['acl.helper', 'acl.viewer'] }, 'delete')).toThrow(expect.objectContaining({
      message: 'role "auditor" with groups "acl.helper", "acl.viewer" may not delete acl.note',
      details: { model: 'acl.note', op: 'delete', role: 'auditor', groups: ['acl.helper', 'acl.viewer'] },
    }));
  });
});

describe('field access (canReadField, canWriteField)', () => {
  it('a field without a read list is readable by every role', () => {
    for (const role of ['admin', 'user', 'guest']) expect(canReadField(note, field('name'), as(role))).toBe(true);
  });

  it('a field with a read list is readable only by the roles it names', () => {
    expect(canReadField(note, field('body'), as('admin'))).toBe(true);
    expect(canReadField(note, field('body'), as('auditor'))).toBe(true);
    expect(canReadField(note, field('body'), as('user'))).toBe(false);
  });

  it('a private field is readable by the system only, whatever its read list says', () => {
    expect(canReadField(note, field('secret'), as('admin'))).toBe(false);
    expect(canReadField(note, field('secret'), as('user'))).toBe(false);
    expect(canReadField(note, field('secret'), system)).toBe(true);
  });

  it('the system reads every field, also read-restricted ones', () => {
    expect(canReadField(note, field('body'), system)).toBe(true);
  });

  it('a field with a write list is writable only by the roles it names; others follow the model', () => {
    expect(canWriteField(note, field('grade'), as('admin'))).toBe(true);
    expect(canWriteField(note, field('grade'), as('user'))).toBe(false);
    expect(canWriteField(note, field('name'), as('user'))).toBe(true);
    // a read list does not restrict writing
    expect(canWriteField(note, field('body'), as('user'))).toBe(true);
  });

  it('the system writes every field', () => {
    expect(canWriteField(note, field('grade'), system)).toBe(true);
    expect(canWriteField(note, field('secret'), system)).toBe(true);
  });
});

/** The domains of the rules that apply, side by side (null when none applies). */
const ruleDomain = (model: Parameters<typeof rulesFor>[0], p: Principal, op: AccessOp) => {
  const rules = rulesFor(model, p, op);
  return rules.length ? rules.flatMap((r) => r.domain ?? []) : null;
};

describe('record rules (rulesFor)', () => {
  const orgRule = [['org', '=', '$principal.organization_id']];
  const ownerRule = [['owner', '=', '$principal.user_id']];

  it('a rule without roles binds a user on every operation', () => {
    expect(ruleDomain(note, as('guest'), 'create')).toEqual(orgRule);
    expect(ruleDomain(note, as('guest'), 'read')).toEqual(orgRule);
  });

  it('a rule without roles does not bind admins; a rule naming admin does, for its operations only', () => {
    expect(ruleDomain(note, as('admin'), 'read')).toBeNull();
    expect(ruleDomain(note, as('admin'), 'create')).toBeNull();
    expect(ruleDomain(note, as('admin'), 'update')).toEqual(ownerRule);
    expect(ruleDomain(note, as('admin'), 'delete')).toEqual(ownerRule);
  });

  it('the rules that apply are ANDed: their terms side by side, in declaration order', () => {
    expect(ruleDomain(note, as('user'), 'update')).toEqual([...orgRule, ...ownerRule]);
    expect(ruleDomain(note, as('user'), 'read')).toEqual(orgRule);
    expect(ruleDomain(note, as('auditor'), 'read')).toEqual([...orgRule, ['grade', '>', 0]]);
    expect(ruleDomain(note, as('auditor'), 'update')).toEqual(orgRule);
  });

  it('the system principal is never restricted', () => {
    for (const op of OPS) expect(ruleDomain(note, system, op)).toBeNull();
  });

  it('a model without rules restricts nobody', () => {
    expect(ruleDomain(plain, as('user'), 'read')).toBeNull();
  });
});

describe('$principal placeholders (principalPlaceholder)', () => {
  const p: Principal = { kind: 'user', user_id: 'u-1', tenant_id: T, role: 'user', organization_id: null, sid: 's-1' };
  const value = principalPlaceholder(p);

  it('principal.<name> is the principal\'s value', () => {
    expect(value('principal.user_id')).toBe('u-1');
    expect(value('principal.role')).toBe('user');
    expect(value('principal.tenant_id')).toBe(T);
    expect(value('principal.sid')).toBe('s-1');
  });

  it('a known name whose value is null or missing is null (compared as IS NULL)', () => {
    expect(value('principal.organization_id')).toBeNull();
    const noOrg = principalPlaceholder({ kind: 'user', user_id: 'u-2', tenant_id: T, role: 'user', organization_id: undefined });
    expect(noOrg('principal.organization_id')).toBeNull();
  });

  it('an unknown name, or a placeholder outside principal., is unknown (undefined)', () => {
    expect(value('principal.password')).toBeUndefined();
    expect(value('principal.')).toBeUndefined();
    expect(value('user_id')).toBeUndefined();
    expect(value('tenant.user_id')).toBeUndefined();
    expect(value('xprincipal.user_id')).toBeUndefined();
    // the prefix is checked, not only cut off: a same-length misspelling names nothing
    expect(value('principal_role')).toBeUndefined();
    expect(value('principalsuser_id')).toBeUndefined();
  });
});
