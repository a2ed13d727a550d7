import { defineModel, f } from '../../src/kernel/declare.js';

/** Messages are written by the AI layer only; their owner reads them through the conversation. */
export default defineModel({
  key: 'ai.message',
  description: 'AI message',
  record_name: 'role',
  default_order: 'sequence asc',
  fields: {
    conversation_id: f.reference('ai.conversation', { required: true, on_delete: 'cascade', description: 'Conversation' }),
    sequence: f.integer({ required: true }),
    role: f.enum(['system', 'user', 'assistant', 'tool'], { required: true }),
    content: f.text(),
    tool_calls: f.json({ description: 'Tool calls the assistant asked for' }),
    tool_call_id: f.char(100),
    tool_name: f.char(100),
    flags: f.json({ description: 'Guards that fired on this message (pii, injection, output)' }),
  },
  access: {
    roles: { admin: 'r', '*': 'r' },
    rules: [{ domain: [['conversation_id.user_id', '=', '$principal.user_id']] }],
  },
});
