/**
 * A use case's frozen steps are editable (issue 32 item 3): a qa user changes a step's locator,
 * value or assertion through the generic update, moves a step up or down and removes one with
 * its commands (so may an admin). Each edit is checked like a recorded step and makes a new
 * version of the use case; positions stay 1…n; other roles may only read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { gqlOk } from '../helpers/api.ts';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

const QA = { ACTIVE_MODULES: 'base,auth,presentation,connectors,storage', ENABLE_QA_AUTOMATION: 'true' };
type Rec = Record<string, any>;

let t: TestServer;
let admin: string;
let qa: string;
beforeAll(async () => {
  t = await startTestServer(QA);
  admin = (await t.loginAdmin()).access_token;
  await t.createUser(admin, { email: 'qa@example.com', password: 'qa-pass-1234', role: 'qa' });
  qa = (await t.login('qa@example.com', 'qa-pass-1234')).access_token;
});
afterAll(async () => { await t?.close(); });

const STEPS = [
  { kind: 'click', target: { candidates: [[{ by: 'testid', value: 'new-record' }]] } },
  { kind: 'fill', target: { candidates: [[{ by: 'testid', value: 'input-name' }]] }, value: { kind: 'literal', value: 'Acme' } },
  { kind: 'click', target: { candidates: [[{ by: 'testid', value: 'form-save' }]] } },
  { kind: 'assert', target: { candidates: [[{ by: 'testid', value: 'form-title' }]] }, assertion: { kind: 'text', expected: 'Acme' } },
];

/** As `fw e2e import` writes it (the system principal). */
async function importUsecase(key: string): Promise<Rec> {
  await t.kernel.dispatch('qa.usecase.import', { usecase_key: key, module: 'base', start_path: '/default/action-base.action_organizations', steps: STEPS }, systemPrincipal(t.kernel.settings.DEFAULT_TENANT));
  return usecase(key);
}
async function usecase(key: string): Promise<Rec> {
  const res = await t.request('GET', `/api/qa/usecases/${key}`, { token: qa });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
const summary = (uc: Rec) => uc.steps.map((s: Rec) => `${s.sequence} ${s.kind}${s.value?.value ? ` ${s.value.value}` : ''}`);

describe('editing a use case\'s steps', () => {
  it('changing a step\'s locator, value or assertion is checked like a recorded step and makes a new version', async () => {
    const uc = await importUsecase('org.edit');
    expect(uc.version).toBe(1);
    const fill = uc.steps[1];
    // the value
    const v = await t.request('PATCH', `/api/data/qa.usecase.step/${fill.id}`, { token: qa, body: { value: { kind: 'literal', value: 'Initech' } } });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    // a locator: a better candidate first
    const candidates = [[{ by: 'role', value: 'textbox', name: 'Name', exact: true }], [{ by: 'testid', value: 'input-name' }]];
    expect((await t.request('PATCH', `/api/data/qa.usecase.step/${fill.id}`, { token: qa, body: { target: { candidates } } })).status).toBe(200);
    // an assertion
    const assertStep = uc.steps[3];
    expect((await t.request('PATCH', `/api/data/qa.usecase.step/${assertStep.id}`, { token: qa, body: { assertion: { kind: 'text', expected: 'Initech' } } })).status).toBe(200);
    const after = await usecase('org.edit');
    expect(after.version).toBe(4);
    expect(after.steps[1]).toMatchObject({ value: { kind: 'literal', value: 'Initech' }, target: { candidates } });
    expect(after.steps[3].assertion).toEqual({ kind: 'text', expected: 'Initech' });
  });

  it('an edit that a recording could not store is refused and changes nothing (no new version)', async () => {
    const uc = await importUsecase('org.edit-refused');
    const [click, fill, , assertStep] = uc.steps;
    expectError(await t.request('PATCH', `/api/data/qa.usecase.step/${click.id}`, { token: qa, body: { target: { candidates: [[{ by: 'css', value: 'body' }]] } } }), 422, 'QA_LOCATOR_TOO_BROAD');
    expectError(await t.request('PATCH', `/api/data/qa.usecase.step/${assertStep.id}`, { token: qa, body: { assertion: { kind: 'text' } } }), 422, 'VALIDATION_FAILED');
    expectError(await t.request('PATCH', `/api/data/qa.usecase.step/${fill.id}`, { token: qa, body: { sequence: 3 } }), 422, 'VALIDATION_FAILED');
    const other = await importUsecase('org.edit-other');
    expectError(await t.request('PATCH', `/api/data/qa.usecase.step/${fill.id}`, { token: qa, body: { usecase_id: other.id } }), 422, 'VALIDATION_FAILED');
    expect((await usecase('org.edit-refused')).version).toBe(1);
    // a password typed into a password field is stored as the secret, never as typed
    const pw = await t.request('PATCH', `/api/data/qa.usecase.step/${fill.id}`, { token: qa, body: { target: { candidates: [[{ by: 'testid', value: 'login-password' }]] }, value: { kind: 'literal', value: 'hunter2-secret' } } });
    expect(pw.status, JSON.stringify(pw.body)).toBe(200);
    expect((await usecase('org.edit-refused')).steps[1].value).toEqual({ kind: 'secret', value: 'password' });
  });

  it('moves a step up or down and removes one: positions stay 1…n, each a new version; the first cannot move up, the last step stays', async () => {
    const uc = await importUsecase('org.reorder');
    const cmd = (name: string, id: string, token = qa) => t.request('POST', `/api/command/qa.usecase.step.${name}`, { token, body: { id } });
    const [click, fill, save, check] = uc.steps;
    expect((await cmd('move_down', fill.id)).status).toBe(200);
    expect(summary(await usecase('org.reorder'))).toEqual(['1 click', '2 click', '3 fill Acme', '4 assert']);
    expect((await cmd('move_up', fill.id)).status).toBe(200);
    expect(summary(await usecase('org.reorder'))).toEqual(['1 click', '2 fill Acme', '3 click', '4 assert']);
    expectError(await cmd('move_up', click.id), 422, 'QA_STEP_AT_EDGE');
    expectError(await cmd('move_down', check.id), 422, 'QA_STEP_AT_EDGE');
    const removed = await cmd('remove', save.id);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body).toMatchObject({ removed: 3, step_count: 3, version: 4 });
    const after = await usecase('org.reorder');
    expect(summary(after)).toEqual(['1 click', '2 fill Acme', '3 assert']);
    expect(after.version).toBe(4);
    await cmd('remove', fill.id);
    await cmd('remove', check.id);
    expectError(await cmd('remove', click.id), 422, 'QA_USECASE_EMPTY');
    expect(summary(await usecase('org.reorder'))).toEqual(['1 click']);
  });

  it('over GraphQL the import, the moves, the removal and the gate answer their typed objects', async () => {
    const imported = await gqlOk(t, 'mutation($steps: JSON!) { qaUsecaseImport(usecase_key: "org.typed", module: "base", steps: $steps) { usecase { id key version module } step_count } }', { steps: STEPS }, { token: qa });
    expect(imported.qaUsecaseImport).toEqual({ usecase: { id: expect.any(String), key: 'org.typed', version: 1, module: 'base' }, step_count: 4 });
    const [, fill, save] = (await usecase('org.typed')).steps;
    const moved = await gqlOk(t, 'mutation($id: ID!) { qaUsecaseStepMoveDown(id: $id) { id sequence version } }', { id: fill.id }, { token: qa });
    expect(moved.qaUsecaseStepMoveDown).toEqual({ id: fill.id, sequence: 3, version: 2 });
    const back = await gqlOk(t, 'mutation($id: ID!) { qaUsecaseStepMoveUp(id: $id) { id sequence version } }', { id: fill.id }, { token: qa });
    expect(back.qaUsecaseStepMoveUp).toEqual({ id: fill.id, sequence: 2, version: 3 });
    const removed = await gqlOk(t, 'mutation($id: ID!) { qaUsecaseStepRemove(id: $id) { usecase_id removed step_count version } }', { id: save.id }, { token: qa });
    expect(removed.qaUsecaseStepRemove).toEqual({ usecase_id: imported.qaUsecaseImport.usecase.id, removed: 3, step_count: 3, version: 4 });
    const gate = await gqlOk(t, '{ qaGate(module: "base") { verdict module freshness_hours usecases { key status finished_at run_id reason stale } } }', {}, { token: qa });
    expect(gate.qaGate).toMatchObject({ verdict: 'no_runs', module: 'base' });
    expect(gate.qaGate.freshness_hours).toBeGreaterThan(0);
    expect(gate.qaGate.usecases).toContainEqual({ key: 'org.typed', status: 'never_run', finished_at: null, run_id: null, reason: 'no run yet', stale: false });
  });

  it('qa users and admins edit steps; any other role is refused', async () => {
    await t.createUser(admin, { email: 'plain@example.com', password: 'plain-pass-1234', role: 'user' });
    const plain = (await t.login('plain@example.com', 'plain-pass-1234')).access_token;
    const uc = await importUsecase('org.edit-roles');
    const fill = uc.steps[1];
    expectError(await t.request('PATCH', `/api/data/qa.usecase.step/${fill.id}`, { token: plain, body: { caption: 'Name it' } }), 403, 'ACCESS_DENIED');
    expectError(await t.request('POST', '/api/command/qa.usecase.step.remove', { token: plain, body: { id: fill.id } }), 403, 'ACCESS_DENIED');
    expect((await usecase('org.edit-roles')).version).toBe(1);
    expect((await t.request('PATCH', `/api/data/qa.usecase.step/${fill.id}`, { token: admin, body: { caption: 'Name it' } })).status).toBe(200);
    expect((await t.request('POST', '/api/command/qa.usecase.step.move_up', { token: admin, body: { id: fill.id } })).status).toBe(200);
    const after = await usecase('org.edit-roles');
    expect(after.version).toBe(3);
    expect(after.steps[0]).toMatchObject({ kind: 'fill', caption: 'Name it' });
  });
});
