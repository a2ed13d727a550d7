/**
 * Every error status of the REST layer answers the `{ error: { code, message, details? } }`
 * envelope with a stable code, and bad input never becomes a 500: 400 bad input, 401
 * unauthenticated, 403 denied, 404 unknown model/record/route, 409 conflict, 413 too large,
 * 415 wrong media type, 422 validation. Run on SQLite and PostgreSQL (their errors differ).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../helpers/api.ts';
import { expectError, startTestServer, type Provider, type Res, type TestServer } from '../helpers/server.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const enc = (v: unknown) => encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v));

/** The `details.errors` of a 422, by field. */
const problems = (res: Res) => Object.fromEntries((res.body.error.details?.errors ?? []).map((e: { field: string; code: string }) => [e.field, e.code]));

for (const provider of ['sqlite', 'postgresql'] as Provider[]) {
  describe(provider, () => {
    let ts: TestServer;
    let token: string;
    let userToken: string;
    let org: { id: string; revision: number };
    let lead: { id: string };

    beforeAll(async () => {
      ts = await startTestServer({ HTTP_BODY_LIMIT_BYTES: '65536' }, { provider });
      token = await adminToken(ts);
      org = (await ts.request('POST', '/api/data/res.organization', { token, body: { name: 'Errors Inc', code: 'errors-inc' } })).body;
      lead = (await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'Error Lead', organization: org.id } })).body;
      await ts.createUser(token, { email: 'err-user@example.com', password: 'err-user-pass', role: 'user', organization: org.id });
      userToken = (await ts.login('err-user@example.com', 'err-user-pass')).access_token;
    });

    afterAll(async () => {
      await ts?.close();
    });

    describe('400 bad input', () => {
      it('a malformed JSON body is 400 INVALID_JSON', async () => {
        const res = await ts.request('POST', '/api/data/res.organization', { token, body: '{"name": "x",', headers: { 'content-type': 'application/json' } });
        expectError(res, 400, 'INVALID_JSON');
      });

      it('a well-formed body with a "__proto__" or "constructor.prototype" key is 400 FORBIDDEN_JSON_KEY (prototype pollution refused, said as such), and nothing is written', async () => {
        for (const body of ['{"name":"Proto","__proto__":{"role":"admin"}}', '{"name":"Proto","constructor":{"prototype":{"role":"admin"}}}']) {
          const res = await ts.request('POST', '/api/data/res.organization', { token, body, headers: { 'content-type': 'application/json' } });
          expectError(res, 400, 'FORBIDDEN_JSON_KEY');
          expect(res.body.error.message).toContain('__proto__');
        }
        expect((await ts.request('GET', `/api/data/res.organization?filter=${encodeURIComponent(JSON.stringify([['name', '=', 'Proto']]))}`, { token })).body.items).toEqual([]);
      });

      it('an empty JSON body is no body (a create then misses its required fields: 422 REQUIRED); a JSON array or scalar body is 400 INVALID_BODY', async () => {
        const empty = await ts.request('POST', '/api/data/res.organization', { token, body: '', headers: { 'content-type': 'application/json' } });
        expectError(empty, 422, 'VALIDATION_FAILED');
        expect(problems(empty)).toEqual({ name: 'REQUIRED' });
        // a body of blanks too; a DELETE with an empty JSON body deletes
        const temp = await ts.request('POST', '/api/data/res.organization', { token, body: { name: 'Empty body' } });
        const del = await ts.request('DELETE', `/api/data/res.organization/${temp.body.id}`, { token, body: ' \n', headers: { 'content-type': 'application/json' } });
        expect([del.status, del.body]).toEqual([200, { id: temp.body.id, deleted: true }]);
        expectError(await ts.request('POST', '/api/data/res.organization', { token, body: [{ name: 'x' }] }), 400, 'INVALID_BODY');
        expectError(await ts.request('PATCH', `/api/data/res.organization/${org.id}`, { token, body: '"text"', headers: { 'content-type': 'application/json' } }), 400, 'INVALID_BODY');
        // a JSON object sent as text/plain is not read as text and refused as "not an object": its type is what is wrong
        const plain = await ts.request('PATCH', `/api/data/res.organization/${org.id}`, { token, body: '{"name":"x"}', headers: { 'content-type': 'text/plain' } });
        expectError(plain, 415, 'UNSUPPORTED_MEDIA_TYPE');
        expect(plain.body.error.message).toBe('the request body was sent as text/plain: send it as application/json');
      });

      it('a filter that is not JSON is 400 INVALID_FILTER', async () => {
        expectError(await ts.request('GET', '/api/data/res.organization?filter=not-json', { token }), 400, 'INVALID_FILTER');
        expectError(await ts.request('GET', '/api/data/res.organization/count?filter=%5B', { token }), 400, 'INVALID_FILTER');
      });

      it('a filter with an unknown operator, unknown field or bad shape is 400 INVALID_DOMAIN', async () => {
        const unknownOp = await ts.request('GET', `/api/data/res.organization?filter=${enc([['name', '~=', 'x']])}`, { token });
        expectError(unknownOp, 400, 'INVALID_DOMAIN');
        expect(unknownOp.body.error.details).toEqual({ field: 'name', operator: '~=' });
        expectError(await ts.request('GET', `/api/data/res.organization?filter=${enc([['bogus', '=', 'x']])}`, { token }), 400, 'INVALID_DOMAIN');
        expectError(await ts.request('GET', `/api/data/res.organization?filter=${enc({ name: 'x' })}`, { token }), 400, 'INVALID_DOMAIN');
        expectError(await ts.request('GET', `/api/data/res.organization?filter=${enc([['name', '=']])}`, { token }), 400, 'INVALID_DOMAIN');
        expectError(await ts.request('GET', `/api/data/res.organization?filter=${enc(['|', ['name', '=', 'x']])}`, { token }), 400, 'INVALID_DOMAIN');
        expectError(await ts.request('GET', `/api/data/crm.lead?filter=${enc([['expected_revenue', '>', 'lots']])}`, { token }), 400, 'INVALID_DOMAIN');
        expectError(await ts.request('GET', `/api/data/crm.lead?filter=${enc([['organization', '=', 'not-a-uuid']])}`, { token }), 400, 'INVALID_DOMAIN');
        expectError(await ts.request('GET', `/api/data/res.user?filter=${enc([['password_hash', '!=', null]])}`, { token }), 400, 'INVALID_DOMAIN');
      });

      it('limit over 500 is 400 PAGE_TOO_LARGE; other bad paging is 400 INVALID_PAGING', async () => {
        const res = await ts.request('GET', '/api/data/res.country?limit=501', { token });
        expectError(res, 400, 'PAGE_TOO_LARGE');
        expect(res.body.error.details).toMatchObject({ max: 500 });
        expectError(await ts.request('GET', '/api/res/country?limit=1000', { token }), 400, 'PAGE_TOO_LARGE');
        // decimal digits only: Number() would read every spelling of the second line
        for (const p of ['limit=0', 'limit=abc', 'limit=1.5', 'offset=-1', 'offset=x',
          'limit=0x3', 'limit=0b11', 'limit=1e1', 'limit=%2B3', 'limit=%203', 'limit=3.0', 'offset=1e400', `offset=${'9'.repeat(20)}`]) {
          expectError(await ts.request('GET', `/api/data/res.country?${p}`, { token }), 400, 'INVALID_PAGING');
        }
      });

      it('a bad order or unknown fields list is 400 (INVALID_ORDER, INVALID_FIELDS)', async () => {
        expectError(await ts.request('GET', `/api/data/res.organization?order=${enc('bogus asc')}`, { token }), 400, 'INVALID_ORDER');
        expectError(await ts.request('GET', `/api/data/res.organization?order=${enc('name sideways')}`, { token }), 400, 'INVALID_ORDER');
        expectError(await ts.request('GET', `/api/data/res.user?order=${enc('password_hash asc')}`, { token }), 400, 'INVALID_ORDER');
        expectError(await ts.request('GET', '/api/data/res.organization?fields=name,bogus', { token }), 400, 'INVALID_FIELDS');
        expectError(await ts.request('GET', '/api/data/res.user?fields=password_hash', { token }), 400, 'INVALID_FIELDS');
      });

      it('a bad read_group request is 400 INVALID_GROUPING', async () => {
        const url = '/api/data/crm.lead/read_group';
        for (const body of [{}, { groupby: [] }, { groupby: ['bogus'] }, { groupby: ['stage'], aggregates: { name: 'sum' } }, { groupby: ['stage'], aggregates: { expected_revenue: 'median' } }]) {
          expectError(await ts.request('POST', url, { token, body }), 400, 'INVALID_GROUPING');
        }
      });

      it('a malformed If-Match is 400 INVALID_REVISION', async () => {
        for (const h of ['"abc"', `"${'9'.repeat(400)}"`, '"1.5"', '"-1"', '"0x3"']) {
          expectError(await ts.request('PATCH', `/api/data/res.organization/${org.id}`, { token, body: { name: 'x' }, headers: { 'if-match': h } }), 400, 'INVALID_REVISION');
        }
      });
    });

    describe('401 unauthenticated', () => {
      it('no token, a malformed token or a forged token is 401 on every protected route', async () => {
        const routes: Array<[string, string, unknown?]> = [
          ['GET', '/api/base/ping'], ['GET', '/api/res/country'], ['POST', '/api/res/organization', { name: 'x' }],
          ['GET', '/api/data/res.organization'], ['POST', '/api/data/crm.lead', { name: 'x' }],
          ['GET', `/api/data/crm.lead/${lead.id}`], ['DELETE', `/api/data/crm.lead/${lead.id}`],
          ['GET', '/api/data/crm.lead/count'], ['POST', '/api/data/crm.lead/read_group', { groupby: ['stage'] }],
          ['POST', `/api/data/crm.lead/${lead.id}/mark_won`, {}], ['POST', '/api/command/fw.count', { model: 'res.country' }],
          ['GET', '/api/auth/me'],
        ];
        for (const [method, url, body] of routes) {
          expectError(await ts.request(method, url, { body }), 401, 'UNAUTHENTICATED');
          expectError(await ts.request(method, url, { body, token: 'garbage' }), 401);
          expectError(await ts.request(method, url, { body, token: `${token.slice(0, -4)}AAAA` }), 401);
        }
        // the lead is untouched
        expect((await ts.request('GET', `/api/data/crm.lead/${lead.id}`, { token })).body.stage).toBe('new');
      });
    });

    describe('403 denied', () => {
      it('a role without the model right is 403 ACCESS_DENIED', async () => {
        expectError(await ts.request('POST', '/api/data/res.organization', { token: userToken, body: { name: 'No' } }), 403, 'ACCESS_DENIED');
        expectError(await ts.request('POST', '/api/res/organization', { token: userToken, body: { name: 'No' } }), 403, 'ACCESS_DENIED');
        expectError(await ts.request('DELETE', `/api/data/crm.lead/${lead.id}`, { token: userToken }), 403, 'ACCESS_DENIED');
        expectError(await ts.request('GET', '/api/data/ir.event', { token: userToken }), 403, 'ACCESS_DENIED');
        expectError(await ts.request('PATCH', `/api/data/res.organization/${org.id}`, { token: userToken, body: { name: 'No' } }), 403, 'ACCESS_DENIED');
      });

      it('a command limited to other roles is 403, and so is writing a field only admins may write', async () => {
        const me = (await ts.request('GET', '/api/auth/me', { token: userToken })).body;
        expectError(await ts.request('POST', `/api/data/res.user/${me.id}/deactivate`, { token: userToken, body: {} }), 403, 'ACCESS_DENIED');
        expectError(await ts.request('POST', '/api/command/res.user.deactivate', { token: userToken, body: { id: me.id } }), 403, 'ACCESS_DENIED');
        expectError(await ts.request('POST', '/api/data/res.user', { token: userToken, body: { email: 'x@example.com', name: 'x', password: 'xxxxxxxxxx', role: 'admin' } }), 403, 'ACCESS_DENIED');
      });
    });

    describe('404 not found', () => {
      it('an unknown model is 404 UNKNOWN_MODEL on every generic route', async () => {
        const routes: Array<[string, string, unknown?]> = [
          ['GET', '/api/data/no.such'], ['POST', '/api/data/no.such', { name: 'x' }], ['GET', '/api/data/no.such/count'],
          ['POST', '/api/data/no.such/read_group', { groupby: ['x'] }], ['GET', `/api/data/no.such/${UNKNOWN_ID}`],
          ['PUT', `/api/data/no.such/${UNKNOWN_ID}`, {}], ['PATCH', `/api/data/no.such/${UNKNOWN_ID}`, {}],
          ['DELETE', `/api/data/no.such/${UNKNOWN_ID}`], ['POST', `/api/data/no.such/${UNKNOWN_ID}/go`, {}],
        ];
        for (const [method, url, body] of routes) expectError(await ts.request(method, url, { token, body }), 404, 'UNKNOWN_MODEL');
      });

      it('an unknown or malformed record id is 404 RECORD_NOT_FOUND', async () => {
        for (const id of [UNKNOWN_ID, 'not-a-uuid', '12345']) {
          const base = `/api/data/crm.lead/${id}`;
          expectError(await ts.request('GET', base, { token }), 404, 'RECORD_NOT_FOUND');
          expectError(await ts.request('PATCH', base, { token, body: { name: 'x' } }), 404, 'RECORD_NOT_FOUND');
          expectError(await ts.request('PUT', base, { token, body: { name: 'x' } }), 404, 'RECORD_NOT_FOUND');
          expectError(await ts.request('DELETE', base, { token }), 404, 'RECORD_NOT_FOUND');
          expectError(await ts.request('POST', `${base}/mark_won`, { token, body: {} }), 404, 'RECORD_NOT_FOUND');
        }
      });

      it('a record hidden by record rules is 404 to that user, not 403', async () => {
        const other = (await ts.request('POST', '/api/data/res.organization', { token, body: { name: 'Hidden Org' } })).body;
        const hidden = (await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'Hidden', organization: other.id } })).body;
        expectError(await ts.request('GET', `/api/data/crm.lead/${hidden.id}`, { token: userToken }), 404, 'RECORD_NOT_FOUND');
        expectError(await ts.request('PATCH', `/api/data/crm.lead/${hidden.id}`, { token: userToken, body: { name: 'x' } }), 404, 'RECORD_NOT_FOUND');
      });

      it('an unknown route, command or record command is 404', async () => {
        expectError(await ts.request('GET', '/api/nope', { token }), 404, 'ROUTE_NOT_FOUND');
        expectError(await ts.request('GET', '/nope'), 404, 'ROUTE_NOT_FOUND');
        expectError(await ts.request('POST', '/api/command/no.such.command', { token, body: {} }), 404, 'UNKNOWN_COMMAND');
        expectError(await ts.request('POST', `/api/data/crm.lead/${lead.id}/explode`, { token, body: {} }), 404, 'UNKNOWN_COMMAND');
      });
    });

    describe('409 conflict', () => {
      it('a unique violation is 409 UNIQUE_VIOLATION naming the fields', async () => {
        const res = await ts.request('POST', '/api/data/res.country', { token, body: { name: 'Duplicate France', code: 'FR' } });
        expectError(res, 409, 'UNIQUE_VIOLATION');
        expect(res.body.error.details).toMatchObject({ model: 'res.country', fields: ['code'] });
        expectError(await ts.request('PATCH', `/api/data/res.organization/${org.id}`, { token, body: { code: 'default' } }), 409, 'UNIQUE_VIOLATION');
        expectError(await ts.request('POST', '/api/data/res.user', { token, body: { email: 'ERR-USER@example.com', name: 'dup', password: 'dup-password' } }), 409, 'UNIQUE_VIOLATION');
      });

      it('a stale revision is 409 STALE_REVISION', async () => {
        const o = (await ts.request('POST', '/api/data/res.organization', { token, body: { name: 'Stale Org' } })).body;
        await ts.request('PATCH', `/api/data/res.organization/${o.id}`, { token, body: { name: 'Stale Org 2' } });
        expectError(await ts.request('PATCH', `/api/data/res.organization/${o.id}`, { token, body: { name: 'x', revision: 1 } }), 409, 'STALE_REVISION');
      });
    });

    describe('413, 415', () => {
      it('a JSON body over HTTP_BODY_LIMIT_BYTES is 413 PAYLOAD_TOO_LARGE', async () => {
        const res = await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'Big', notes: 'x'.repeat(70_000) } });
        expectError(res, 413, 'PAYLOAD_TOO_LARGE');
      });

      it('a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
        const res = await ts.request('POST', '/api/data/crm.lead', { token, body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
        expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      });
    });

    describe('422 validation', () => {
      it('a required field missing is 422 REQUIRED', async () => {
        const res = await ts.request('POST', '/api/data/res.organization', { token, body: {} });
        expectError(res, 422, 'VALIDATION_FAILED');
        expect(problems(res)).toEqual({ name: 'REQUIRED' });
        expect(problems(await ts.request('PATCH', `/api/data/res.organization/${org.id}`, { token, body: { name: null } }))).toEqual({ name: 'REQUIRED' });
      });

      it('a value of the wrong type is 422 INVALID_TYPE', async () => {
        const res = await ts.request('POST', '/api/data/crm.lead', {
          token, body: { name: 42, expected_revenue: 'lots', probability: 'high', closed_at: 'yesterday', organization: 'not-a-uuid' },
        });
        expectError(res, 422, 'VALIDATION_FAILED');
        expect(problems(res)).toEqual({ name: 'INVALID_TYPE', expected_revenue: 'INVALID_TYPE', probability: 'INVALID_TYPE', closed_at: 'INVALID_TYPE', organization: 'INVALID_TYPE' });
        expect(problems(await ts.request('PATCH', `/api/data/res.organization/${org.id}`, { token, body: { is_active: 'yes' } }))).toEqual({ is_active: 'INVALID_TYPE' });
      });

      it('a value too long is 422 TOO_LONG; a number out of range is 422', async () => {
        const res = await ts.request('POST', '/api/data/res.organization', { token, body: { name: 'n'.repeat(201) } });
        expectError(res, 422, 'VALIDATION_FAILED');
        expect(problems(res)).toEqual({ name: 'TOO_LONG' });
        expectError(await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'neg', expected_revenue: -1 } }), 422);
        expectError(await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'huge', expected_revenue: 2 ** 40 } }), 422);
      });

      it('a value outside an enum is 422 INVALID_ENUM', async () => {
        const res = await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'Enum', stage: 'bogus' } });
        expectError(res, 422, 'VALIDATION_FAILED');
        expect(problems(res)).toEqual({ stage: 'INVALID_ENUM' });
      });

      it('an unknown field is 422 UNKNOWN_FIELD, a read-only one READONLY_FIELD, a private one UNKNOWN_FIELD', async () => {
        const res = await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'Fields', bogus: 1, dbid: 5, revision: 3 } });
        expectError(res, 422, 'VALIDATION_FAILED');
        expect(problems(res)).toEqual({ bogus: 'UNKNOWN_FIELD', dbid: 'READONLY_FIELD', revision: 'READONLY_FIELD' });
        const priv = await ts.request('PATCH', `/api/data/res.user/${(await ts.request('GET', '/api/auth/me', { token })).body.id}`, { token, body: { password_hash: 'x' } });
        expectError(priv, 422, 'VALIDATION_FAILED');
        expect(problems(priv)).toEqual({ password_hash: 'UNKNOWN_FIELD' });
      });

      it('a misspelt field is told the near one the caller may write; a private or read-only one is never offered', async () => {
        const messages = (res: Res) => Object.fromEntries((res.body.error.details?.errors ?? []).map((e: { field: string; message: string }) => [e.field, e.message]));
        const typo = await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'Typo', emial: 'a@example.com', dbidd: 1 } });
        expectError(typo, 422, 'VALIDATION_FAILED');
        expect(messages(typo)).toEqual({ emial: 'crm.lead has no field "emial" (did you mean email?)', dbidd: 'crm.lead has no field "dbidd"' });
        const me = (await ts.request('GET', '/api/auth/me', { token })).body.id;
        const priv = await ts.request('PATCH', `/api/data/res.user/${me}`, { token, body: { password_has: 'x' } });
        expect(messages(priv)).toEqual({ password_has: 'res.user has no field "password_has"' });
        const org = (await ts.request('GET', '/api/data/res.organization?limit=1', { token })).body.items[0];
        const cmd = await ts.request('POST', `/api/data/res.organization/${org.id}/change_country`, { token, body: { countyr: 'FR' } });
        expect(messages(cmd)).toMatchObject({ countyr: 'res.organization.change_country takes no "countyr" (did you mean country?)' });
      });

      it('every problem with the given values is reported at once', async () => {
        // (required fields are checked after the pre hooks, which may fill them, so they come in a second round)
        const res = await ts.request('POST', '/api/data/crm.lead', { token, body: { stage: 'bogus', email: 'e'.repeat(300), extra: true } });
        expect(problems(res)).toEqual({ stage: 'INVALID_ENUM', email: 'TOO_LONG', extra: 'UNKNOWN_FIELD' });
      });

      it('a reference to a record that does not exist is 422 INVALID_REFERENCE', async () => {
        expectError(await ts.request('POST', '/api/data/crm.lead', { token, body: { name: 'Dangling', country: UNKNOWN_ID } }), 422, 'INVALID_REFERENCE');
      });

      it('command input is validated the same way (422)', async () => {
        const reg = await ts.request('POST', '/api/data/res.user', { token, body: { email: 'short@example.com', name: 'Short', password: 'short' } });
        expectError(reg, 422, 'WEAK_PASSWORD');
        expectError(await ts.request('POST', '/api/data/res.user', { token, body: { email: 'not-an-email', name: 'x', password: 'long-enough-pass' } }), 422, 'INVALID_EMAIL');
        const missing = await ts.request('POST', '/api/res/user', { token, body: { name: 'No Email' } });
        expectError(missing, 422, 'VALIDATION_FAILED');
        expect(problems(missing)).toMatchObject({ email: 'REQUIRED', password: 'REQUIRED' });
        const extra = await ts.request('POST', `/api/data/res.organization/${org.id}/change_country`, { token, body: { country: 'FR', color: 'red' } });
        expectError(extra, 422, 'VALIDATION_FAILED');
        expect(problems(extra)).toEqual({ country: 'INVALID_TYPE', color: 'UNKNOWN_FIELD' });
      });

      it('a revision that is not an integer is 422', async () => {
        expectError(await ts.request('PATCH', `/api/data/res.organization/${org.id}`, { token, body: { name: 'x', revision: 'one' } }), 422, 'INVALID_TYPE');
      });
    });

    it('a battery of hostile inputs never produces a 500', async () => {
      const cases: Array<[string, string, unknown?]> = [
        ['GET', `/api/data/res.organization?filter=${enc([['name', 'in', 'notalist']])}`],
        ['GET', `/api/data/res.organization?filter=${enc([['country.code', '=', 5]])}`],
        ['GET', `/api/data/res.organization?filter=${enc([['name.x', '=', 'y']])}`],
        ['GET', `/api/data/res.organization?filter=${enc([['users', '=', 'y']])}`],
        ['GET', `/api/data/res.organization?filter=${enc([['users', 'any', 'y']])}`],
        ['GET', `/api/data/res.organization?filter=${enc([['id', '=', 'y']])}`],
        ['GET', `/api/data/res.organization?filter=${enc([[1, 2, 3]])}`],
        ['GET', `/api/data/res.organization?filter=${enc([['name', '=', '$principal.nope']])}`],
        ['GET', `/api/data/res.organization?filter=${enc([['is_active', '=', 'maybe']])}`],
        ['GET', `/api/data/crm.lead?filter=${enc([['closed_at', '>', 'not-a-date']])}`],
        ['GET', `/api/data/crm.lead?filter=${enc([['expected_revenue', 'like', 'x']])}`],
        ['GET', `/api/data/crm.lead?order=${enc(', ,')}`],
        ['GET', `/api/data/crm.lead/${lead.id}?fields=nope`],
        ['POST', '/api/data/crm.lead', { name: { nested: true } }],
        ['POST', '/api/data/crm.lead', { name: 'x', closed_at: 12 }],
        ['POST', '/api/data/crm.lead', { name: 'x', expected_revenue: 1.5 }],
        ['POST', '/api/data/crm.lead', { name: 'x', probability: 'NaN' }],
        ['POST', '/api/data/crm.lead', { name: 'x', organization: 42 }],
        ['POST', '/api/data/res.organization', { name: 'x', code: 'Not A Slug' }],
        ['POST', '/api/data/crm.lead/read_group', { groupby: 'stage' }],
        ['POST', '/api/data/crm.lead/read_group', { groupby: ['stage'], aggregates: ['sum'] }],
        ['POST', '/api/data/crm.lead/read_group', { groupby: ['stage'], filter: 'x' }],
        ['POST', '/api/command/fw.search', { model: 42 }],
        ['POST', '/api/command/fw.search', { model: 'crm.lead', limit: -5 }],
        ['POST', '/api/command/fw.search', { model: 'crm.lead', order: 5 }],
        ['POST', '/api/command/fw.create', { model: 'crm.lead', values: 'x' }],
        ['POST', '/api/command/fw.update', { model: 'crm.lead', id: 5, values: {} }],
        ['POST', '/api/command/fw.create_many', { model: 'crm.lead', values: {} }],
        ['POST', '/api/command/fw.update_many', { model: 'crm.lead', domain: 'x', values: {} }],
        ['POST', '/api/command/res.user.set_password', { id: lead.id, password: 'long-enough-pass' }],
        ['PATCH', `/api/data/crm.lead/${lead.id}`, { organization: UNKNOWN_ID }],
        ['PUT', `/api/data/crm.lead/${lead.id}`, {}],
      ];
      for (const [method, url, body] of cases) {
        const res = await ts.request(method, url, { token, body });
        expect(res.status, `${method} ${url} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBeLessThan(500);
        expect(res.status, `${method} ${url} ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400);
        expectError(res, res.status);
      }
    });
  });
}
