import crypto from 'node:crypto';
import type { CommandDecl } from '../../kernel/app.js';
import { delegateOf } from '../../kernel/data/delegate.js';
import type { Delegate, Env } from '../../kernel/env.js';
import { BudgetExceeded } from './errors.js';
import { usdOf, type Price } from './prices.js';
import { aiSettings } from './settings.js';
import { utcDay } from './writes/canonical.js';

type Rec = Record<string, unknown>;

/**
 * What today's rows count against a cap: a reservation until settled, then the real spend.
 * Summed by the database (one row per status), not by reading every usage row of the day.
 */
async function chargedSum(rows: Delegate, where: Rec): Promise<number> {
  const groups = await rows.groupBy({ by: ['status'], where, _sum: { reserved_usd: true, usd: true } });
  return groups.reduce((n, g) => {
    const sum = (g._sum ?? {}) as Rec;
    return n + (Number(g.status === 'reserved' ? sum.reserved_usd : sum.usd) || 0);
  }, 0);
}

async function lockBudget(env: Env, day: string): Promise<void> {
  // SQLite runs a tenant's write transactions one at a time already
  if (env.provider !== 'postgresql') return;
  const key = `ai.budget:${day}`;
  await env.db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
}

/**
 * Reserves the worst case of one provider call (estimated input + the output it may produce)
 * before it is made, under the tenant's daily lock: the sum of today's reservations and settled
 * spend plus this call must stay within AI_DAILY_BUDGET_USD and the caller's `ai.user.quota`
 * (else AI_USER_DAILY_BUDGET_USD), so any number of concurrent calls cannot overshoot a cap.
 * When the remaining budget cannot hold the full `max_output_tokens`, the call is capped to the
 * output it can hold (returned as `max_output_tokens`, which the turn then asks of the provider);
 * it is refused only when not even `min_output_tokens` fit. A turn keeps one usage row: later
 * calls of the same turn add to its reservation.
 */
export const reserveCommand: CommandDecl = {
  name: 'ai.usage.reserve',
  internal: true,
  returns: 'json',
  description: 'Reserves budget for one provider call',
  handler: async (env, p) => {
    const day = utcDay();
    const price = p.price as Price;
    const input = Number(p.input_tokens);
    const wanted = Number(p.max_output_tokens);
    const minimum = Math.min(wanted, Math.max(1, Number(p.min_output_tokens ?? wanted)));
    await lockBudget(env, day);
    const rows = delegateOf(env.db, env.registry.model('ai.usage.log'));
    const s = aiSettings(env.settings);
    const user = env.principal.user_id;
    const caps: Cap[] = [];
    if (s.AI_DAILY_BUDGET_USD > 0) {
      caps.push({ scope: 'tenant', cap: s.AI_DAILY_BUDGET_USD, spent: await chargedSum(rows, { day }), message: `the tenant's daily AI budget of ${s.AI_DAILY_BUDGET_USD} USD is reached` });
    }
    if (user) {
      const quota = await delegateOf(env.db, env.registry.model('ai.user.quota')).findUnique({ where: { user_id: user } });
      // the user's own quota wins; without one, the default per-user cap applies
      const own = Number(quota?.daily_usd ?? 0);
      const cap = own > 0 ? own : s.AI_USER_DAILY_BUDGET_USD;
      if (cap > 0) caps.push({ scope: 'user', cap, spent: await chargedSum(rows, { day, principal_id: user }), message: `your daily AI quota of ${cap} USD is reached` });
    }
    // the first cap (tenant, then user) that cannot hold even the minimal answer refuses
    const least = usdOf(price, input, minimum);
    for (const c of caps) {
      if (c.spent + least > c.cap) throw new BudgetExceeded(c.message, { scope: c.scope, cap_usd: c.cap, spent_usd: round(c.spent), requested_usd: least, min_output_tokens: minimum });
    }
    const fits = (out: number) => caps.every((c) => c.spent + usdOf(price, input, out) <= c.cap);
    let output = wanted;
    if (!fits(output)) {
      output = Math.max(minimum, affordableOutput(price, input, wanted, caps));
      while (output > minimum && !fits(output)) output--; // rounding of usdOf
    }
    const amount = usdOf(price, input, output);
    if (typeof p.usage_id === 'string') {
      const row = await rows.findUnique({ where: { record_uuid: p.usage_id } });
      await rows.update({ where: { record_uuid: p.usage_id }, data: { status: 'reserved', reserved_usd: round(Number(row?.usd ?? 0) + amount) } });
      return { usage_id: p.usage_id, reserved_usd: amount, max_output_tokens: output };
    }
    const id = crypto.randomUUID();
    await rows.create({
      data: {
        record_uuid: id, day, tenant_id: env.tenant, principal_id: user, conversation_id: (p.conversation_id as string | null) ?? null,
        provider: String(p.provider), model: String(p.model), status: 'reserved', reserved_usd: amount, price_version: price.version,
      },
    });
    return { usage_id: id, reserved_usd: amount, max_output_tokens: output };
  },
};

