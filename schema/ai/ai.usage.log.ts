import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * The provider calls of one turn: each call is reserved before it is made (estimated input +
 * maximum output, under the tenant's daily lock) and settled to its real usage after it, on the
 * turn's one row. A turn may run several tools, so a row names no tool: calls per tool are
 * counted from the tool messages (`ai.message.tool_name`, see `/api/ai/usage` `by_tool`).
 * `outcome`, `charge_basis` and `error_code` say how the turn's last call ended and why it cost
 * what it did (a failed call that produced nothing costs nothing: docs/ai.md "Money").
 */
export default defineModel({
  key: 'ai.usage.log',
  description: 'AI usage',
  default_order: 'dbid desc',
  fields: {
    day: f.char(10, { required: true, index: true, description: 'UTC day (YYYY-MM-DD)' }),
    tenant_id: f.char(100, { required: true }),
    principal_id: f.uuid({ index: true, description: 'User who caused the call' }),
    conversation_id: f.reference('ai.conversation', { on_delete: 'set null', description: 'Conversation' }),
    provider: f.char(64),
    model: f.char(100),
    status: f.enum(['reserved', 'settled'], { default: 'reserved' }),
    input_tokens: f.integer({ default: 0 }),
    output_tokens: f.integer({ default: 0 }),
    reserved_usd: f.float({ default: 0 }),
    usd: f.float({ default: 0, description: 'Spend (USD)' }),
    price_version: f.char(64),
    latency_ms: f.integer({ default: 0 }),
    outcome: f.enum(['answered', 'failed', 'interrupted', 'cancelled', 'refused'], { description: "How the turn's last provider call ended" }),
    charge_basis: f.enum(['reported', 'reservation', 'nothing'], { description: "What that call was charged: the provider's reported usage, the whole reservation, or nothing" }),
    error_code: f.char(64, { description: 'Stable code of the failure (AI_PROVIDER_AUTH_FAILED, AI_TURN_ABORTED, …)' }),
  },
  access: {
    roles: { admin: 'r', '*': 'r' },
    rules: [{ domain: [['principal_id', '=', '$principal.user_id']] }],
  },
});
