/**
 * Money: every provider call reserves its worst case (estimated input + AI_MAX_OUTPUT_TOKENS)
 * under the tenant's daily lock before it is made, and settles to the real usage after, so
 * concurrent calls never overshoot AI_DAILY_BUDGET_USD or a user's quota. Prices here are
 * 1 USD per token (the tenant's provider config), so figures are easy to read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegateOf } from '../../src/kernel/data/delegate.ts';
import { expectError, type Provider } from '../helpers/server.ts';
import { startAiServer, type AiServer } from './helpers/ai-server.ts';
import { textStep } from './helpers/scripted-llm.ts';

const PER_TOKEN = { input_usd_per_mtok: 1_000_000, output_usd_per_mtok: 1_000_000 };
const usage = { prompt_tokens: 100, completion_tokens: 5 };

async function usageRows(t: AiServer) {
  const db = await t.kernel.tenants.get('default');
  return delegateOf(db, t.kernel.registry.model('ai.usage.log')).findMany({});
}

for (const provider of ['sqlite', 'postgresql'] as Provider[]) {
  describe(`the daily budget under 50 concurrent calls (${provider})`, () => {
    let t: AiServer;
    const BUDGET = 6000;
    beforeAll(async () => {
      // one admin makes every call: the default per-user cap is off so the tenant cap binds
      t = await startAiServer({ AI_DAILY_BUDGET_USD: String(BUDGET), AI_USER_DAILY_BUDGET_USD: '0', AI_MAX_OUTPUT_TOKENS: '10' },
        { provider, config: PER_TOKEN, llm: { respond: () => textStep('ok', { usage }), record: false } });
    });
    afterAll(async () => {
      await t?.stop();
    });

    it('never overshoots the cap: calls past it get BUDGET_EXCEEDED (429) and nothing is charged for them', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) =>
        t.request('POST', '/api/ai/invoke', { token: t.admin, body: { prompt: `question ${i}` } })));
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status !== 200);
      for (const r of refused) expectError(r, 429, 'BUDGET_EXCEEDED');
      expect(ok.length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      const rows = await usageRows(t);
      const spent = rows.reduce((n, r) => n + Number(r.usd), 0);
      expect(rows.every((r) => r.status === 'settled')).toBe(true);
      expect(spent).toBeLessThanOrEqual(BUDGET);
      // each successful call was charged its real usage (105 tokens at 1 USD), not its reservation
      expect(spent).toBe(ok.length * 105);
      expect(refused[0].body.error.details).toMatchObject({ scope: 'tenant', cap_usd: BUDGET });
    });
  });
}

describe('reservations and quotas', () => {
  let t: AiServer;
  beforeAll(async () => {
    // at 1 USD a token the default caps would refuse every call: they are tested in defaults.test.ts
    t = await startAiServer({ AI_MAX_OUTPUT_TOKENS: '10', AI_DAILY_BUDGET_USD: '0', AI_USER_DAILY_BUDGET_USD: '0' }, { config: PER_TOKEN });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('an interrupted stream is charged its whole reservation', async () => {
    const u = await t.user('cut');
    t.llm.push(textStep('a long answer that never ends', { cutAfter: 2, pieces: 6 }));
    const conv = await t.conversation(u.token);
    const res = await t.say(u.token, conv, 'tell me');
    expectError(res, 502, 'AI_PROVIDER_UNAVAILABLE');
    const [row] = (await usageRows(t)).filter((r) => r.principal_id === u.id);
    expect(row.status).toBe('settled');
    expect(Number(row.usd)).toBeGreaterThan(10);
    expect(Number(row.usd)).toBe(Number(row.input_tokens) + Number(row.output_tokens));
    expect(Number(row.output_tokens)).toBe(10);
  });

  it('a user\'s ai.user.quota binds on top of the tenant budget', async () => {
    const u = await t.user('quota');
    const q = await t.request('POST', '/api/data/ai.user.quota', { token: t.admin, body: { user_id: u.id, daily_usd: 1 } });
    expect(q.status, JSON.stringify(q.body)).toBe(201);
    const conv = await t.conversation(u.token);
    const res = await t.say(u.token, conv, 'hello');
    expectError(res, 429, 'BUDGET_EXCEEDED');
    expect(res.body.error.details).toMatchObject({ scope: 'user', cap_usd: 1 });
    // nothing was sent to the provider, and the refused call left no charge
    const rows = (await usageRows(t)).filter((r) => r.principal_id === u.id);
    expect(rows.reduce((n, r) => n + Number(r.usd) + Number(r.reserved_usd), 0)).toBe(0);
  });

  it('a usage row stores tokens, USD, the price version, latency, conversation, principal and tenant', async () => {
    const u = await t.user('row');
    t.llm.push(textStep('fine', { usage: { prompt_tokens: 30, completion_tokens: 2 } }));
    const conv = await t.conversation(u.token);
    expect((await t.say(u.token, conv, 'hi')).status).toBe(200);
    const [row] = (await usageRows(t)).filter((r) => r.principal_id === u.id);
    expect(row).toMatchObject({ conversation_id: conv, tenant_id: 'default', provider: 'provider_a', model: 'test-model', input_tokens: 30, output_tokens: 2, status: 'settled' });
    expect(Number(row.usd)).toBe(32);
    expect(String(row.price_version)).toMatch(/^config:provider_a@\d+$/);
    expect(Number(row.latency_ms)).toBeGreaterThanOrEqual(0);
  });
});

/**
 * A small quota caps the answer instead of refusing the turn (issue 32, item 8). Input is free
 * here and output costs 1 USD a token, so the remaining budget reads as the output it can hold.
 */
