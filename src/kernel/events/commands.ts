import type { CommandDecl } from '../app.js';
import { delegateOf } from '../data/delegate.js';
import { Conflict } from '../errors.js';
import { o } from '../output.js';

/** Admin commands over the outbox; listing dead letters is a plain fw.search on ir.event. */
export const eventCommands: CommandDecl[] = [
  {
    name: 'ir.event.replay',
    model: 'ir.event',
    op: 'read',
    roles: ['admin'],
    record: true,
    description: 'Queue a dead (or delivered) event delivery again, with a fresh attempt budget',
    returns: 'json',
    output: o.object('EventReplay', {
      id: o.id({ description: 'The delivery queued again' }),
      status: o.string({ description: 'Always "pending": the worker picks it up after commit' }),
    }),
    async handler(env, payload) {
      const outbox = delegateOf(env.db, env.registry.model('ir.event'));
      const row = await outbox.findUnique({ where: { record_uuid: payload.id } });
      if (row?.status === 'pending' || row?.status === 'processing') {
        throw new Conflict('this delivery is already queued', { id: payload.id }, 'EVENT_QUEUED');
      }
      // through fw.update, so the change is recorded and the kernel wakes the worker after commit
      await env.sudo().dispatch('fw.update', {
        model: 'ir.event',
        id: payload.id,
        values: { status: 'pending', attempts: 0, available_at: new Date().toISOString(), last_error: null, locked_until: null },
      });
      return { id: payload.id, status: 'pending' };
    },
  },
];
