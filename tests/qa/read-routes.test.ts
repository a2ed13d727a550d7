/**
 * The QA read routes of the API: a run with its results and their steps (`/api/qa/runs/{id}`),
 * the screenshot of a step (`/api/qa/run-steps/{id}/screenshot`, served from QA_E2E_TRACE_DIR
 * only; the web client's image widget fetches it with the token), and promotion over GraphQL.
 * Rows are written as a replay writes them (system principal); no browser is needed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { expectError, startTestServer, type TestServer } from '../helpers/server.ts';

type Rec = Record<string, any>;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

let t: TestServer;
let traceDir: string;
let qa: string;
let plain: string;
let runId: string;
const stepIds: Record<string, string> = {};

beforeAll(async () => {
  traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-qa-routes-'));
  t = await startTestServer({ ACTIVE_MODULES: 'base,auth,presentation,connectors,storage', ENABLE_QA_AUTOMATION: 'true', QA_E2E_TRACE_DIR: traceDir });
  const admin = (await t.loginAdmin()).access_token;
  await t.createUser(admin, { email: 'qa@example.com', password: 'qa-pass-1234', role: 'qa' });
  await t.createUser(admin, { email: 'plain@example.com', password: 'plain-pass-1234', role: 'user' });
  qa = (await t.login('qa@example.com', 'qa-pass-1234')).access_token;
  plain = (await t.login('plain@example.com', 'plain-pass-1234')).access_token;

  const sys = systemPrincipal('default');
  const create = (model: string, values: Rec) => t.kernel.dispatch<Rec>('fw.create', { model, values }, sys);
  const run = await create('qa.run', { sandbox_tenant: 'qa-sandbox', status: 'failed', usecase_count: 1, passed_count: 0, failed_count: 1, trace_path: 'x.zip' });
  runId = run.id;
  // a use case of the whole tenant (imported by the system), as replays record results of theirs
  const usecase = await t.kernel.dispatch<Rec>('qa.usecase.import', { usecase_key: 'org.create', module: 'base', steps: [{ kind: 'click', target: { candidates: [[{ by: 'testid', value: 'list-new' }]] } }] }, sys);
  const result = await create('qa.run.result', { run_id: runId, usecase_id: usecase.id, usecase_key: 'org.create', module: 'base', status: 'failed', failed_step: 2, error: 'step 2 failed' });
  fs.mkdirSync(path.join(traceDir, runId, 'org.create'), { recursive: true });
  fs.writeFileSync(path.join(traceDir, runId, 'org.create', '002-fill.png'), PNG);
  fs.writeFileSync(path.join(path.dirname(traceDir), `${path.basename(traceDir)}-outside.png`), PNG);
  const steps: Array<[string, Rec]> = [
    ['passed', { sequence: 1, kind: 'click', status: 'passed', screenshot_path: null }],
    ['failed', {
      sequence: 2, kind: 'fill', status: 'failed', error: "no locator matched — tried #1 getByLabel('Workspace slug'): no match",
      tried_locators: [{ candidate: 0, chain: "getByLabel('Workspace slug')", reason: 'no match', count: 0 }], screenshot_path: `${runId}/org.create/002-fill.png`,
    }],
    ['outside', { sequence: 3, kind: 'click', status: 'skipped', screenshot_path: `../${path.basename(traceDir)}-outside.png` }],
  ];
  for (const [name, values] of steps) stepIds[name] = (await create('qa.run.step', { result_id: result.id, ...values })).id;
});
afterAll(async () => {
  await t?.close();
  if (traceDir) {
    fs.rmSync(traceDir, { recursive: true, force: true });
    fs.rmSync(`${traceDir}-outside.png`, { force: true });
  }
});

describe('QA read routes', () => {
  it('GET /api/qa/runs lists runs; /api/qa/runs/{id} has its results, each with its steps in order', async () => {
    const list = await t.request('GET', '/api/qa/runs', { token: plain });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.items.map((r: Rec) => r.id)).toEqual([runId]);
    const one = await t.request('GET', `/api/qa/runs/${runId}`, { token: plain });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: runId, status: 'failed', results: [{ usecase_key: 'org.create', status: 'failed', failed_step: 2 }] });
    const steps = one.body.results[0].steps;
    expect(steps.map((s: Rec) => [s.sequence, s.status])).toEqual([[1, 'passed'], [2, 'failed'], [3, 'skipped']]);
    expect(steps[1].tried_locators[0]).toMatchObject({ chain: "getByLabel('Workspace slug')", reason: 'no match' });
    expectError(await t.request('GET', '/api/qa/runs/00000000-0000-4000-8000-000000000000', { token: plain }), 404, 'RECORD_NOT_FOUND');
  });

  it('GET /api/qa/run-steps/{id}/screenshot serves the failed step\'s PNG, and nothing outside QA_E2E_TRACE_DIR', async () => {
    const shot = await t.request('GET', `/api/qa/run-steps/${stepIds.failed}/screenshot`, { token: qa });
    expect(shot.status).toBe(200);
    expect(shot.headers['content-type']).toBe('image/png');
    expect(String(shot.body).slice(1, 4)).toBe('PNG');
    expectError(await t.request('GET', `/api/qa/run-steps/${stepIds.passed}/screenshot`, { token: qa }), 404, 'QA_SCREENSHOT_NOT_FOUND');
    expectError(await t.request('GET', `/api/qa/run-steps/${stepIds.outside}/screenshot`, { token: qa }), 404, 'QA_SCREENSHOT_NOT_FOUND');
    expect((await t.request('GET', `/api/qa/run-steps/${stepIds.failed}/screenshot`)).status).toBe(401);
  });

  it('promotes over GraphQL (qa role), and refuses another role there too', async () => {
    const gql = (token: string, query: string, variables: Rec) => t.request('POST', '/graphql', { token, body: { query, variables } });
    const id = (await gql(qa, 'mutation { qaRecordingStart(usecase_key: "gql.promote", module: "base") { id } }', {})).body.data.qaRecordingStart.id;
    await gql(qa, 'mutation($id: ID!, $t: JSON) { qaRecordingAppendStep(recording_id: $id, kind: "click", target: $t) { sequence } }', { id, t: { candidates: [[{ by: 'testid', value: 'new-record' }]] } });
    await gql(qa, 'mutation($id: ID!) { qaRecordingFinalize(id: $id) { status } }', { id });
    const admin = (await t.loginAdmin()).access_token;
    const refused = await gql(admin, 'mutation($id: ID!) { qaRecordingPromote(id: $id) { step_count } }', { id });
    expect(refused.body.errors?.[0]?.extensions?.code, JSON.stringify(refused.body)).toBe('ACCESS_DENIED');
    // typed: the use case as its model's type, the step count beside it
    const promoted = await gql(qa, 'mutation($id: ID!) { qaRecordingPromote(id: $id) { usecase { key source version module } step_count } }', { id });
    expect(promoted.body.errors, JSON.stringify(promoted.body.errors)).toBeUndefined();
    expect(promoted.body.data.qaRecordingPromote).toEqual({ usecase: { key: 'gql.promote', source: 'recording', version: 1, module: 'base' }, step_count: 1 });
  });
});
