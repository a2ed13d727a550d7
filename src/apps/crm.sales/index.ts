import { defineApp, type CommandDecl } from 'fw/app';
import { ValidationError } from 'fw/errors';
import manifest from './manifest.js';

const commands: CommandDecl[] = [
  {
    name: 'crm.lead.mark_won',
    record: true,
    returns: 'record',
    description: 'Close a lead as won',
    handler: (env, p) => env.dispatch('fw.update', {
      model: 'crm.lead', id: p.id, values: { stage: 'won', probability: 1, closed_at: new Date().toISOString() },
    }),
  },
];

export const app = defineApp({
  manifest,
  commands,
  hooks: [{
    point: 'pre.crm.lead.create',
    handler(ctx) {
      const p = ctx.payload.probability;
      if (typeof p === 'number' && (p < 0 || p > 1)) {
        throw new ValidationError('probability must lie between 0 and 1', { field: 'probability' }, 'INVALID_PROBABILITY');
      }
    },
  }],
});
