/**
 * Rules that follow the records they protect (issue 25 §3), on SQLite and PostgreSQL:
 * - chatter (`ir.message`, rule `follow: { model: 'res_model', id: 'res_id' }`) is visible exactly
 *   when the record it is about is visible to the caller, on every read path (REST list, one
 *   record, count, group-by, GraphQL, a read inside a transaction);
 * - writing a Reference checks that the caller may read the target, answering 422
 *   INVALID_REFERENCE exactly as for an id that does not exist (no existence oracle).
 * Two organizations with one user each; the admin sees everything.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlOk } from '../helpers/api.ts';
import { userPrincipal } from '../helpers/kernel.ts';
import { expectError, startTestServer, type Provider, type Res, type TestServer } from '../helpers/server.ts';

const q = (filter: unknown) => `filter=${encodeURIComponent(JSON.stringify(filter))}`;

function suite(provider: Provider) {
  describe(`rules that follow references on ${provider}`, () => {
    let t: TestServer;
    let admin = '';
    const org = { a: '', b: '' };
    const token = { a: '', b: '' };
    const user = { a: '', b: '' };
    const lead = { a: '', b: '' };
    const message = { onLeadA: '', onLeadB: '', onCountry: '' };

    beforeAll(async () => {
      t = await startTestServer({}, { provider });
      admin = (await t.loginAdmin()).access_token;
      org.a = await t.createOrg(admin, 'Follow A');
      org.b = await t.createOrg(admin, 'Follow B');
      user.a = (await t.createUser(admin, { email: 'ann@a.example.com', password: 'ann-password-1', organization: org.a })).id;
      user.b = (await t.createUser(admin, { email: 'ben@b.example.com', password: 'ben-password-1', organization: org.b })).id;
      token.a = (await t.login('ann@a.example.com', 'ann-password-1')).access_token;
      token.b = (await t.login('ben@b.example.com', 'ben-password-1')).access_token;
      const mk = async (tok: string, name: string, organization: string) => {
        const res = await t.request('POST', '/api/data/crm.lead', { token: tok, body: { name, organization } });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.id as string;
      };
      lead.a = await mk(token.a, 'Lead of A', org.a);
      lead.b = await mk(token.b, 'Lead of B', org.b);
      const post = async (tok: string, res_model: string, res_id: string, body: string) => {
        const res = await t.request('POST', '/api/data/ir.message', { token: tok, body: { res_model, res_id, body } });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        return res.body.id as string;
      };
      message.onLeadA = await post(token.a, 'crm.lead', lead.a, 'A: the price we will accept');
      message.onLeadB = await post(token.b, 'crm.lead', lead.b, 'B: our own note');
      const country = (await t.request('GET', `/api/data/res.country?limit=1`, { token: admin })).body.items[0];
      message.onCountry = await post(admin, 'res.country', country.id, 'about a country');
    });
    afterAll(async () => {
      await t?.close();
    });

    const ids = (res: Res) => (res.body.items as Array<{ id: string }>).map((m) => m.id);

    it('a user of B sees no message about a lead of A in the REST list, its count or a filter on the lead', async () => {
      const list = await t.request('GET', '/api/data/ir.message?count=true', { token: token.b });
      expect(list.status).toBe(200);
      expect(ids(list)).not.toContain(message.onLeadA);
      expect(ids(list)).toContain(message.onLeadB);
      expect(list.body.total).toBe(list.body.items.length);
      const filtered = await t.request('GET', `/api/data/ir.message?${q([['res_id', '=', lead.a]])}`, { token: token.b });
      expect(filtered.body.items).toEqual([]);
      const count = await t.request('GET', `/api/data/ir.message/count?${q([['res_model', '=', 'crm.lead']])}`, { token: token.b });
      expect(count.body.count).toBe(1);
    });

    it('a message about a lead of A is 404 RECORD_NOT_FOUND for a user of B, as a missing one', async () => {
      expectError(await t.request('GET', `/api/data/ir.message/${message.onLeadA}`, { token: token.b }), 404, 'RECORD_NOT_FOUND');
      expectError(await t.request('GET', `/api/data/ir.message/${crypto.randomUUID()}`, { token: token.b }), 404, 'RECORD_NOT_FOUND');
    });

    it('group-by (the Prisma path) counts only the messages of records the caller may read', async () => {
      const res = await t.request('POST', '/api/data/ir.message/read_group', { token: token.b, body: { groupby: ['res_model'] } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const byModel = Object.fromEntries((res.body.groups as Array<{ res_model: string; count: number }>).map((g) => [g.res_model, g.count]));
      expect(byModel['crm.lead']).toBe(1);
    });

    it('GraphQL lists and loads only the messages of readable records', async () => {
      const data = await gqlOk(t, `query($id: ID!) { irMessages { id } irMessage(id: $id) { id } }`, { id: message.onLeadB }, { token: token.b });
      const seen = (data.irMessages as Array<{ id: string }>).map((m) => m.id);
      expect(seen).toContain(message.onLeadB);
      expect(seen).not.toContain(message.onLeadA);
      expect(data.irMessage).toEqual({ id: message.onLeadB });
    });

    it('the author\'s organization reads its message; a message about a model without rules is readable by every reader', async () => {
      const mine = await t.request('GET', `/api/data/ir.message/${message.onLeadA}`, { token: token.a });
      expect(mine.status).toBe(200);
      expect(mine.body.body).toBe('A: the price we will accept');
      expect(ids(await t.request('GET', '/api/data/ir.message', { token: token.a }))).toContain(message.onCountry);
      expect(ids(await t.request('GET', '/api/data/ir.message', { token: token.b }))).toContain(message.onCountry);
    });

    it('the admin reads the messages of every organization', async () => {
      const all = ids(await t.request('GET', '/api/data/ir.message', { token: admin }));
      expect(all).toEqual(expect.arrayContaining([message.onLeadA, message.onLeadB, message.onCountry]));
    });

    describe('delete notices', () => {
      /** Deletes `id` as the admin and answers the notice published on changed:<model>. */
      async function deleteAndCatch(model: string, id: string): Promise<Record<string, unknown>> {
        const tenant = t.kernel.settings.DEFAULT_TENANT;
        const got: Array<Record<string, unknown>> = [];
        const off = await t.kernel.subscribe(tenant, `changed:${model}`, (m) => got.push(m as Record<string, unknown>));
        try {
          expect((await t.request('DELETE', `/api/data/${model}/${id}`, { token: admin })).status).toBe(200);
          for (let i = 0; i < 100 && !got.some((m) => m.id === id); i++) await new Promise((r) => setTimeout(r, 10));
        } finally {
          off();
        }
        return got.find((m) => m.id === id)!;
      }
      const couldRead = async (who: 'a' | 'b', model: string, notice: Record<string, unknown>) => {
        const principal = userPrincipal(t.kernel.settings.DEFAULT_TENANT, { user_id: user[who], organization_id: org[who] });
        return (await t.kernel.dispatch<{ readable: boolean }>('fw.could_read_deleted', { model, values: notice.before ?? null }, principal)).readable;
      };

      it('the notice of a deleted lead carries what its rules read; only its organization could read it', async () => {
        const res = await t.request('POST', '/api/data/crm.lead', { token: admin, body: { name: 'Gone soon', organization: org.a } });
        const notice = await deleteAndCatch('crm.lead', res.body.id);
        expect(notice).toMatchObject({ op: 'delete', id: res.body.id, before: { organization: org.a } });
        expect(await couldRead('a', 'crm.lead', notice)).toBe(true);
        expect(await couldRead('b', 'crm.lead', notice)).toBe(false);
      });

      it('the notice of a deleted chatter message follows its lead: only the lead\'s organization could read it', async () => {
        const res = await t.request('POST', '/api/data/ir.message', { token: token.a, body: { res_model: 'crm.lead', res_id: lead.a, body: 'to be deleted' } });
        expect(res.status).toBe(201);
        const notice = await deleteAndCatch('ir.message', res.body.id);
        expect(notice.before).toMatchObject({ res_model: 'crm.lead', res_id: lead.a });
        expect(await couldRead('a', 'ir.message', notice)).toBe(true);
        expect(await couldRead('b', 'ir.message', notice)).toBe(false);
      });

      it('a notice without values, of a model with rules, is withheld', async () => {
        expect(await couldRead('a', 'crm.lead', { id: crypto.randomUUID() })).toBe(false);
      });

      it('fw.could_read_deleted is internal: not a command a client can name', async () => {
        const res = await t.request('POST', '/api/command/fw.could_read_deleted', { token: token.a, body: { model: 'crm.lead', values: {} } });
        expectError(res, 404, 'UNKNOWN_COMMAND');
      });
    });

    describe('writing a Reference needs read access to its target', () => {
      it('linking a lead to a user of another organization is 422 INVALID_REFERENCE, word for word as a missing user', async () => {
        const foreign = await t.request('POST', '/api/data/crm.lead', { token: token.b, body: { name: 'link', organization: org.b, salesperson: user.a } });
        const missingId = crypto.randomUUID();
        const missing = await t.request('POST', '/api/data/crm.lead', { token: token.b, body: { name: 'link', organization: org.b, salesperson: missingId } });
        expectError(foreign, 422, 'INVALID_REFERENCE');
        expectError(missing, 422, 'INVALID_REFERENCE');
        expect(foreign.body.error.message.replace(user.a, 'ID')).toBe(missing.body.error.message.replace(missingId, 'ID'));
        expect(JSON.stringify(foreign.body.error.details ?? {}).replace(user.a, 'ID')).toBe(JSON.stringify(missing.body.error.details ?? {}).replace(missingId, 'ID'));
        const count = await t.request('GET', `/api/data/crm.lead/count?${q([['name', '=', 'link']])}`, { token: admin });
        expect(count.body.count).toBe(0);
      });

      it('an update that points a lead at a record of another organization is refused the same way', async () => {
        const res = await t.request('PATCH', `/api/data/crm.lead/${lead.b}`, { token: token.b, body: { salesperson: user.a } });
        expectError(res, 422, 'INVALID_REFERENCE');
        const after = await t.request('GET', `/api/data/crm.lead/${lead.b}`, { token: token.b });
        expect(after.body.salesperson).toBeNull();
      });

      it('a Reference to a readable record, or an empty one, is written', async () => {
        const res = await t.request('PATCH', `/api/data/crm.lead/${lead.b}`, { token: token.b, body: { salesperson: user.b } });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const cleared = await t.request('PATCH', `/api/data/crm.lead/${lead.b}`, { token: token.b, body: { salesperson: null } });
        expect(cleared.status).toBe(200);
      });

      it('the admin may link across organizations', async () => {
        const res = await t.request('PATCH', `/api/data/crm.lead/${lead.a}`, { token: admin, body: { salesperson: user.b } });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      });
    });
  });
}

suite('sqlite');
suite('postgresql');
