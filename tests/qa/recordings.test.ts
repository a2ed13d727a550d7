/**
 * QA recordings through the API: a recording is live, gets steps (validated data, never code),
 * is finalised, then promoted (QA role only) into a use case with exactly those steps. The qa
 * role is checked like every other role; with ENABLE_QA_AUTOMATION off nothing of it exists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDeterministic, deterministicUuid } from '../../src/apps/qa/seed-deterministic.ts';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

const QA = { ACTIVE_MODULES: 'base,auth,presentation,connectors,storage', ENABLE_QA_AUTOMATION: 'true' };

const step = (o: Record<string, unknown> = {}) => ({
  kind: 'click', target: { candidates: [[{ by: 'testid', value: 'list-new' }], [{ by: 'role', value: 'button', name: 'New' }]] }, caption: 'Create a record', ...o,
});

let t: TestServer;
let admin: string;
let qa: string;
let plain: string;
beforeAll(async () => {
  t = await startTestServer(QA);
  admin = (await t.loginAdmin()).access_token;
  await t.createUser(admin, { email: 'qa@example.com', password: 'qa-pass-1234', role: 'qa' });
  await t.createUser(admin, { email: 'plain@example.com', password: 'plain-pass-1234', role: 'user' });
  qa = (await t.login('qa@example.com', 'qa-pass-1234')).access_token;
  plain = (await t.login('plain@example.com', 'plain-pass-1234')).access_token;
});
afterAll(async () => {
  await t?.close();
});

async function startRecording(token: string, key = 'org.create') {
  const res = await t.request('POST', '/api/qa/recordings', { token, body: { usecase_key: key, module: 'base', name: 'Create an organization', start_path: '/default/action-base.action_organizations' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

describe('a recorded step must point at an element', () => {
  it('a step whose only candidates are body or html is refused while recording (422 QA_LOCATOR_TOO_BROAD) and not stored; the same step on a control is taken', async () => {
    const id = await startRecording(qa, 'org.body-click');
    for (const candidates of [[[{ by: 'css', value: 'body' }, { by: 'nth', value: '0' }]], [[{ by: 'css', value: 'html' }], [{ by: 'css', value: 'body' }]], [[{ by: 'css', value: 'html > body' }]]]) {
      const res = await t.request('POST', `/api/qa/recordings/${id}/step`, { token: qa, body: step({ target: { candidates } }) });
      expectError(res, 422, 'QA_LOCATOR_TOO_BROAD');
      expect(res.body.error.message).toMatch(/points at the whole page/);
      expect(res.body.error.details.errors[0]).toMatchObject({ field: 'target', code: 'QA_LOCATOR_TOO_BROAD' });
    }
    expect((await t.request('GET', `/api/qa/recordings/${id}`, { token: qa })).body.steps).toEqual([]);
    // body among better candidates is fine: the replay tries them in order
    const ok = await t.request('POST', `/api/qa/recordings/${id}/step`, { token: qa, body: step({ target: { candidates: [[{ by: 'testid', value: 'search-groupby' }], [{ by: 'css', value: 'body' }]] } }) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    // an edit cannot turn a stored step into one on the page itself
    const edit = await t.request('PATCH', `/api/data/qa.recording.step/${ok.body.id}`, { token: qa, body: { target: { candidates: [[{ by: 'css', value: 'body' }]] } } });
    expectError(edit, 422, 'QA_LOCATOR_TOO_BROAD');
  });
});

describe('recording → finalised → promoted', () => {
  it('appends validated steps in order, finalises, and promotes them unchanged into a use case', async () => {
    const id = await startRecording(qa);
    const steps = [
      step(),
      { kind: 'fill', target: { candidates: [[{ by: 'label', value: 'Name' }]] }, value: { kind: 'literal', value: 'Acme' }, caption: 'Name it Acme' },
      { kind: 'fill', target: { candidates: [[{ by: 'label', value: 'Code' }]] }, value: { kind: 'variable', value: 'org_code' } },
      { kind: 'assert', target: { candidates: [[{ by: 'role', value: 'heading', name: 'Acme' }]] }, assertion: { kind: 'visible' }, screenshot: 'always' },
    ];
    for (const s of steps) expect((await t.request('POST', `/api/qa/recordings/${id}/step`, { token: qa, body: s })).status).toBe(201);
    const rec = await t.request('GET', `/api/qa/recordings/${id}`, { token: qa });
    expect(rec.body.status).toBe('live');
    expect(rec.body.steps.map((s: any) => [s.sequence, s.kind])).toEqual([[1, 'click'], [2, 'fill'], [3, 'fill'], [4, 'assert']]);
    expect((await t.request('POST', `/api/qa/recordings/${id}/finalize`, { token: qa })).body.status).toBe('finalised');
    expectError(await t.request('POST', `/api/qa/recordings/${id}/step`, { token: qa, body: step() }), 409, 'QA_RECORDING_NOT_LIVE');
    const promoted = await t.request('POST', `/api/qa/recordings/${id}/promote`, { token: qa, body: {} });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expect(promoted.body).toMatchObject({ key: 'org.create', module: 'base', source: 'recording', version: 1, step_count: 4 });
    const uc = await t.request('GET', '/api/qa/usecases/org.create', { token: qa });
    const strip = (s: any) => ({ kind: s.kind, target: s.target, value: s.value, assertion: s.assertion, caption: s.caption, screenshot: s.screenshot });
    expect(uc.body.steps.map(strip)).toEqual(rec.body.steps.map(strip));
    expect((await t.request('GET', `/api/qa/recordings/${id}`, { token: qa })).body).toMatchObject({ status: 'promoted', promoted_usecase_id: uc.body.id });
    // promoting again is refused; a new recording of the same key raises the version
    expectError(await t.request('POST', `/api/qa/recordings/${id}/promote`, { token: qa, body: {} }), 409, 'QA_RECORDING_NOT_FINALISED');
    const again = await startRecording(qa);
    await t.request('POST', `/api/qa/recordings/${again}/step`, { token: qa, body: step() });
    await t.request('POST', `/api/qa/recordings/${again}/finalize`, { token: qa });
    const v2 = await t.request('POST', `/api/qa/recordings/${again}/promote`, { token: qa, body: {} });
    expect(v2.body).toMatchObject({ version: 2, step_count: 1 });
  });

  it('a typed password is never stored: it becomes a masked secret', async () => {
    const id = await startRecording(qa, 'login.secret');
    const res = await t.request('POST', `/api/qa/recordings/${id}/step`, { token: qa, body: { kind: 'fill', target: { candidates: [[{ by: 'testid', value: 'login-password' }]] }, value: { kind: 'literal', value: 'hunter2-secret' } } });
    expect(res.status).toBe(201);
    expect(res.body.value).toEqual({ kind: 'secret', value: 'password' });
    expect(JSON.stringify((await t.request('GET', `/api/qa/recordings/${id}`, { token: qa })).body)).not.toContain('hunter2');
    // editing the step (the recorder adds captions this way) keeps it valid and masked
    const cap = await t.request('PATCH', `/api/data/qa.recording.step/${res.body.id}`, { token: qa, body: { caption: 'Type the password', value: { kind: 'literal', value: 'hunter3-secret' } } });
    expect(cap.status, JSON.stringify(cap.body)).toBe(200);
    expect(cap.body).toMatchObject({ caption: 'Type the password', value: { kind: 'secret', value: 'password' } });
    expectError(await t.request('PATCH', `/api/data/qa.recording.step/${res.body.id}`, { token: qa, body: { kind: 'eval' } }), 422, 'VALIDATION_FAILED');
    await t.request('POST', `/api/qa/recordings/${id}/finalize`, { token: qa });
    expectError(await t.request('PATCH', `/api/data/qa.recording.step/${res.body.id}`, { token: qa, body: { caption: 'late' } }), 409, 'QA_RECORDING_NOT_LIVE');
  });

  it('a literal filled into a field the recorder marked secret (a password input) is stored as a secret whatever its locators say, also when edited; a plain field keeps its literal', async () => {
    const id = await startRecording(qa, 'login.secret-anywhere');
    const target = { candidates: [[{ by: 'testid', value: 'input-pin' }], [{ by: 'css', value: '#field-7' }]], secret: true };
    const res = await t.request('POST', `/api/qa/recordings/${id}/step`, { token: qa, body: { kind: 'fill', target, value: { kind: 'literal', value: 'swordfish-1' } } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.value).toEqual({ kind: 'secret', value: 'password' });
    expect(res.body.target.secret).toBe(true);
    const edited = await t.request('PATCH', `/api/data/qa.recording.step/${res.body.id}`, { token: qa, body: { value: { kind: 'literal', value: 'swordfish-2' } } });
    expect(edited.body.value).toEqual({ kind: 'secret', value: 'password' });
    expect(JSON.stringify((await t.request('GET', `/api/qa/recordings/${id}`, { token: qa })).body)).not.toContain('swordfish');
    const plain = await t.request('POST', `/api/qa/recordings/${id}/step`, { token: qa, body: { kind: 'fill', target: { candidates: target.candidates }, value: { kind: 'literal', value: 'visible text' } } });
    expect(plain.body.value).toEqual({ kind: 'literal', value: 'visible text' });
    const bad = await t.request('POST', `/api/qa/recordings/${id}/step`, { token: qa, body: { kind: 'fill', target: { ...target, secret: 'yes' }, value: { kind: 'literal', value: 'x' } } });
    expectError(bad, 422, 'VALIDATION_FAILED');
  });
});

describe('a finalised recording is what gets promoted', () => {
  it('its steps cannot be deleted once it is finalised (a live one may drop a step)', async () => {
    const id = await startRecording(qa, 'frozen.steps');
    const add = async () => (await t.request('POST', `/api/qa/recordings/${id}/step`, { token: qa, body: step() })).body.id as string;
    const [a, b, c] = [await add(), await add(), await add()];
    // while live, a step recorded by mistake is dropped
    expect((await t.request('DELETE', `/api/data/qa.recording.step/${a}`, { token: qa })).status).toBe(200);
    await t.request('POST', `/api/qa/recordings/${id}/finalize`, { token: qa });
    for (const token of [qa, admin]) expectError(await t.request('DELETE', `/api/data/qa.recording.step/${b}`, { token }), 409, 'QA_RECORDING_NOT_LIVE');
    const promoted = await t.request('POST', `/api/qa/recordings/${id}/promote`, { token: qa, body: {} });
    expect(promoted.body).toMatchObject({ key: 'frozen.steps', step_count: 2 });
    expectError(await t.request('DELETE', `/api/data/qa.recording.step/${c}`, { token: qa }), 409, 'QA_RECORDING_NOT_LIVE');
    // the recording itself (with its steps) may still be deleted
    expect((await t.request('DELETE', `/api/data/qa.recording/${id}`, { token: qa })).status).toBe(200);
    expectError(await t.request('GET', `/api/qa/recordings/${id}`, { token: qa }), 404, 'RECORD_NOT_FOUND');
  });
});

describe('steps are data, checked', () => {
  it.each([
    [{ kind: 'eval', target: null }, 'kind'],
    [{ kind: 'click', target: undefined }, 'target'],
    [{ kind: 'click', target: { candidates: [[{ by: 'xpath', value: '//a' }]] } }, 'target.candidates[0][0]'],
    [{ kind: 'click', target: { candidates: [] } }, 'target'],
    [{ kind: 'fill', value: undefined }, 'value'],
    [{ kind: 'fill', value: { kind: 'code', value: 'process.exit()' } }, 'value'],
    [{ kind: 'fill', value: { kind: 'variable', value: 'not a name!' } }, 'value'],
    [{ kind: 'assert', assertion: { kind: 'text' } }, 'assertion'],
    [{ kind: 'assert', assertion: { kind: 'count', expected: 'two' } }, 'assertion'],
    [{ timeout_ms: 999_999 }, 'timeout_ms'],
    [{ screenshot: 'sometimes' }, 'screenshot'],
  ])('refuses %j with 422 naming %s', async (patch, field) => {
    const id = await startRecording(qa, `bad.${Math.random().toString(36).slice(2, 8)}`);
    const res = await t.request('POST', `/api/qa/recordings/${id}/step`, { token: qa, body: { ...step(), ...patch } });
    expectError(res, 422, 'VALIDATION_FAILED');
    expect(res.body.error.details.errors.map((e: any) => e.field)).toContain(field);
  });

  it('refuses an unknown module, a bad use-case key, finalising an empty recording, and an unknown recording', async () => {
    expectError(await t.request('POST', '/api/qa/recordings', { token: qa, body: { usecase_key: 'x', module: 'nope' } }), 422, 'VALIDATION_FAILED');
    expectError(await t.request('POST', '/api/qa/recordings', { token: qa, body: { usecase_key: 'Bad Key!', module: 'base' } }), 422, 'VALIDATION_FAILED');
    const id = await startRecording(qa, 'empty.one');
    expectError(await t.request('POST', `/api/qa/recordings/${id}/finalize`, { token: qa }), 422, 'QA_RECORDING_EMPTY');
    expectError(await t.request('POST', '/api/qa/recordings/00000000-0000-4000-8000-000000000000/step', { token: qa, body: step() }), 404, 'RECORD_NOT_FOUND');
  });
});

describe('roles', () => {
  it('only the qa role promotes; a plain user can neither record nor read recordings', async () => {
    const id = await startRecording(admin, 'admin.flow');
    await t.request('POST', `/api/qa/recordings/${id}/step`, { token: admin, body: step() });
    await t.request('POST', `/api/qa/recordings/${id}/finalize`, { token: admin });
    expectError(await t.request('POST', `/api/qa/recordings/${id}/promote`, { token: admin, body: {} }), 403, 'ACCESS_DENIED');
    expect((await t.request('POST', `/api/qa/recordings/${id}/promote`, { token: qa, body: {} })).status).toBe(200);
    expectError(await t.request('POST', '/api/qa/recordings', { token: plain, body: { usecase_key: 'x', module: 'base' } }), 403, 'ACCESS_DENIED');
    expectError(await t.request('GET', '/api/qa/recordings', { token: plain }), 403, 'ACCESS_DENIED');
    expect((await t.request('GET', '/api/qa/usecases', { token: plain })).status).toBe(200);
  });

  it('the same flow over GraphQL: start, append a step, finalise', async () => {
    const q = (query: string, variables: Record<string, unknown>) => t.request('POST', '/graphql', { token: qa, body: { query, variables } });
    const start = await q('mutation($k: String!) { qaRecordingStart(usecase_key: $k, module: "base") { id status } }', { k: 'gql.flow' });
    const id = start.body.data.qaRecordingStart.id;
    const add = await q('mutation($id: ID!, $t: JSON) { qaRecordingAppendStep(recording_id: $id, kind: "click", target: $t) { sequence kind } }', { id, t: step().target });
    expect(add.body.data.qaRecordingAppendStep).toEqual({ sequence: 1, kind: 'click' });
    const fin = await q('mutation($id: ID!) { qaRecordingFinalize(id: $id) { status } }', { id });
    expect(fin.body.data.qaRecordingFinalize.status).toBe('finalised');
  });
});

describe('recordings belong to the organization of the person who started them', () => {
  it('a qa user of another organization neither lists, reads, nor extends them (404 as a missing one); its steps follow it; admins see every one', async () => {
    const orgA = await t.createOrg(admin, 'QA Org A');
    const orgB = await t.createOrg(admin, 'QA Org B');
    await t.createUser(admin, { email: 'qa-a@example.com', password: 'qa-a-pass-1234', role: 'qa', organization: orgA });
    await t.createUser(admin, { email: 'qa-b@example.com', password: 'qa-b-pass-1234', role: 'qa', organization: orgB });
    const qaA = (await t.login('qa-a@example.com', 'qa-a-pass-1234')).access_token;
    const qaB = (await t.login('qa-b@example.com', 'qa-b-pass-1234')).access_token;
    const id = await startRecording(qaA, 'org.scoped');
    expect((await t.request('POST', `/api/qa/recordings/${id}/step`, { token: qaA, body: step() })).status).toBe(201);

    const mine = await t.request('GET', `/api/qa/recordings/${id}`, { token: qaA });
    expect(mine.body).toMatchObject({ organization_id: orgA });
    expect(mine.body.steps).toHaveLength(1);

    expectError(await t.request('GET', `/api/qa/recordings/${id}`, { token: qaB }), 404, 'RECORD_NOT_FOUND');
    expect((await t.request('GET', '/api/qa/recordings', { token: qaB })).body.items.map((r: any) => r.id)).not.toContain(id);
    const steps = await t.request('GET', `/api/data/qa.recording.step?filter=${encodeURIComponent(JSON.stringify([['recording_id', '=', id]]))}`, { token: qaB });
    expect(steps.body.items).toEqual([]);
    expectError(await t.request('POST', `/api/qa/recordings/${id}/step`, { token: qaB, body: step() }), 404, 'RECORD_NOT_FOUND');
    expectError(await t.request('POST', `/api/qa/recordings/${id}/finalize`, { token: qaB }), 404, 'RECORD_NOT_FOUND');

    expect((await t.request('GET', `/api/qa/recordings/${id}`, { token: admin })).body.steps).toHaveLength(1);
  });
});

describe('gate', () => {
  it('no use case or no run is no_runs; the API states the verdict per use case', async () => {
    const res = await t.request('GET', '/api/qa/gate?module=storage', { token: qa });
    expect(res.body).toMatchObject({ verdict: 'no_runs', module: 'storage', freshness_hours: 24, usecases: [] });
    const base = await t.request('GET', '/api/qa/gate?module=base&freshness_hours=2', { token: qa });
    expect(base.body.verdict).toBe('no_runs');
    expect(base.body.usecases.every((u: any) => u.status === 'never_run')).toBe(true);
    expectError(await t.request('GET', '/api/qa/gate?module=base&freshness_hours=0', { token: qa }), 422, 'VALIDATION_FAILED');
    expectError(await t.request('GET', '/api/qa/gate?module=base&freshness_hours=soon', { token: qa }), 400, 'VALIDATION_FAILED');
    expectError(await t.request('GET', '/api/qa/gate', { token: qa }), 400, 'VALIDATION_FAILED');
  });
});

describe('seedDeterministic', () => {
  it('derives the uuid from the model and the payload, so a rerun on a clean tenant gives the same uuid', async () => {
    const payload = { name: 'Seeded Org', code: 'seeded-org' };
    const a = await seedDeterministic(t.kernel, 'default', 'res.organization', payload);
    expect(a.id).toBe(deterministicUuid('res.organization', payload));
    expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // seeding the same row again returns it; key order does not matter
    const b = await seedDeterministic(t.kernel, 'default', 'res.organization', { code: 'seeded-org', name: 'Seeded Org' });
    expect(b.id).toBe(a.id);
    // a clean tenant gets the same uuid
    await t.provisionTenant('clean-one');
    const c = await seedDeterministic(t.kernel, 'clean-one', 'res.organization', payload);
    expect(c.id).toBe(a.id);
    expect(deterministicUuid('res.organization', { ...payload, name: 'Other' })).not.toBe(a.id);
  });
});

describe('ENABLE_QA_AUTOMATION off (the default)', () => {
  it('no QA model, route or GraphQL field exists', async () => {
    const off = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation' });
    try {
      const tok = (await off.loginAdmin()).access_token;
      expect((await off.request('GET', '/api/qa/recordings', { token: tok })).status).toBe(404);
      expect((await off.request('GET', '/api/data/qa.usecase', { token: tok })).body.error.code).toBe('UNKNOWN_MODEL');
      expect([...off.kernel.registry.commands.keys()].filter((c) => c.startsWith('qa.'))).toEqual([]);
    } finally {
      await off.close();
    }
  });
});
