import type { CommandDecl } from '../../kernel/app.js';
import { f } from '../../kernel/declare.js';
import type { Env } from '../../kernel/env.js';

/**
 * Posts a chatter message on a record the caller may read (an unknown model answers 404
 * UNKNOWN_MODEL, a record out of the caller's scope 404 RECORD_NOT_FOUND, as reads do). System
 * principals (the QA replay, event handlers) post as the system.
 */
export const postMessage: CommandDecl = {
  name: 'ir.message.post',
  op: 'read',
  returns: 'record',
  description: 'Post a chatter message on a record',
  input: {
    res_model: f.char(100, { required: true }),
    res_id: f.uuid({ required: true }),
    body: f.text({ required: true }),
    subject: f.char(200),
    message_type: f.enum(['comment', 'notification'], { default: 'comment' }),
    link: f.char(1000),
  },
  handler: async (env: Env, p) => {
    await env.dispatch('fw.read_one', { model: p.res_model, id: p.res_id, fields: ['record_uuid'] });
    const author = env.principal.user_id
      ? await env.sudo().dispatch<{ name: string }>('fw.read_one', { model: 'res.user', id: env.principal.user_id, fields: ['name'] }).catch(() => null)
      : null;
    return env.sudo().dispatch('fw.create', {
      model: 'ir.message',
      values: {
        res_model: p.res_model, res_id: p.res_id, body: p.body, subject: p.subject ?? null, message_type: p.message_type ?? 'comment',
        link: p.link ?? null, author_id: env.principal.user_id ?? null, author_name: author?.name ?? (env.principal.kind === 'system' ? 'System' : null),
      },
    });
  },
};
