/**
 * Honest billing of failed provider calls (issue 32, item 7): a call that produced nothing (401,
 * 500 after the retries, a timeout, a refused connection) costs nothing, or exactly what the
 * provider reported; the usage row says how the call ended (`outcome`, `error_code`) and what it
 * was charged on (`charge_basis`). Prices are 1 USD per token so figures read easily.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargeOf } from '../../src/apps/ai/budget.ts';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { expectError } from '../helpers/server.ts';
import { freePort } from '../helpers/team-project.ts';
import { startAiServer, TENANT_KEY, type AiServer } from './helpers/ai-server.ts';
import { errorStep, textStep } from './helpers/scripted-llm.ts';

const PER_TOKEN = { input_usd_per_mtok: 1_000_000, output_usd_per_mtok: 1_000_000 };
const FAST_RETRY = { 'retry-after-ms': '5' };

async function rowOf(t: AiServer, user: string) {
  const db = await t.kernel.tenants.get('default');
  const rows = await delegateOf(db, t.kernel.registry.model('ai.usage.log')).findMany({ where: { principal_id: user } });
  expect(rows).toHaveLength(1);
  return rows[0];
}

describe('a failed provider call is charged only what it produced', () => {
  let t: AiServer;
  beforeAll(async () => {
    t = await startAiServer(
      { AI_MAX_OUTPUT_TOKENS: '1024', AI_DAILY_BUDGET_USD: '0', AI_USER_DAILY_BUDGET_USD: '0', AI_PROVIDER_TIMEOUT_MS: '400', AI_PROVIDER_MAX_RETRIES: '1' },
      { config: PER_TOKEN },
    );
  });
  afterAll(async () => {
    await t?.stop();
  });

  /** One turn by a new user against the queued steps; returns the response and the user's usage row. */
  async function failedTurn(label: string) {
    const u = await t.user(label);
    const res = await t.say(u.token, await t.conversation(u.token), 'tell me');
    return { res, row: await rowOf(t, u.id) };
  }

  it('a 401 from the provider costs nothing: the row says failed, AI_PROVIDER_AUTH_FAILED, charged nothing', async () => {
    t.llm.push(errorStep(401, { message: 'Incorrect API key provided' }));
    const { res, row } = await failedTurn('auth');
    expectError(res, 502, 'AI_PROVIDER_AUTH_FAILED');
    expect(row).toMatchObject({ status: 'settled', outcome: 'failed', charge_basis: 'nothing', error_code: 'AI_PROVIDER_AUTH_FAILED', input_tokens: 0, output_tokens: 0 });
    expect(Number(row.usd)).toBe(0);
    expect(Number(row.reserved_usd)).toBe(0);
  });

  it('a 500 on every attempt (after the retries) costs nothing: the row says failed, AI_PROVIDER_UNAVAILABLE', async () => {
    const before = t.llm.requests.length;
    t.llm.push(errorStep(500, { headers: FAST_RETRY }), errorStep(500, { headers: FAST_RETRY }));
    const { res, row } = await failedTurn('down');
    expectError(res, 502, 'AI_PROVIDER_UNAVAILABLE');
    expect(t.llm.requests.length - before).toBe(2); // the retry happened
    expect(row).toMatchObject({ outcome: 'failed', charge_basis: 'nothing', error_code: 'AI_PROVIDER_UNAVAILABLE', output_tokens: 0 });
    expect(Number(row.usd)).toBe(0);
  });

  it('a timeout before any answer costs nothing: the row says failed, AI_PROVIDER_UNAVAILABLE', async () => {
    t.llm.push(textStep('too late', { delayMs: 2_000 }), textStep('too late', { delayMs: 2_000 }));
    const { res, row } = await failedTurn('slow');
    expectError(res, 502, 'AI_PROVIDER_UNAVAILABLE');
    expect(res.body.error.message).toMatch(/did not answer within 400 ms/);
    expect(row).toMatchObject({ outcome: 'failed', charge_basis: 'nothing', error_code: 'AI_PROVIDER_UNAVAILABLE' });
    expect(Number(row.usd)).toBe(0);
  });

  it('a stream that ends before any text or tool call costs nothing', async () => {
    // the first event (the assistant role, empty content) arrives, then the socket is cut
    t.llm.push(textStep('never said', { cutAfter: 1 }));
    const { res, row } = await failedTurn('empty');
    expectError(res, 502, 'AI_PROVIDER_UNAVAILABLE');
    expect(row).toMatchObject({ outcome: 'failed', charge_basis: 'nothing' });
    expect(Number(row.usd)).toBe(0);
  });

  it('a stream cut after part of an answer, with no usage report, is charged its reservation and says interrupted', async () => {
    t.llm.push(textStep('a long answer that never ends', { cutAfter: 2, pieces: 6 }));
    const { res, row } = await failedTurn('cut');
    expectError(res, 502, 'AI_PROVIDER_UNAVAILABLE');
    expect(row).toMatchObject({ outcome: 'interrupted', charge_basis: 'reservation', error_code: 'AI_PROVIDER_UNAVAILABLE', output_tokens: 1024 });
    expect(Number(row.usd)).toBe(Number(row.input_tokens) + 1024);
  });

  it('a failed call whose usage the provider reported is charged exactly that usage', async () => {
    // the usage chunk arrives, then the socket is cut before [DONE]; the answer never completes
    t.llm.push(textStep('abc', { pieces: 1, usage: { prompt_tokens: 40, completion_tokens: 3 }, cutAfter: 4, finish_reason: 'stop' }));
    const u = await t.user('reported');
    const res = await t.say(u.token, await t.conversation(u.token), 'tell me');
    const row = await rowOf(t, u.id);
    // whether the SDK treats the missing [DONE] as the end or as a cut, the charge is what was reported
    expect(row).toMatchObject({ charge_basis: 'reported', input_tokens: 40, output_tokens: 3 });
    expect(Number(row.usd)).toBe(43);
    if (res.status !== 200) expect(row).toMatchObject({ outcome: 'interrupted', error_code: res.body.error.code });
  });

  it('a refused connection costs nothing: the row says failed, AI_PROVIDER_UNAVAILABLE (runs last: it moves the endpoint)', async () => {
    const id = (await t.request('GET', '/api/data/ai.provider.config', { token: t.admin })).body.items[0].id as string;
    const closed = await freePort();
    const moved = await t.request('PATCH', `/api/data/ai.provider.config/${id}`, { token: t.admin, body: { base_url: `http://127.0.0.1:${closed}/v1`, api_key: TENANT_KEY } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const { res, row } = await failedTurn('refused');
    expectError(res, 502, 'AI_PROVIDER_UNAVAILABLE');
    expect(res.body.error.message).toMatch(/could not be reached/);
    expect(row).toMatchObject({ outcome: 'failed', charge_basis: 'nothing', error_code: 'AI_PROVIDER_UNAVAILABLE' });
    expect(Number(row.usd)).toBe(0);
  });
});

describe('the charge rule', () => {
  it('reported usage always wins; without it an answer or a cut stream is charged its reservation; a failure, a refusal or a cancellation nothing', () => {
    const usage = { input_tokens: 1, output_tokens: 1 };
    for (const o of ['answered', 'failed', 'interrupted', 'cancelled', 'refused'] as const) expect(chargeOf(o, usage)).toBe('reported');
    expect(chargeOf('answered', null)).toBe('reservation');
    expect(chargeOf('interrupted', null)).toBe('reservation');
    expect(chargeOf('failed', null)).toBe('nothing');
    expect(chargeOf('cancelled', null)).toBe('nothing');
    expect(chargeOf('refused', null)).toBe('nothing');
  });
});
