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

/**
 * A lead that ends up won, whichever way it got there (the form's button, a kanban drag, an
 * import, the API), is closed as mark_won closes it: the form requires a closing date for a won
 * lead and a drag has no form to ask for one. Won now: probability 1 unless given; a won lead
 * without a closing date gets today's instant (Odoo's crm sets date_closed the same way).
 */
function closeWhenWon(payload: { stage?: string | null; closed_at?: string | null; probability?: number | null }, before?: { stage?: unknown; closed_at?: unknown }): void {
  const stage = payload.stage !== undefined ? payload.stage : before?.stage;
  if (stage !== 'won') return;
  const closed = payload.closed_at !== undefined ? payload.closed_at : before?.closed_at;
  if (closed === null || closed === undefined) payload.closed_at = new Date().toISOString();
  if (before?.stage !== 'won' && payload.probability === undefined) payload.probability = 1;
}

/**
 * A won lead moved back to an open stage (the stage bar, a kanban drag) is reopened as Odoo's crm
 * reopens one: its closing date is cleared and its probability no longer 100 %, unless the same
 * change sets them; left as they were, the list showed an open lead at 100 % with a hidden date.
 */
function reopenWhenNoLongerWon(payload: { stage?: string | null; closed_at?: string | null; probability?: number | null }, before: { stage?: unknown }): void {
  if (before.stage !== 'won' || payload.stage === undefined || payload.stage === 'won' || payload.stage === 'lost') return;
  if (payload.closed_at === undefined) payload.closed_at = null;
  if (payload.probability === undefined) payload.probability = null;
}

export const app = defineApp({
  manifest,
  commands: [markWon],
  hooks: [
    defineHook('pre.crm.lead.create', (ctx) => {
      checkProbability(ctx.payload.probability);
      closeWhenWon(ctx.payload);
    }),
    defineHook('pre.crm.lead.update', (ctx) => {
      checkProbability(ctx.payload.probability);
      closeWhenWon(ctx.payload, ctx.before);
      reopenWhenNoLongerWon(ctx.payload, ctx.before);
    }),
  ],
});
