/**
 * fw.copy: a duplicate through fw.create with the copyable fields of the source (not unique, not
 * One2Many, not read-only, not declared `copy: false`), the record name marked as a copy, and
 * the create permission, read scope and validation of any new record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/kernel/env.ts';
import { f } from '../../../src/kernel/declare.ts';
import type { Kernel } from '../../../src/kernel/kernel.ts';
import { resolveField } from '../../../src/kernel/registry/model.ts';
import { adminPrincipal, bootTestKernel, expectFwError, userPrincipal, type TestKernel } from '../../helpers/kernel.ts';

type Rec = Record<string, unknown> & { id: string };

describe('field declarations: which fields a duplicate copies', () => {
  it('plain stored fields are copied by default', () => {
    expect(resolveField('x.y', 'name', f.char(20)).copy).toBe(true);
    expect(resolveField('x.y', 'partner', f.reference('res.country')).copy).toBe(true);
  });
  it('`copy: false`, unique, read-only, private fields and One2Many lines are not', () => {
    expect(resolveField('x.y', 'ref', f.char(20, { copy: false })).copy).toBe(false);
    expect(resolveField('x.y', 'code', f.char(20, { unique: true })).copy).toBe(false);
    expect(resolveField('x.y', 'stamp', f.char(20, { readonly: true })).copy).toBe(false);
    expect(resolveField('x.y', 'secret', f.char(20, { private: true })).copy).toBe(false);
    expect(resolveField('x.y', 'lines', f.one2many('x.z', 'parent')).copy).toBe(false);
  });
});

describe('fw.copy', () => {
  let tk: TestKernel;
  let kernel: Kernel;
  const T = 'copies';
  let admin: Principal;
  let source: Rec;
  const run = <R = Rec>(payload: Record<string, unknown>, p: Principal = admin) => kernel.dispatch<R>('fw.copy', { model: 'res.organization', ...payload }, p);

  beforeAll(async () => {
    tk = await bootTestKernel({ provider: 'postgresql' });
    kernel = tk.kernel;
    admin = adminPrincipal(T);
    const country = (await kernel.dispatch<{ items: Rec[] }>('fw.search', { model: 'res.country', domain: [['code', '=', 'FR']] }, admin)).items[0].id;
    source = await kernel.dispatch<Rec>('fw.create', { model: 'res.organization', values: { name: 'Acme', code: 'acme', country, is_active: false } }, admin);
  });
  afterAll(async () => { await tk?.cleanup(); });

  it('creates a new record with the copyable values, the name marked "(copy)", the unique code left out', async () => {
    const copy = await run({ id: source.id });
    expect(copy.id).not.toBe(source.id);
    expect(copy).toMatchObject({ name: 'Acme (copy)', country: source.country, is_active: false });
    // the unique code is not copied: the organization's own hook derives a new one from the name
    expect(copy.code).not.toBe('acme');
    expect(copy.revision).toBe(1);
  });

  it('values in the payload override the copied ones', async () => {
    expect(await run({ id: source.id, values: { name: 'Other', code: 'other' } })).toMatchObject({ name: 'Other', code: 'other' });
  });

  it('a name at its Char size is shortened so the suffix fits', async () => {
    const long = await kernel.dispatch<Rec>('fw.create', { model: 'res.organization', values: { name: 'x'.repeat(200) } }, admin);
    const name = (await run({ id: long.id })).name as string;
    expect(name).toHaveLength(200);
    expect(name.endsWith(' (copy)')).toBe(true);
  });

  it('a caller without create permission is refused with 403 ACCESS_DENIED', async () => {
    await expectFwError(run({ id: source.id }, userPrincipal(T, { organization_id: source.id })), 403, 'ACCESS_DENIED');
  });

  it('record rules bind the source and the copy: another organization\'s lead is 404, a copy pointed at an organization I cannot read is 422', async () => {
    const other = await kernel.dispatch<Rec>('fw.create', { model: 'res.organization', values: { name: 'Other org', code: 'other-org' } }, admin);
    const mineLead = await kernel.dispatch<Rec>('fw.create', { model: 'crm.lead', values: { name: 'Mine', organization: source.id } }, admin);
    const theirs = await kernel.dispatch<Rec>('fw.create', { model: 'crm.lead', values: { name: 'Theirs', organization: other.id } }, admin);
    const user = userPrincipal(T, { organization_id: source.id });
    const copyLead = (payload: Record<string, unknown>) => kernel.dispatch<Rec>('fw.copy', { model: 'crm.lead', ...payload }, user);
    expect(await copyLead({ id: mineLead.id })).toMatchObject({ name: 'Mine (copy)', organization: source.id });
    await expectFwError(copyLead({ id: theirs.id }), 404, 'RECORD_NOT_FOUND');
    await expectFwError(copyLead({ id: mineLead.id, values: { organization: other.id } }), 422, 'INVALID_REFERENCE');
  });

  it('a missing record is 404 RECORD_NOT_FOUND', async () => {
    await expectFwError(run({ id: '00000000-0000-4000-8000-000000000000' }), 404, 'RECORD_NOT_FOUND');
  });

  it('a model with its own create command is copied through it: a user without the password it needs is refused (422) and nothing is stored', async () => {
    const user = await kernel.dispatch<Rec>('res.user.register', { email: 'copied@example.com', name: 'Copied', password: 'copied-pass-1' }, admin);
    const before = (await kernel.dispatch<{ total: number }>('fw.search', { model: 'res.user', count: true, limit: 1 }, admin)).total;
    await expectFwError(run({ id: user.id, model: 'res.user', values: { email: 'copy-of@example.com' } }), 422, 'VALIDATION_FAILED');
    expect((await kernel.dispatch<{ total: number }>('fw.search', { model: 'res.user', count: true, limit: 1 }, admin)).total).toBe(before);
    const copy = await run({ id: user.id, model: 'res.user', values: { email: 'copy-ok@example.com', password: 'copy-ok-pass-1' } });
    expect(copy).toMatchObject({ name: 'Copied (copy)', email: 'copy-ok@example.com' });
  });

  it('values that are not an object are 400 INVALID_PAYLOAD', async () => {
    await expectFwError(run({ id: source.id, values: ['name'] }), 400, 'INVALID_PAYLOAD');
  });

  it('an invalid override fails validation like any create (422)', async () => {
    await expectFwError(run({ id: source.id, values: { name: '' } }), 422, 'VALIDATION_FAILED');
  });

  it('an unknown model is refused', async () => {
    const err = await kernel.dispatch('fw.copy', { model: 'no.such', id: source.id }, admin).then(() => null, (e: { status: number; code: string }) => e);
    expect(err).toMatchObject({ status: 404 });
  });
});
