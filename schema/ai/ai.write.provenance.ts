import { defineModel, f } from '../../src/kernel/declare.js';

/** Ties a confirmed AI write to its conversation, tool, prompt version and confirming principal. */
export default defineModel({
  key: 'ai.write.provenance',
  description: 'AI write provenance',
  default_order: 'dbid desc',
  fields: {
    conversation_id: f.reference('ai.conversation', { on_delete: 'set null', description: 'Conversation' }),
    proposal_id: f.uuid({ index: true }),
    tool: f.char(100, { required: true }),
    command: f.char(200, { required: true }),
    prompt_version_id: f.uuid(),
    confirmed_by: f.uuid({ required: true, index: true, description: 'Confirming user' }),
    approval_case_id: f.char(100),
    target_model: f.char(100),
    target_id: f.uuid(),
    operation: f.enum(['create', 'update', 'delete']),
    before: f.json(),
    after: f.json(),
    day: f.char(10, { required: true, index: true }),
    undone: f.boolean({ default: false }),
    undone_at: f.datetime(),
    undone_by: f.uuid(),
  },
  access: {
    roles: { admin: 'r', '*': 'r' },
    rules: [{ domain: [['confirmed_by', '=', '$principal.user_id']] }],
  },
});
