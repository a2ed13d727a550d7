/**
 * QA records stay in the organization of the people who made them (issue 25 §3): a use case
 * promoted from a recording belongs to the recording's organization, one imported by a person to
 * theirs, one imported by the system (`fw e2e import`) to the whole tenant. Its steps, the run
 * results of it and their steps (with their screenshots) follow it. Promoting under a key another
 * organization's use case holds is 409 QA_USECASE_KEY_TAKEN, since it would overwrite what that
 * organization replays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { expectError, startTestServer, type Res, type TestServer } from '../helpers/server.ts';

const QA = { ACTIVE_MODULES: 'base,auth,presentation,connectors,storage', ENABLE_QA_AUTOMATION: 'true' };
const click = { kind: 'click', target: { candidates: [[{ by: 'testid', value: 'list-new' }]] }, caption: 'Create a record' };

let t: TestServer;
let admin: string;
const qa = { a: '', b: '' };
let promoted = '';
let stepOfA = '';

async function promote(token: string, key: string): Promise<Res> {
  const rec = await t.request('POST', '/api/qa/recordings', { token, body: { usecase_key: key, module: 'base', name: `Flow ${key}`, start_path: '/' } });
  expect(rec.status, JSON.stringify(rec.body)).toBe(201);
  expect((await t.request('POST', `/api/qa/recordings/${rec.body.id}/step`, { token, body: click })).status).toBe(201);
  expect((await t.request('POST', `/api/qa/recordings/${rec.body.id}/finalize`, { token })).status).toBe(200);
  return t.request('POST', `/api/qa/recordings/${rec.body.id}/promote`, { token, body: {} });
}

beforeAll(async () => {
  t = await startTestServer(QA);
  admin = (await t.loginAdmin()).access_token;
  const orgA = await t.createOrg(admin, 'QA Alpha');
  const orgB = await t.createOrg(admin, 'QA Beta');
  await t.createUser(admin, { email: 'qa-a@example.com', password: 'qa-alpha-pass-1', role: 'qa', organization: orgA });
  await t.createUser(admin, { email: 'qa-b@example.com', password: 'qa-beta-pass-1', role: 'qa', organization: orgB });
  qa.a = (await t.login('qa-a@example.com', 'qa-alpha-pass-1')).access_token;
  qa.b = (await t.login('qa-b@example.com', 'qa-beta-pass-1')).access_token;
  const made = await promote(qa.a, 'alpha.flow');
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  promoted = made.body.id;
  expect(made.body.organization_id).toBe(orgA);
  // a run of it, as the replay engine writes one (the system), with a result and a step
  const sys = systemPrincipal(t.kernel.settings.DEFAULT_TENANT);
  const run = await t.kernel.dispatch<{ id: string }>('fw.create', { model: 'qa.run', values: { sandbox_tenant: 'qa-sandbox', status: 'passed', usecase_count: 1 } }, sys);
  const result = await t.kernel.dispatch<{ id: string }>('fw.create', { model: 'qa.run.result', values: { run_id: run.id, usecase_id: promoted, usecase_key: 'alpha.flow', module: 'base', status: 'passed' } }, sys);
  stepOfA = (await t.kernel.dispatch<{ id: string }>('fw.create', { model: 'qa.run.step', values: { result_id: result.id, sequence: 1, kind: 'click', status: 'passed' } }, sys)).id;
  // and one the system imported, for everyone
  await t.kernel.dispatch('qa.usecase.import', { usecase_key: 'tenant.flow', module: 'base', steps: [click] }, sys);
});
afterAll(async () => {
  await t?.close();
});

const keys = async (token: string) => ((await t.request('GET', '/api/qa/usecases', { token })).body.items as Array<{ key: string }>).map((u) => u.key).sort();

describe('QA use cases, results and steps by organization', () => {
  it('a promoted use case is seen in its recording\'s organization only; one the system imported by everyone', async () => {
    expect(await keys(qa.a)).toEqual(['alpha.flow', 'tenant.flow']);
    expect(await keys(qa.b)).toEqual(['tenant.flow']);
    expectError(await t.request('GET', '/api/qa/usecases/alpha.flow', { token: qa.b }), 404, 'QA_USECASE_NOT_FOUND');
    expect((await t.request('GET', '/api/qa/usecases/alpha.flow', { token: qa.a })).body.steps).toHaveLength(1);
    expect((await t.request('GET', '/api/data/qa.usecase.step', { token: qa.b })).body.items.every((s: { usecase_id: string }) => s.usecase_id !== promoted)).toBe(true);
  });

  it('the run results and run steps of it follow it: another organization\'s qa user reads neither, nor the step\'s screenshot', async () => {
    expect((await t.request('GET', '/api/data/qa.run.result', { token: qa.a })).body.items.map((r: { usecase_key: string }) => r.usecase_key)).toEqual(['alpha.flow']);
    expect((await t.request('GET', '/api/data/qa.run.result', { token: qa.b })).body.items).toEqual([]);
    expect((await t.request('GET', `/api/data/qa.run.step/${stepOfA}`, { token: qa.a })).status).toBe(200);
    expectError(await t.request('GET', `/api/data/qa.run.step/${stepOfA}`, { token: qa.b }), 404, 'RECORD_NOT_FOUND');
    expect((await t.request('GET', `/api/qa/run-steps/${stepOfA}/screenshot`, { token: qa.b })).status).toBe(404);
  });

  it('promoting under a key another organization\'s use case holds is 409 QA_USECASE_KEY_TAKEN and changes nothing; its own organization promotes again', async () => {
    expectError(await promote(qa.b, 'alpha.flow'), 409, 'QA_USECASE_KEY_TAKEN');
    expectError(await promote(qa.b, 'tenant.flow'), 409, 'QA_USECASE_KEY_TAKEN');
    const still = await t.request('GET', '/api/qa/usecases/alpha.flow', { token: qa.a });
    expect(still.body).toMatchObject({ version: 1 });
    const again = await promote(qa.a, 'alpha.flow');
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.version).toBe(2);
  });
});