interface Cap { scope: 'tenant' | 'user'; cap: number; spent: number; message: string }

/** The most output tokens (at most `wanted`) every cap can still hold after the input. */
function affordableOutput(price: Price, input: number, wanted: number, caps: Cap[]): number {
  const room = Math.min(...caps.map((c) => c.cap - c.spent)) - usdOf(price, input, 0);
  if (room < 0) return -1;
  if (price.output <= 0) return wanted;
  return Math.min(wanted, Math.floor((room * 1e6) / price.output));
}

/** How one provider call ended, as its usage row records it (`ai.usage.log.outcome`). */
export type CallOutcome = 'answered' | 'failed' | 'interrupted' | 'cancelled' | 'refused';

/**
 * What a settled call costs, and on what basis (`ai.usage.log.charge_basis`):
 * - usage the provider reported is charged as reported, however the call ended;
 * - a call that failed before any answer arrived (401, 5xx after the retries, a timeout, a
 *   refused connection), a call a guard refused, and a turn the person cancelled cost nothing
 *   beyond reported usage;
 * - a stream cut after part of an answer arrived, or an answer without a usage report, is
 *   charged its whole reservation: the provider has billed for work nobody can count.
 */
export function chargeOf(outcome: CallOutcome, usage: { input_tokens: number; output_tokens: number } | null): 'reported' | 'reservation' | 'nothing' {
  if (usage) return 'reported';
  return outcome === 'answered' || outcome === 'interrupted' ? 'reservation' : 'nothing';
}

/**
 * Settles a call: adds its real tokens and spend to the turn's row, with how the call ended
 * (`outcome`, `error_code`) and what it was charged on (`charge_basis`, see chargeOf).
 */
export const settleCommand: CommandDecl = {
  name: 'ai.usage.settle',
  internal: true,
  returns: 'json',
  description: 'Settles one provider call to its real usage',
  handler: async (env, p) => {
    const rows = delegateOf(env.db, env.registry.model('ai.usage.log'));
    const row = await rows.findUnique({ where: { record_uuid: String(p.usage_id) } });
    if (!row) return null;
    const price = p.price as Price;
    const usage = p.usage as { input_tokens: number; output_tokens: number } | null;
    const outcome = (p.outcome as CallOutcome | undefined) ?? 'answered';
    const basis = chargeOf(outcome, usage);
    const reserved = Number(p.reserved_usd) || 0;
    const usd = basis === 'reported' ? usdOf(price, usage!.input_tokens, usage!.output_tokens) : basis === 'reservation' ? reserved : 0;
    const tokens = basis === 'reported' ? usage! : basis === 'reservation'
      ? { input_tokens: Number(p.input_estimate ?? 0), output_tokens: Number(p.max_output_tokens ?? 0) }
      : { input_tokens: 0, output_tokens: 0 };
    await rows.update({
      where: { record_uuid: row.record_uuid },
      data: {
        status: 'settled', usd: round(Number(row.usd) + usd), reserved_usd: 0,
        input_tokens: Number(row.input_tokens) + tokens.input_tokens,
        output_tokens: Number(row.output_tokens) + tokens.output_tokens,
        latency_ms: Number(row.latency_ms) + Math.round(Number(p.latency_ms) || 0),
        outcome, charge_basis: basis, error_code: typeof p.error_code === 'string' ? p.error_code : null,
      },
    });
    return { usd, charge_basis: basis };
  },
};

const round = (n: number) => Math.round(n * 1e8) / 1e8;
