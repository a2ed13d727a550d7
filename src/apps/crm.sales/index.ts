import { defineApp, defineCommand, defineHook } from 'fw/app';
import { ValidationError } from 'fw/errors';
import manifest from './manifest.js';

// typed from generated/fw-types.ts (`fw generate`): `p.id` is a string, the handler must
// resolve to a crm.lead record, and `ctx.payload` has the lead's fields only
const markWon = defineCommand('crm.lead.mark_won', {
  record: true,
  returns: 'record',
  description: 'Close a lead as won',
  handler: (env, p) => env.dispatch('fw.update', {
    model: 'crm.lead', id: p.id, values: { stage: 'won', probability: 1, closed_at: new Date().toISOString() },
  }),
});

// between 0 and 1 on update as on create: a PATCH may not write what a create may not
function checkProbability(p: unknown): void {
  if (typeof p === 'number' && (p < 0 || p > 1)) {
    throw new ValidationError('probability must lie between 0 and 1', { field: 'probability' }, 'INVALID_PROBABILITY');
  }
}

export const app = defineApp({
  manifest,
  commands: [markWon],
  hooks: [
    defineHook('pre.crm.lead.create', (ctx) => checkProbability(ctx.payload.probability)),
    defineHook('pre.crm.lead.update', (ctx) => checkProbability(ctx.payload.probability)),
  ],
});
