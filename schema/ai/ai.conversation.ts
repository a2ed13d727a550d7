import { defineModel, f } from '../../src/kernel/declare.js';

/** A conversation belongs to the user who started it; nobody else but admins sees it. */
export default defineModel({
  key: 'ai.conversation',
  description: 'AI conversation',
  record_name: 'title',
  default_order: 'updated_at_utc desc',
  create_command: 'ai.conversation.start',
  fields: {
    title: f.char(200),
    user_id: f.uuid({ required: true, index: true, readonly: true, description: "The owner's record_uuid" }),
    skill_pack_id: f.reference('ai.skill.pack', { on_delete: 'set null', readonly: true, description: 'Skill pack' }),
    prompt_version_id: f.reference('ai.prompt.version', { on_delete: 'set null', readonly: true, description: 'Prompt version' }),
    provider: f.char(64, { readonly: true }),
    status: f.enum(['open', 'closed'], { default: 'open' }),
    input_tokens: f.integer({ default: 0, readonly: true }),
    output_tokens: f.integer({ default: 0, readonly: true }),
    usd: f.float({ default: 0, readonly: true, description: 'Spend (USD)' }),
    messages: f.one2many('ai.message', 'conversation_id'),
  },
  access: {
    roles: { admin: 'crud', '*': 'crud' },
    rules: [{ domain: [['user_id', '=', '$principal.user_id']] }],
  },
});
