import type { HookContext, HookDecl } from '../../kernel/app.js';
import type { Env } from '../../kernel/env.js';
import { delegateOf } from '../../kernel/data/delegate.js';
import { FwError } from '../../kernel/errors.js';
import { kernelOf } from './context.js';
import { InjectionDetected, PiiBlocked, SafetyRuleBlocked } from './errors.js';
import { findPii, maskPii } from './guards/pii.js';
import { scoreInjection } from './guards/injection.js';
import { validateAgainst } from './guards/output.js';
import type { ChatMessage } from './provider/index.js';
import type { Price } from './prices.js';
import { aiSettings } from './settings.js';

/** What `pre.ai.invocation` / `post.ai.invocation` hooks see and may change (one provider call). */
export interface InvocationPayload {
  conversation_id: string | null;
  skill_pack_id: string | null;
  provider: string;
  model: string;
  price: Price;
  /** The messages about to be sent; guards may rewrite them (PII masking). */
  messages: ChatMessage[];
  /** Index of the first message of this turn not yet checked by the guards. */
  checked_from: number;
  tool_count: number;
  input_estimate: number;
  /** Output tokens asked of the provider; the budget hook may lower it to what the budget holds. */
  max_output_tokens: number;
  /** The turn's usage row, set by the budget hook (reused by later calls of the turn). */
  usage_id: string | null;
  reserved_usd: number;
  /** Guards that fired without blocking, stored on the message (`ai.message.flags`). */
  flags: Array<Record<string, unknown>>;
  /** Post hooks: the answer and its usage. */
  answer?: ChatMessage;
  usage?: { input_tokens: number; output_tokens: number } | null;
  latency_ms?: number;
  answer_schema?: Record<string, unknown> | null;
}

const inv = (ctx: HookContext) => ctx.payload as unknown as InvocationPayload;
/** The user's new text of this turn (tool results are checked where they come back, in turn.ts). */
const fresh = (p: InvocationPayload) => p.messages.slice(p.checked_from).filter((m) => m.role === 'user' && m.content);

/** 1. Budget: reserve the call's worst case before it is made, capping its output near a cap (BudgetExceeded when not even a minimal answer fits). */
async function budget(ctx: HookContext): Promise<void> {
  const p = inv(ctx);
  const r = await kernelOf(ctx.env.registry).dispatch<{ usage_id: string; reserved_usd: number; max_output_tokens: number }>('ai.usage.reserve', {
    usage_id: p.usage_id, conversation_id: p.conversation_id, provider: p.provider, model: p.model, price: p.price,
    input_tokens: p.input_estimate, max_output_tokens: p.max_output_tokens, min_output_tokens: aiSettings(ctx.env.settings).AI_MIN_OUTPUT_TOKENS,
  }, ctx.env.principal);
  p.usage_id = r.usage_id;
  p.reserved_usd = r.reserved_usd;
  // near a cap the call asks for what the budget still holds (budget.ts)
  p.max_output_tokens = r.max_output_tokens;
}

/** 2. PII: `strict` blocks, `mask` rewrites what is sent (and stored), `warn` flags it. */
async function pii(ctx: HookContext): Promise<void> {
  const s = aiSettings(ctx.env.settings);
  if (!s.AI_PII_REDACTION_ENABLED) return;
  const p = inv(ctx);
  for (const m of fresh(p)) {
    const found = findPii(m.content!);
    if (!found.length) continue;
    const kinds = [...new Set(found.map((f) => f.kind))];
    if (s.AI_PII_REDACTION_MODE === 'strict') {
      throw new PiiBlocked(`the message contains personal data (${kinds.join(', ')}); remove it and try again`, { kinds, mode: 'strict' });
    }
    if (s.AI_PII_REDACTION_MODE === 'mask') m.content = maskPii(m.content!, found);
    else kernelOf(ctx.env.registry).log('warn', 'AI input contains personal data', { kinds, conversation: p.conversation_id });
    p.flags.push({ guard: 'pii', mode: s.AI_PII_REDACTION_MODE, kinds });
  }
}

/** 3. The tenant's own `ai.safety_rule` patterns on input. */
async function safetyRules(ctx: HookContext): Promise<void> {
  const p = inv(ctx);
  const items = fresh(p);
  if (!items.length) return;
  const rules = await loadSafetyRules(ctx.env, 'input');
  for (const m of items) {
    const r = applyRules(rules, m.content!, 'input');
    m.content = r.text;
    p.flags.push(...r.flags);
  }
}

export interface SafetyRule { name: string; re: RegExp; action: string }