describe('near a cap the call asks for the output the budget still holds', () => {
  let t: AiServer;
  const OUTPUT_ONLY = { input_usd_per_mtok: 0, output_usd_per_mtok: 1_000_000 };
  beforeAll(async () => {
    t = await startAiServer({ AI_MAX_OUTPUT_TOKENS: '1000', AI_MIN_OUTPUT_TOKENS: '50', AI_DAILY_BUDGET_USD: '0', AI_USER_DAILY_BUDGET_USD: '0' }, { config: OUTPUT_ONLY });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('a reservation larger than what the quota has left is capped: max_tokens is what the budget holds, and the answer is flagged', async () => {
    const u = await t.user('small');
    expect((await t.request('POST', '/api/data/ai.user.quota', { token: t.admin, body: { user_id: u.id, daily_usd: 300 } })).status).toBe(201);
    const conv = await t.conversation(u.token);
    t.llm.push(textStep('short', { usage: { prompt_tokens: 500, completion_tokens: 200 } }));
    const first = await t.say(u.token, conv, 'hello');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(t.llm.requests.at(-1)!.body.max_tokens).toBe(300);
    const answer = first.body.messages.find((m: { role: string }) => m.role === 'assistant');
    expect(answer.flags).toEqual([{ guard: 'budget', max_output_tokens: 300, finish_reason: 'stop' }]);
    // 200 spent: the next call holds 100, still over the minimal answer
    t.llm.push(textStep('shorter', { usage: { prompt_tokens: 500, completion_tokens: 40 } }));
    expect((await t.say(u.token, conv, 'again')).status).toBe(200);
    expect(t.llm.requests.at(-1)!.body.max_tokens).toBe(100);
  });

  it('a turn is refused (429 BUDGET_EXCEEDED, with min_output_tokens) only when not even AI_MIN_OUTPUT_TOKENS fit, and nothing is sent', async () => {
    const u = await t.user('tiny');
    expect((await t.request('POST', '/api/data/ai.user.quota', { token: t.admin, body: { user_id: u.id, daily_usd: 49 } })).status).toBe(201);
    const sent = t.llm.requests.length;
    const res = await t.say(u.token, await t.conversation(u.token), 'hello');
    expectError(res, 429, 'BUDGET_EXCEEDED');
    expect(res.body.error.details).toMatchObject({ scope: 'user', cap_usd: 49, spent_usd: 0, min_output_tokens: 50, requested_usd: 50 });
    expect(t.llm.requests.length).toBe(sent);
  });

  it('a call with room for the full AI_MAX_OUTPUT_TOKENS asks for all of them and carries no budget flag', async () => {
    const u = await t.user('roomy');
    t.llm.push(textStep('plenty', { usage: { prompt_tokens: 5, completion_tokens: 5 } }));
    const res = await t.say(u.token, await t.conversation(u.token), 'hello');
    expect(res.status).toBe(200);
    expect(t.llm.requests.at(-1)!.body.max_tokens).toBe(1000);
    expect(res.body.messages.find((m: { role: string }) => m.role === 'assistant').flags).toBeNull();
  });
});

describe('the minimal answer setting', () => {
  it('AI_MIN_OUTPUT_TOKENS below 1 stops the boot (BOOT_ERROR naming the setting)', async () => {
    const { loadSettings } = await import('../../src/kernel/settings.ts');
    const { aiSettings } = await import('../../src/apps/ai/settings.ts');
    expect(() => aiSettings(loadSettings({ AI_MIN_OUTPUT_TOKENS: '0' }))).toThrow(/AI_MIN_OUTPUT_TOKENS="0" must be at least 1/);
    expect(aiSettings(loadSettings({})).AI_MIN_OUTPUT_TOKENS).toBe(128);
  });
});

describe('the tenant budget caps the answer the same way', () => {
  let t: AiServer;
  beforeAll(async () => {
    t = await startAiServer({ AI_MAX_OUTPUT_TOKENS: '1000', AI_MIN_OUTPUT_TOKENS: '50', AI_DAILY_BUDGET_USD: '120', AI_USER_DAILY_BUDGET_USD: '0' },
      { config: { input_usd_per_mtok: 0, output_usd_per_mtok: 1_000_000 } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('120 USD left caps max_tokens at 120; with 30 left the turn is refused with scope tenant', async () => {
    const u = await t.user('tenant');
    const conv = await t.conversation(u.token);
    t.llm.push(textStep('ok', { usage: { prompt_tokens: 1, completion_tokens: 90 } }));
    expect((await t.say(u.token, conv, 'hello')).status).toBe(200);
    expect(t.llm.requests.at(-1)!.body.max_tokens).toBe(120);
    const res = await t.say(u.token, conv, 'again');
    expectError(res, 429, 'BUDGET_EXCEEDED');
    expect(res.body.error.details).toMatchObject({ scope: 'tenant', cap_usd: 120, spent_usd: 90, min_output_tokens: 50 });
  });
});

describe('prices', () => {
  it('come from a versioned table; an unknown model is priced high, not free; a tenant\'s config prices win with their own version', async () => {
    const { PRICE_TABLE, priceOf, usdOf } = await import('../../src/apps/ai/prices.ts');
    expect(priceOf('gpt-4o-mini')).toEqual({ ...PRICE_TABLE.models['gpt-4o-mini'], version: PRICE_TABLE.version });
    const unknown = priceOf('some-new-model');
    expect(unknown.version).toBe(`${PRICE_TABLE.version}:fallback`);
    expect(unknown.input).toBeGreaterThanOrEqual(Math.max(...Object.values(PRICE_TABLE.models).map((p) => p.input)));
    expect(priceOf('gpt-4o-mini', { input: 1, output: 2, version: 'config:provider_a@3' })).toEqual({ input: 1, output: 2, version: 'config:provider_a@3' });
    // half-filled config prices fall back to the table
    expect(priceOf('gpt-4o-mini', { input: 1, output: null, version: 'config:provider_a@4' }).version).toBe(PRICE_TABLE.version);
    expect(usdOf({ input: 0.15, output: 0.6, version: 'v' }, 1_000_000, 1_000_000)).toBe(0.75);
  });
});
