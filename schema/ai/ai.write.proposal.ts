import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * A write a proposer tool asked for. Only the SHA-256 of its 256-bit confirmation token is kept;
 * confirming moves it once, atomically, from pending to executed.
 */
export default defineModel({
  key: 'ai.write.proposal',
  description: 'AI write proposal',
  default_order: 'dbid desc',
  fields: {
    token_hash: f.char(64, { required: true, unique: true, private: true }),
    conversation_id: f.reference('ai.conversation', { on_delete: 'cascade', description: 'Conversation' }),
    user_id: f.uuid({ required: true, index: true }),
    tool: f.char(100, { required: true }),
    command: f.char(200, { required: true }),
    arguments: f.json(),
    arguments_hash: f.char(64, { required: true, description: 'SHA-256 of the canonical arguments' }),
    prompt_version_id: f.uuid(),
    summary: f.text({ description: 'What the write will do, for the person confirming' }),
    status: f.enum(['pending', 'executed', 'failed'], { default: 'pending' }),
    expires_at: f.datetime({ required: true }),
    executed_at: f.datetime(),
  },
  access: {
    roles: { admin: 'r', '*': 'r' },
    rules: [{ domain: [['user_id', '=', '$principal.user_id']] }],
  },
});