/** The tenant's active rules for one kind of text, compiled (a pattern that does not compile is skipped). */
export async function loadSafetyRules(env: Env, target: 'input' | 'tool_result'): Promise<SafetyRule[]> {
  const rows = await delegateOf(env.db, env.registry.model('ai.safety_rule')).findMany({ where: { is_active: true, applies_to: target }, orderBy: { sequence: 'asc' } });
  const out: SafetyRule[] = [];
  for (const r of rows) {
    try { out.push({ name: String(r.name), re: new RegExp(String(r.pattern), 'gi'), action: String(r.action) }); } catch { /* not a valid pattern */ }
  }
  return out;
}

/**
 * Applies safety rules to one text: `block` refuses (input) or is reported as `blocked` (tool
 * results, which the turn then withholds), `mask` rewrites, `warn` flags.
 */
export function applyRules(rules: SafetyRule[], text: string, target: 'input' | 'tool_result'): { text: string; flags: Array<Record<string, unknown>>; blocked: boolean } {
  const flags: Array<Record<string, unknown>> = [];
  let out = text;
  for (const rule of rules) {
    rule.re.lastIndex = 0;
    if (!rule.re.test(out)) continue;
    rule.re.lastIndex = 0;
    if (rule.action === 'block') {
      if (target === 'input') throw new SafetyRuleBlocked(`blocked by the safety rule "${rule.name}"`, { rule: rule.name });
      return { text: out, flags: [...flags, { guard: 'safety_rule', rule: rule.name, action: 'block' }], blocked: true };
    }
    if (rule.action === 'mask') out = out.replace(rule.re, '[masked]');
    flags.push({ guard: 'safety_rule', rule: rule.name, action: rule.action });
  }
  return { text: out, flags, blocked: false };
}

/** 4. Prompt injection: a score at or over the threshold refuses the call. */
async function injection(ctx: HookContext): Promise<void> {
  const s = aiSettings(ctx.env.settings);
  if (!s.AI_INJECTION_DETECTION_ENABLED) return;
  const p = inv(ctx);
  for (const m of fresh(p).filter((x) => x.role === 'user')) {
    const r = scoreInjection(m.content!);
    if (r.score >= s.AI_INJECTION_DETECTION_THRESHOLD) {
      throw new InjectionDetected(`the message looks like a prompt injection (score ${r.score} of 100, threshold ${s.AI_INJECTION_DETECTION_THRESHOLD})`, { score: r.score, signals: r.signals.map((x) => x.id) });
    }
    if (r.score > 0) p.flags.push({ guard: 'injection', score: r.score });
  }
}

/** Post 1: settle the reservation to the real usage. */
async function settle(ctx: HookContext): Promise<void> {
  const p = inv(ctx);
  if (!p.usage_id) return;
  await kernelOf(ctx.env.registry).dispatch('ai.usage.settle', {
    usage_id: p.usage_id, price: p.price, usage: p.usage ?? null, reserved_usd: p.reserved_usd,
    input_estimate: p.input_estimate, max_output_tokens: p.max_output_tokens, latency_ms: p.latency_ms ?? 0, outcome: 'answered',
  }, ctx.env.principal);
}

/** Post 2: a final answer must match the skill pack's `answer_schema`, per AI_OUTPUT_VALIDATION_MODE. */
async function answerShape(ctx: HookContext): Promise<void> {
  const p = inv(ctx);
  const mode = aiSettings(ctx.env.settings).AI_OUTPUT_VALIDATION_MODE;
  if (mode === 'disabled' || !p.answer_schema || !p.answer || p.answer.tool_calls?.length) return;
  let value: unknown;
  let issues: Array<{ path: string; message: string }>;
  try {
    value = JSON.parse(p.answer.content ?? '');
    issues = validateAgainst(p.answer_schema, value);
  } catch {
    issues = [{ path: '', message: 'the answer is not JSON' }];
  }
  if (!issues.length) return;
  if (mode === 'strict') throw new FwError('AI_OUTPUT_INVALID', 502, `the model's answer does not match the declared shape: ${issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`, { issues });
  p.flags.push({ guard: 'output', mode, issues });
}

/** The spec's pre-invocation order: budget, PII, injection (then output checks after the call). */
export const invocationHooks: HookDecl[] = [
  { point: 'pre.ai.invocation', sequence: 1, handler: budget },
  { point: 'pre.ai.invocation', sequence: 2, handler: pii },
  { point: 'pre.ai.invocation', sequence: 3, handler: safetyRules },
  { point: 'pre.ai.invocation', sequence: 4, handler: injection },
  { point: 'post.ai.invocation', sequence: 1, handler: settle },
  { point: 'post.ai.invocation', sequence: 2, handler: answerShape },
];
