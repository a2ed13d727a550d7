/**
 * Rules that follow a reference (`follow`, src/kernel/data/rules.ts), on the shipped models and
 * both engines: a document version follows its document (a Reference), a chatter message may be
 * about any record (a model and id pair). Each read answers the same on the compiled-SQL path
 * (outside a transaction) and on the Prisma path (inside one, and fw.read_group). The generated
 * database client holds only declared models, so no fixture models here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal, type Env, type Principal } from '../../src/kernel/env.ts';
import {
  adminPrincipal, bootTestKernel, expectFwError, PROVIDERS, userPrincipal, type Provider, type TestKernel,
} from '../helpers/kernel.ts';

type Row = Record<string, any>;

function suite(provider: Provider) {
  describe(`follow rules on ${provider}`, () => {
    const T = `follow-${provider}`;
    const admin = adminPrincipal(T);
    const sys = systemPrincipal(T);
    let ann: Principal;
    let ben: Principal;
    let tk: TestKernel;
    const id: Record<string, string> = {};

    const run = <R = Row>(command: string, payload: Record<string, unknown>, p: Principal) => tk.kernel.dispatch<R>(command, payload, p);
    const create = async (model: string, values: Record<string, unknown>) => (await run('fw.create', { model, values }, sys)).id as string;
    /** fw.search outside a transaction (SQL) and inside one (Prisma): both must answer the same ids. */
    async function visible(model: string, p: Principal): Promise<string[]> {
      const sql = (await run<{ items: Row[] }>('fw.search', { model, order: 'dbid asc' }, p)).items.map((r) => r.id);
      const client = await tk.kernel.tenants.get(T);
      const prisma = await tk.kernel.execute(client, p, async (env: Env) =>
        (await env.dispatch<{ items: Row[] }>('fw.search', { model, order: 'dbid asc' })).items.map((r) => r.id));
      expect(prisma, `${model}: the Prisma path answers what the SQL path does`).toEqual(sql);
      return sql;
    }

    beforeAll(async () => {
      tk = await bootTestKernel({ provider, settings: { ACTIVE_MODULES: 'base,auth,connectors,storage' } });
      id.orgA = await create('res.organization', { name: 'Follow A' });
      id.orgB = await create('res.organization', { name: 'Follow B' });
      ann = userPrincipal(T, { organization_id: id.orgA });
      ben = userPrincipal(T, { organization_id: id.orgB });
      id.leadA = await create('crm.lead', { name: 'Lead A', organization: id.orgA });
      id.leadB = await create('crm.lead', { name: 'Lead B', organization: id.orgB });
      id.docA = await create('storage.document', { name: 'Doc A', original_filename: 'a.txt', organization_id: id.orgA });
      id.docB = await create('storage.document', { name: 'Doc B', original_filename: 'b.txt', organization_id: id.orgB });
      const version = (doc: string, n: string) => create('storage.document_version', { document_id: doc, version_number: 1, original_filename: n, storage_key: `k/${n}` });
      id.versionA = await version(id.docA, 'a.txt');
      id.versionB = await version(id.docB, 'b.txt');
      const connector = await create('ir.connector', { name: 'C', category: 'storage', provider_type: 'local', organization_id: id.orgA });
      id.param = (await run<{ items: Row[] }>('fw.search', { model: 'ir.connector.param', domain: [['connector_id', '=', connector]], limit: 1 }, sys)).items[0]?.id
        ?? await create('ir.connector.param', { connector_id: connector, key: 'root', value: '/tmp' });
      const country = (await run<{ items: Row[] }>('fw.search', { model: 'res.country', limit: 1 }, sys)).items[0].id;
      const note = (res_model: string, res_id: string, body: string) => create('ir.message', { res_model, res_id, body });
      id.noteLeadA = await note('crm.lead', id.leadA, 'on lead A');
      id.noteLeadB = await note('crm.lead', id.leadB, 'on lead B');
      id.noteVersionA = await note('storage.document_version', id.versionA, 'on version A');
      id.noteCountry = await note('res.country', country, 'on a country');
      id.noteParam = await note('ir.connector.param', id.param, 'on a param');
      id.noteNote = await note('ir.message', id.noteLeadA, 'on a message');
    });
    afterAll(async () => {
      await tk?.cleanup();
    });

    it('a document version is visible exactly when its document is, on both read paths', async () => {
      expect(await visible('storage.document_version', ann)).toEqual([id.versionA]);
      expect(await visible('storage.document_version', ben)).toEqual([id.versionB]);
      await expectFwError(run('fw.read_one', { model: 'storage.document_version', id: id.versionB }, ann), 404, 'RECORD_NOT_FOUND');
    });

    it('a message follows its record through the model and id it names, again through a record that follows (a version), and a model without rules needs only read permission', async () => {
      expect(await visible('ir.message', ann)).toEqual([id.noteLeadA, id.noteVersionA, id.noteCountry]);
      expect(await visible('ir.message', ben)).toEqual([id.noteLeadB, id.noteCountry]);
    });

    it('a message about a model the caller may not read, or about a message (a model met twice), is hidden; admins see every message', async () => {
      const seen = await visible('ir.message', ann);
      expect(seen).not.toContain(id.noteParam);
      expect(seen).not.toContain(id.noteNote);
      expect(await visible('ir.message', admin)).toHaveLength(6);
    });

    it('count and group-by (Prisma) count only the messages of records the caller may read', async () => {
      expect(await run('fw.count', { model: 'ir.message' }, ann)).toEqual({ count: 3 });
      const groups = await run<{ groups: Row[] }>('fw.read_group', { model: 'ir.message', groupby: ['res_model'] }, ann);
      expect(Object.fromEntries(groups.groups.map((g) => [g.res_model, g.count]))).toEqual({ 'crm.lead': 1, 'res.country': 1, 'storage.document_version': 1 });
    });

    it('posting on a record of another organization is 404, as for a missing record', async () => {
      await expectFwError(run('ir.message.post', { res_model: 'crm.lead', res_id: id.leadB, body: 'hi' }, ann), 404, 'RECORD_NOT_FOUND');
    });

    it('a delete notice of a followed record is readable exactly by those who could read it', async () => {
      const msg = await create('ir.message', { res_model: 'crm.lead', res_id: id.leadA, body: 'doomed' });
      const got: Row[] = [];
      const off = await tk.kernel.subscribe(T, 'changed:ir.message', (m) => got.push(m as Row));
      try {
        await run('fw.delete', { model: 'ir.message', id: msg }, admin);
        for (let i = 0; i < 100 && !got.length; i++) await new Promise((r) => setTimeout(r, 10));
      } finally {
        off();
      }
      expect(got[0]).toMatchObject({ op: 'delete', id: msg, before: { res_model: 'crm.lead', res_id: id.leadA } });
      const could = async (p: Principal) => (await run<{ readable: boolean }>('fw.could_read_deleted', { model: 'ir.message', values: got[0].before }, p)).readable;
      expect(await could(ann)).toBe(true);
      expect(await could(ben)).toBe(false);
    });
  });
}

for (const provider of PROVIDERS) suite(provider);
