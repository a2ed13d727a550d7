import { o } from '../../kernel/output.js';

/**
 * Typed GraphQL results of the AI commands (REST returns the same JSON). Free-form parts (tool
 * call arguments, guard flags, records written) stay JSON.
 */
const n = o.nullable;

export const AiTurnMessage = o.object('AiTurnMessage', {
  id: o.id(),
  sequence: o.int(),
  role: o.string({ description: 'user, assistant or tool' }),
  content: n(o.string()),
  tool_calls: n(o.json({ description: 'Calls the assistant asked for: [{ id, name, arguments }]' })),
  tool_call_id: n(o.string()),
  tool_name: n(o.string()),
  flags: n(o.json({ description: 'Guards that fired on this message' })),
}, { description: 'A message a turn added to its conversation' });

/** A proposed write; with its token in a turn's answer, without it in the conversation's events. */
const proposal = {
  proposal_id: o.id(),
  expires_at: o.string(),
  tool: o.string(),
  operation: o.string({ description: 'create or update of a record, or other' }),
  model: n(o.string({ description: 'Model of the record written (create, update)' })),
  record_id: n(o.id({ description: 'Record updated (update)' })),
  record_name: n(o.string({ description: 'Name of the record updated (update), as you may read it' })),
  changes: o.list(o.object('AiProposedChange', {
    field: o.string(),
    before: n(o.json({ description: 'Current value (update; absent when you may not read it)' })),
    after: n(o.json({ description: 'Value the write sets' })),
    requested: n(o.boolean({ description: 'false when your messages name neither the field nor the value (the model may have taken it from record text); absent outside conversations' })),
  }), { description: 'Every field the write sets, never cut' }),
  summary: o.string({ description: 'The same as text, one line per change, never cut' }),
};

export const AiPendingConfirmation = o.object('AiPendingConfirmation', {
  ...proposal,
  token: o.string({ description: 'Post it to …/confirm (aiConversationConfirm) to run the write; shown once' }),
}, { description: 'A write a proposer tool asked for; nothing is written until it is confirmed' });

const AiPendingProposal = o.object('AiPendingProposal', proposal, {
  description: 'A write a proposer tool asked for, as the conversation\'s events tell it: the token to confirm it comes only in the turn\'s own answer',
});

const Usage = o.object('AiTurnUsage', { input_tokens: o.int(), output_tokens: o.int(), usd: o.float(), calls: o.int() });

export const AiTurn = o.object('AiTurn', {
  conversation_id: o.id(),
  messages: o.list(AiTurnMessage),
  answer: n(o.string()),
  usage: Usage,
  pending_confirmations: o.list(AiPendingConfirmation),
  stopped: o.string({ description: 'answer, or tool_limit when AI_MAX_TOOL_ITERATIONS was reached' }),
}, { description: 'What one turn did' });

/**
 * What `aiConversationEvents` streams while a turn runs (src/apps/ai/turn.ts publishes them), one
 * object per event told apart by `type`; every event names its conversation.
 */
const event = { type: o.string({ description: 'token, tool_call, tool_result, message or done' }), conversation_id: o.id() };
export const AiConversationEvent = o.union('AiConversationEvent', 'type', {
  token: o.object('AiTokenEvent', { ...event, delta: o.string({ description: 'The next piece of the assistant\'s answer' }) }),
  tool_call: o.object('AiToolCallEvent', {
    ...event, tool: o.string(), call_id: o.string(), arguments: o.string({ description: 'The arguments as the model wrote them (JSON text, not checked yet)' }),
  }),
  tool_result: o.object('AiToolResultEvent', {
    ...event, tool: o.string(), call_id: o.string(), ok: o.boolean(), code: n(o.string({ description: 'The error code when the call failed' })),
  }),
  message: o.object('AiMessageEvent', { ...event, message: AiTurnMessage }),
  done: o.object('AiDoneEvent', { ...event, usage: Usage, stopped: o.string({ description: 'answer, tool_limit, …' }), pending_confirmations: o.list(AiPendingProposal) }),
}, { description: 'An event of a running turn' });

export const AiWriteResult = o.object('AiWriteResult', {
  status: o.string({ description: 'executed' }),
  provenance_id: o.id(),
  proposal_id: o.id(),
  tool: o.string(),
  operation: o.string(),
  record: n(o.json()),
});

export const AiCancelResult = o.object('AiCancelResult', { status: o.string({ description: 'cancelled (a turn of this server process was stopped) or requested (passed on to the other processes)' }) });
export const AiUndoResult = o.object('AiUndoResult', { status: o.string({ description: 'undone' }), provenance_id: o.id(), operation: o.string(), record: n(o.json()) });

export const AiCatalogue = o.object('AiCatalogue', {
  tools: o.list(o.object('AiToolEntry', {
    name: o.string(),
    kind: o.string({ description: 'informer, proposer or insight' }),
    read_only: o.boolean(),
    description: o.string(),
    input_schema: o.json({ description: 'JSON Schema of the arguments, narrowed to what you may touch' }),
    confirmation_required: o.boolean(),
  })),
});

export const AiUsageDay = o.object('AiUsageDay', {
  tenant: o.string(),
  day: o.string(),
  totals: o.object('AiUsageTotals', { calls: o.int(), usd: o.float(), input_tokens: o.int(), output_tokens: o.int() }),
  by_principal: o.list(o.object('AiUsageByPrincipal', {
    principal_id: n(o.id()), turns: o.int(), input_tokens: o.int(), output_tokens: o.int(), usd: o.float(), reserved_usd: o.float(), latency_ms: o.int(),
  })),
  by_tool: o.list(o.object('AiUsageByTool', { tool: n(o.string()), calls: o.int() })),
});
