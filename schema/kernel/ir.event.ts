import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * The event outbox: one row per (event, handler) delivery, written in the transaction of the
 * change that emitted it, drained by the event worker.
 */
export default defineModel({
  key: 'ir.event',
  description: 'Event delivery',
  record_name: 'name',
  default_order: 'dbid asc',
  fields: {
    event_uuid: f.uuid({ required: true, index: true, description: 'Event id (shared by its deliveries)' }),
    name: f.char(200, { required: true, index: true }),
    handler: f.char(200, { required: true, description: 'Handler id' }),
    tenant_id: f.char(100, { required: true }),
    payload: f.json({ required: true }),
    source: f.char(200, { description: 'Command that emitted it' }),
    status: f.enum(['pending', 'processing', 'done', 'dead'], { default: 'pending', index: true }),
    attempts: f.integer({ default: 0 }),
    available_at: f.datetime({ default: 'now', index: true, description: 'Not delivered before' }),
    locked_until: f.datetime({ description: 'Lease of the worker delivering it' }),
    last_error: f.text(),
    emitted_at: f.datetime({ default: 'now' }),
    delivered_at: f.datetime(),
  },
  access: { roles: { admin: 'r' } },
});
