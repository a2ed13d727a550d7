import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * A chatter message on any record (`res_model` + `res_id`), like Odoo's mail.message. Posted
 * through `ir.message.post`, which checks the poster may read the record. A message is visible
 * exactly when the record it is about is (the rule follows `res_model` + `res_id` to that
 * model's read permission and rules), on every path; admins read every message.
 */
export default defineModel({
  key: 'ir.message',
  description: 'Message',
  record_name: 'subject',
  default_order: 'dbid desc',
  create_command: 'ir.message.post',
  fields: {
    res_model: f.char(100, { required: true, index: true, description: 'Model of the record' }),
    res_id: f.uuid({ required: true, index: true, description: 'Record' }),
    subject: f.char(200),
    body: f.text({ required: true }),
    message_type: f.enum(['comment', 'notification'], { default: 'comment' }),
    author_id: f.uuid({ description: 'Author (a user; empty for the system)' }),
    author_name: f.char(200),
    link: f.char(1000, { description: 'Where to see more (a run, a screenshot)' }),
  },
  access: {
    roles: { admin: 'rd', '*': 'r' },
    rules: [{ follow: { model: 'res_model', id: 'res_id' } }],
  },
});
