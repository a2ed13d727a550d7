/**
 * What still points at a record (src/kernel/data/references.ts): every stored Reference to a
 * model with its on_delete, the counts of those that refer to one record (as the system, whatever
 * the caller may see), and the 409 RECORD_REFERENCED message naming them. A real kernel (SQLite
 * file) with the base app and crm.sales; the deletes that use it are in tests/kernel/commands.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countReferences, inboundReferences, referencedError } from '../../../src/kernel/data/references.ts';
import { defineModel, f, type OnDelete } from '../../../src/kernel/declare.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import { adminPrincipal, bootTestKernel, fixtureApp, userPrincipal, type TestKernel } from '../../helpers/kernel.ts';

const T = 'refs';

const app = fixtureApp('refs_fixture', {
  commands: [
    {
      name: 'refs_fixture.inbound',
      mutates: false,
      async handler(env, p) {
        return inboundReferences(env, p.model as string).map((r) => `${r.model.key}.${r.field}:${r.onDelete}`);
      },
    },
    {
      name: 'refs_fixture.count',
      mutates: false,
      async handler(env, p) {
        return countReferences(env, env.registry.model(p.model as string), p.id as string, p.kinds as OnDelete[]);
      },
    },
  ],
});

describe('references to a record', () => {
  let tk: TestKernel;
  const admin = adminPrincipal(T);
  const run = <R>(command: string, payload: Record<string, unknown>, p = admin) => tk.kernel.dispatch<R>(command, payload, p);
  let org: string;
  let other: string;

  beforeAll(async () => {
    tk = await bootTestKernel({ apps: [app] });
    org = (await run<{ id: string }>('fw.create', { model: 'res.organization', values: { name: 'Referred' } })).id;
    other = (await run<{ id: string }>('fw.create', { model: 'res.organization', values: { name: 'Other' } })).id;
    for (const name of ['L1', 'L2', 'L3']) await run('fw.create', { model: 'crm.lead', values: { name, organization: org } });
    await run('fw.create', { model: 'crm.lead', values: { name: 'L4', organization: other } });
    await run('res.user.register', { email: 'ref-user@example.com', name: 'Ref', password: 'password-1', organization: org });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('every stored Reference to the model is listed with its on_delete (restrict when undeclared and required, as resolved)', async () => {
    const inbound = await run<string[]>('refs_fixture.inbound', { model: 'res.organization' });
    expect(inbound).toContain('res.user.organization:set null');
    expect(inbound).toContain('crm.lead.organization:cascade');
    // a One2Many is not a stored reference
    expect(inbound.some((r) => r.startsWith('res.organization.users'))).toBe(false);
    expect(await run<string[]>('refs_fixture.inbound', { model: 'crm.lead' })).toEqual([]);
  });

  it('a One2Many whose target is the model is not a reference to it (only Reference fields are listed)', async () => {
    const users = tk.kernel.registry.model('res.organization').fields.get('users')!;
    expect([users.type, users.target]).toEqual(['one2many', 'res.user']);
    const inbound = await run<string[]>('refs_fixture.inbound', { model: 'res.user' });
    expect(inbound.some((r) => r.startsWith('res.organization.users'))).toBe(false);
    for (const r of inbound) {
      const [field] = r.split(':');
      const key = field.slice(0, field.lastIndexOf('.'));
      expect(tk.kernel.registry.model(key).fields.get(field.slice(key.length + 1))!.type, r).toBe('reference');
    }
  });

  it('only the references with one of the asked on_delete kinds and at least one record are counted', async () => {
    expect(await run('refs_fixture.count', { model: 'res.organization', id: org, kinds: ['cascade', 'set null'] })).toEqual(expect.arrayContaining([
      { model: 'crm.lead', field: 'organization', on_delete: 'cascade', count: 3 },
      { model: 'res.user', field: 'organization', on_delete: 'set null', count: 1 },
    ]));
    expect(await run('refs_fixture.count', { model: 'res.organization', id: org, kinds: ['cascade'] })).toEqual([
      { model: 'crm.lead', field: 'organization', on_delete: 'cascade', count: 3 },
    ]);
    expect(await run('refs_fixture.count', { model: 'res.organization', id: other, kinds: ['set null'] })).toEqual([]);
    expect(await run('refs_fixture.count', { model: 'res.organization', id: org, kinds: ['restrict'] })).toEqual([]);
  });

  it('counts are made as the system: a caller who sees none of the records gets the same counts', async () => {
    const outsider = userPrincipal(T, { organization_id: other });
    expect(await run('refs_fixture.count', { model: 'res.organization', id: org, kinds: ['cascade'] }, outsider)).toEqual([
      { model: 'crm.lead', field: 'organization', on_delete: 'cascade', count: 3 },
    ]);
  });

  it('the 409 RECORD_REFERENCED names the record and what refers to it, joined as a sentence', () => {
    const model = tk.kernel.registry.model('res.organization');
    const one = referencedError(model, { id: 'o-1', name: 'Acme' }, [{ model: 'crm.lead', field: 'organization', on_delete: 'restrict', count: 3 }]);
    expect(one).toMatchObject({ status: 409, code: 'RECORD_REFERENCED' });
    expect(one.message).toBe(`${model.description} "Acme" is still referred to by 3 crm.lead (organization); delete them or point them elsewhere first`);
    expect(one.details).toEqual({ model: 'res.organization', id: 'o-1', references: [{ model: 'crm.lead', field: 'organization', on_delete: 'restrict', count: 3 }] });
    const refs = [
      { model: 'a.x', field: 'f', on_delete: 'restrict' as const, count: 1 },
      { model: 'b.y', field: 'g', on_delete: 'restrict' as const, count: 2 },
      { model: 'c.z', field: 'h', on_delete: 'restrict' as const, count: 3 },
    ];
    expect(referencedError(model, { id: 'o-2', name: '' }, refs.slice(0, 2), 'move them').message)
      .toBe(`${model.description} o-2 is still referred to by 1 a.x (f) and 2 b.y (g); move them`);
    expect(referencedError(model, { id: 'o-3' }, refs).message)
      .toBe(`${model.description} o-3 is still referred to by 1 a.x (f), 2 b.y (g) and 3 c.z (h); delete them or point them elsewhere first`);
  });

  it('a record name that is not text (an Integer record_name) is not quoted: the record is named by its id', () => {
    const numbered = createRegistry([fixtureApp('refs_numbered', {
      models: [defineModel({ key: 'refsn.ticket', description: 'Ticket', record_name: 'number', fields: { number: f.integer({ required: true }) } })],
    })]).model('refsn.ticket');
    const refs = [{ model: 'a.x', field: 'f', on_delete: 'restrict' as const, count: 2 }];
    const err = referencedError(numbered, { id: 't-1', number: 42 }, refs);
    expect({ status: err.status, code: err.code, message: err.message, details: err.details }).toEqual({
      status: 409, code: 'RECORD_REFERENCED',
      message: 'Ticket t-1 is still referred to by 2 a.x (f); delete them or point them elsewhere first',
      details: { model: 'refsn.ticket', id: 't-1', references: refs },
    });
  });
});
