import type { CommandDecl, HookDecl } from '../../kernel/app.js';
import { delegateOf } from '../../kernel/data/delegate.js';
import type { Env } from '../../kernel/env.js';
import { o } from '../../kernel/output.js';
import { NotFound, ValidationError } from '../../kernel/errors.js';
import { maskSecrets } from './recordings.js';
import { checkStep, refuseDocumentTarget, stepColumns, stepOf } from './steps.js';

/**
 * Editing a use case's frozen steps (issue 32 item 3): one bad step no longer means recording
 * everything again. A qa user or an admin (who may already rename, deactivate or delete the use
 * case) changes a step's target (its locator candidates), value,
 * assertion, caption, timeout or screenshot policy through the generic update (the step's form
 * in the client), moves it up or down, or removes it (commands, buttons of the step's form).
 *
 * - Every edit is checked like a recorded step (`checkStep`, a target on the page itself refused,
 *   a typed password masked), so an edit cannot store what a recording could not.
 * - Every edit makes a new version of the use case (`version` + 1): a result names the version
 *   it replayed, so a result before the edit is told apart from one after it.
 * - Positions stay 1…n without gaps: a removal closes the gap, a move swaps two neighbours. A
 *   step never moves to another use case.
 * - A use case keeps at least one step (`QA_USECASE_EMPTY`).
 */

type Rec = Record<string, unknown>;

const steps = (env: Env) => delegateOf(env.db, env.registry.model('qa.usecase.step'));

async function stepRow(env: Env, id: unknown): Promise<Rec> {
  const row = await steps(env).findUnique({ where: { record_uuid: String(id ?? '') } });
  if (!row) throw new NotFound(`no use case step "${String(id)}"`, { id }, 'RECORD_NOT_FOUND');
  return row;
}

/** The use case's version + 1: the edit that just happened makes a new version. */
async function newVersion(env: Env, usecaseId: unknown): Promise<number> {
  const uc = await delegateOf(env.db, env.registry.model('qa.usecase')).findUnique({ where: { record_uuid: String(usecaseId) }, select: { version: true } });
  const version = Number(uc?.version ?? 1) + 1;
  await env.sudo().dispatch('fw.update', { model: 'qa.usecase', id: usecaseId, values: { version } });
  return version;
}

/** The use case's steps in order, with their ids. */
async function siblings(env: Env, usecaseId: unknown): Promise<Rec[]> {
  return steps(env).findMany({ where: { usecase_id: String(usecaseId) }, orderBy: { sequence: 'asc' }, select: { record_uuid: true, sequence: true } });
}

async function setSequence(env: Env, id: unknown, sequence: number): Promise<void> {
  await steps(env).update({ where: { record_uuid: String(id) }, data: { sequence } });
}

async function move(env: Env, id: unknown, by: -1 | 1): Promise<Rec> {
  const row = await stepRow(env, id);
  const all = await siblings(env, row.usecase_id);
  const at = all.findIndex((s) => s.record_uuid === row.record_uuid);
  const other = all[at + by];
  if (!other) {
    throw new ValidationError(`step ${String(row.sequence)} is already the ${by < 0 ? 'first' : 'last'}`, {
      errors: [{ field: 'sequence', code: 'QA_STEP_AT_EDGE', message: `the ${by < 0 ? 'first' : 'last'} step cannot move ${by < 0 ? 'up' : 'down'}` }],
    }, 'QA_STEP_AT_EDGE');
  }
  // positions 1…n: the two neighbours swap theirs
  await setSequence(env, row.record_uuid, Number(other.sequence));
  await setSequence(env, other.record_uuid, Number(row.sequence));
  const version = await newVersion(env, row.usecase_id);
  return { id: row.record_uuid, sequence: Number(other.sequence), version };
}

const StepMoved = o.object('QaStepMoved', {
  id: o.id({ description: 'The step moved' }),
  sequence: o.int({ description: 'Its new position (1 is the first)' }),
  version: o.int({ description: 'The use case\'s new version' }),
});

export const usecaseEditCommands: CommandDecl[] = [
  {
    name: 'qa.usecase.step.move_up',
    record: true, op: 'update', roles: ['qa', 'admin'], returns: 'json', output: StepMoved,
    description: 'Move a use case step one place earlier (a new version of the use case)',
    handler: (env, p) => move(env, p.id, -1),
  },
  {
    name: 'qa.usecase.step.move_down',
    record: true, op: 'update', roles: ['qa', 'admin'], returns: 'json', output: StepMoved,
    description: 'Move a use case step one place later (a new version of the use case)',
    handler: (env, p) => move(env, p.id, 1),
  },
  {
    name: 'qa.usecase.step.remove',
    record: true, op: 'update', roles: ['qa', 'admin'], returns: 'json',
    output: o.object('QaStepRemoved', {
      usecase_id: o.id(),
      removed: o.int({ description: 'The position the step had' }),
      step_count: o.int({ description: 'Steps left in the use case' }),
      version: o.int({ description: 'The use case\'s new version' }),
    }),
    description: 'Remove a step from its use case; the steps after it move up (a new version of the use case)',
    handler: async (env, p) => {
      const row = await stepRow(env, p.id);
      const all = await siblings(env, row.usecase_id);
      if (all.length <= 1) {
        throw new ValidationError('a use case keeps at least one step', { errors: [{ field: 'steps', code: 'QA_USECASE_EMPTY', message: 'delete the use case instead' }] }, 'QA_USECASE_EMPTY');
      }
      await env.sudo().dispatch('fw.delete', { model: 'qa.usecase.step', id: row.record_uuid });
      for (const s of all) if (Number(s.sequence) > Number(row.sequence)) await setSequence(env, s.record_uuid, Number(s.sequence) - 1);
      const version = await newVersion(env, row.usecase_id);
      return { usecase_id: row.usecase_id, removed: Number(row.sequence), step_count: all.length - 1, version };
    },
  },
];

export const usecaseEditHooks: HookDecl[] = [{
  point: 'pre.qa.usecase.step.update',
  handler: async (ctx) => {
    const row = await stepRow(ctx.env, ctx.before?.id);
    for (const field of ['usecase_id', 'sequence'] as const) {
      if (field in ctx.payload && String(ctx.payload[field]) !== String(row[field])) {
        throw new ValidationError(field === 'sequence' ? 'a step moves with Move up and Move down' : 'a step cannot move to another use case', {
          errors: [{ field, code: 'READONLY', message: field === 'sequence' ? 'use qa.usecase.step.move_up / move_down' : 'set when the use case was written' }],
        });
      }
    }
    const merged = maskSecrets(checkStep({ ...stepOf(row), ...ctx.payload }));
    refuseDocumentTarget(merged);
    Object.assign(ctx.payload, stepColumns(merged));
    await newVersion(ctx.env, row.usecase_id);
  },
}];
