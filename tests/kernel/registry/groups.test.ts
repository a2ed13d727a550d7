/**
 * Groups declared by apps (issue 25 §1): names carry the app's prefix, implication is resolved
 * once at boot (a cycle or an unknown group stops it), every name model access, field access,
 * record rules and commands use must be declared, and a principal holds its role, its role's
 * groups, its own groups and everything they imply — plus the role a held group stands for.
 */
import { describe, expect, it } from 'vitest';
import type { GroupDecl } from '../../../src/kernel/app.ts';
import { defineModel, f } from '../../../src/kernel/declare.ts';
import { FwError } from '../../../src/kernel/errors.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import { loadAllApps, projectLayout } from '../../../src/kernel/modules/loader.ts';
import { fixtureApp } from '../../helpers/kernel.ts';

const foundation = (await loadAllApps(projectLayout())).filter((a) => ['base', 'auth', 'qa'].includes(a.name));

function withGroups(groups: GroupDecl[], o: Parameters<typeof fixtureApp>[1] = {}) {
  const app = fixtureApp('helpdesk.desk', { depends: ['base'], ...o });
  return { ...app, manifest: { ...app.manifest, groups } };
}

const HELPDESK: GroupDecl[] = [
  { name: 'helpdesk.agent', label: 'Agent', implies: ['base.user'] },
  { name: 'helpdesk.manager', label: 'Manager', implies: ['helpdesk.agent'] },
];

function bootError(groups: GroupDecl[], o: Parameters<typeof fixtureApp>[1] = {}): FwError {
  try {
    createRegistry([...foundation, withGroups(groups, o)]);
  } catch (err) {
    if (err instanceof FwError) return err;
    throw err;
  }
  throw new Error('the registry was built');
}

describe('groups at boot', () => {
  it('foundation apps declare the roles as groups: base.admin (admin), base.user (user), qa.tester (qa)', () => {
    const reg = createRegistry(foundation);
    expect([...reg.groups.byName.values()].map((g) => [g.name, g.role])).toEqual([['base.admin', 'admin'], ['base.user', 'user'], ['qa.tester', 'qa']]);
  });

  it('implication is closed transitively once: a manager holds agent and user', () => {
    const reg = createRegistry([...foundation, withGroups(HELPDESK)]);
    expect([...reg.groups.byName.get('helpdesk.manager')!.closure].sort()).toEqual(['base.user', 'helpdesk.agent', 'helpdesk.manager']);
  });

  it('a cycle of implications stops the boot (GROUP_CYCLE) naming the cycle', () => {
    const err = bootError([{ name: 'helpdesk.a', label: 'A', implies: ['helpdesk.b'] }, { name: 'helpdesk.b', label: 'B', implies: ['helpdesk.a'] }]);
    expect(err.code).toBe('GROUP_CYCLE');
    expect(err.message).toMatch(/helpdesk\.a → helpdesk\.b → helpdesk\.a/);
  });

  it('an unknown implied group, a name without the app prefix, a second declaration or an unknown role stop the boot', () => {
    expect(bootError([{ name: 'helpdesk.agent', label: 'Agent', implies: ['helpdesk.agnt'] }]).code).toBe('UNKNOWN_GROUP');
    expect(bootError([{ name: 'sales.agent', label: 'Agent' }]).code).toBe('GROUP_INVALID');
    expect(bootError([{ name: 'helpdesk.agent', label: 'A' }, { name: 'helpdesk.agent', label: 'B' }]).message).toMatch(/declared by both/);
    expect(bootError([{ name: 'helpdesk.boss', label: 'Boss', role: 'owner' }]).message).toMatch(/res\.user\.role does not have/);
    expect(bootError([{ name: 'helpdesk.x', label: '' }]).code).toBe('GROUP_INVALID');
  });

  it('a group name access uses must be declared: model access, field access and command roles name the place (UNKNOWN_GROUP)', () => {
    const ticket = defineModel({ key: 'helpdesk.ticket', description: 'Ticket', fields: { name: f.char(100) }, access: { roles: { 'helpdesk.agnet': 'crud' } } });
    const err = bootError(HELPDESK, { models: [ticket] });
    expect(err.code).toBe('UNKNOWN_GROUP');
    expect(err.message).toMatch(/model helpdesk\.ticket .*access names unknown group or role "helpdesk\.agnet".*helpdesk\.agent/);
    const cmdErr = bootError(HELPDESK, { commands: [{ name: 'helpdesk.escalate', roles: ['helpdesk.boss'], returns: 'void', handler: async () => undefined }] });
    expect(cmdErr.message).toMatch(/command helpdesk\.escalate .*"helpdesk\.boss"/);
  });
});

describe('what a principal holds', () => {
  const reg = createRegistry([...foundation, withGroups(HELPDESK)]);

  it("a plain user holds the role and its group; a manager's implied groups come with it", () => {
    expect(reg.groups.namesOf('user')).toEqual(['base.user', 'user']);
    expect(reg.groups.namesOf('user', ['helpdesk.manager'])).toEqual(['base.user', 'helpdesk.agent', 'helpdesk.manager', 'user']);
  });

  it('a group that stands for a role brings the role: a user given base.admin counts as admin, an admin given qa.tester as qa', () => {
    expect(reg.groups.namesOf('user', ['base.admin'])).toContain('admin');
    expect(reg.groups.namesOf('admin', ['qa.tester'])).toEqual(['admin', 'base.admin', 'qa', 'qa.tester']);
  });
});
