import { isAdmin } from '../../kernel/access.js';
import type { CommandDecl, HookDecl } from '../../kernel/app.js';
import { f } from '../../kernel/declare.js';
import { delegateOf } from '../../kernel/data/delegate.js';
import type { Env } from '../../kernel/env.js';
import { o } from '../../kernel/output.js';
import { Conflict, NotFound, ValidationError } from '../../kernel/errors.js';
import { checkStep, refuseDocumentTarget, stepColumns, stepOf, type StepData } from './steps.js';

type Rec = Record<string, unknown>;

export const USECASE_KEY = /^[a-z0-9][a-z0-9_.-]{0,99}$/;

function checkKey(field: string, key: unknown): string {
  if (typeof key !== 'string' || !USECASE_KEY.test(key)) {
    throw new ValidationError(`${field} is lower-case letters, digits, ".", "_" and "-" (at most 100)`, { errors: [{ field, code: 'INVALID_VALUE', message: `"${String(key)}" is not a use-case key` }] });
  }
  return key;
}

function checkModule(env: Env, module: unknown): string {
  if (!env.registry.apps.some((a) => a.name === module)) {
    throw new ValidationError(`module "${String(module)}" is not an active app`, { errors: [{ field: 'module', code: 'UNKNOWN_MODULE', message: `active apps: ${env.registry.apps.map((a) => a.name).join(', ')}` }] });
  }
  return String(module);
}

/**
 * A typed password is never stored: a literal filled into a password field (the recorder marks its
 * target `secret`; a locator naming a password, secret, token or key says so too) becomes a secret.
 */
export function maskSecrets(step: StepData): StepData {
  if (step.kind !== 'fill' || step.value?.kind !== 'literal') return step;
  const looksSecret = step.target?.secret === true
    || step.target?.candidates.some((chain) => chain.some((s) => /pass(word)?|secret|token|api[-_ ]?key/i.test(`${s.value} ${s.name ?? ''}`)));
  return looksSecret ? { ...step, value: { kind: 'secret', value: 'password' } } : step;
}

async function recordingOf(env: Env, id: unknown): Promise<Rec> {
  return env.dispatch<Rec>('fw.read_one', { model: 'qa.recording', id });
}

const stepInput = {
  kind: f.char(32, { required: true }),
  target: f.json(),
  value: f.json(),
  assertion: f.json(),
  timeout_ms: f.integer(),
  screenshot: f.char(16),
  caption: f.char(500),
  url: f.char(1000),
};

/**
 * Copies steps as they are into a use case: replays run exactly these. A use case belongs to the
 * organization of the recording it comes from, or of the person importing it (empty for an import
 * by the system, `fw e2e import`: the whole tenant's). Keys are
 * unique in the tenant, so promoting under a key another organization's use case holds (or a
 * tenant-wide one) is 409 QA_USECASE_KEY_TAKEN for anyone but an admin: it would overwrite
 * what that organization replays.
 */
export async function writeUsecase(env: Env, u: {
  key: string; name: string; module: string; start_path: string; source: 'recording' | 'import'; recording_id?: string | null;
  organization_id?: string | null; steps: StepData[];
}): Promise<Rec> {
  const sys = env.sudo();
  const usecases = delegateOf(env.db, env.registry.model('qa.usecase'));
  const existing = await usecases.findUnique({ where: { key: u.key } });
  const organization_id = u.organization_id ?? null;
  let id: string;
  if (existing) {
    if ((existing.organization_id ?? null) !== organization_id && env.principal.kind === 'user' && !isAdmin(env.principal)) {
      throw new Conflict(`use case key "${u.key}" is taken; choose another key`, { field: 'usecase_key' }, 'QA_USECASE_KEY_TAKEN');
    }
    await delegateOf(env.db, env.registry.model('qa.usecase.step')).deleteMany({ where: { usecase_id: existing.record_uuid } });
    await sys.dispatch('fw.update', { model: 'qa.usecase', id: existing.record_uuid, values: { name: u.name, module: u.module, start_path: u.start_path, source: u.source, recording_id: u.recording_id ?? null, organization_id, version: Number(existing.version) + 1 } });
    id = String(existing.record_uuid);
  } else {
    id = String((await sys.dispatch<Rec>('fw.create', { model: 'qa.usecase', values: { key: u.key, name: u.name, module: u.module, start_path: u.start_path, source: u.source, recording_id: u.recording_id ?? null, organization_id } })).id);
  }
  let sequence = 0;
  for (const s of u.steps) await sys.dispatch('fw.create', { model: 'qa.usecase.step', values: { usecase_id: id, sequence: ++sequence, ...stepColumns(s) } });
  return { ...(await sys.dispatch<Rec>('fw.read_one', { model: 'qa.usecase', id })), step_count: u.steps.length };
}

/**
 * A use case written by a promotion or an import: REST answers the record with `step_count` beside
 * its fields; GraphQL gives the record as the model's own type, and the count beside it.
 */
const UsecaseWritten = o.object('QaUsecaseWritten', {
  usecase: o.record('qa.usecase', { from: (result) => result }),
  step_count: o.int({ description: 'Steps in the use case' }),
});

export const recordingCommands: CommandDecl[] = [
  {
    name: 'qa.recording.start',
    op: 'create', returns: 'record',
    description: 'Start a recording of a browser flow (the recorder appends its steps)',
    input: { name: f.char(200), usecase_key: f.char(100, { required: true }), module: f.char(100, { required: true }), start_path: f.char(500) },
    handler: async (env, p) => {
      const key = checkKey('usecase_key', p.usecase_key);
      const module = checkModule(env, p.module);
      const created = await env.sudo().dispatch<Rec>('fw.create', {
        model: 'qa.recording',
        values: { name: p.name ?? key, usecase_key: key, module, start_path: p.start_path ?? '/', started_by: env.principal.user_id ?? null, organization_id: env.principal.organization_id ?? null },
      });
      return env.dispatch('fw.read_one', { model: 'qa.recording', id: created.id });
    },
  },
  {
    name: 'qa.recording.step.create',
    op: 'create', returns: 'record',
    // the generic qaRecordingStepCreate mutation already routes here (the model's create_command)
    graphql_name: 'qaRecordingAppendStep',
    description: 'Append a step to a live recording (dispatched by the in-browser recorder)',
    input: { recording_id: f.uuid({ required: true }), ...stepInput },
    handler: async (env, p) => {
      const rec = await recordingOf(env, p.recording_id);
      if (rec.status !== 'live') throw new Conflict(`recording ${String(rec.id)} is ${String(rec.status)}; steps are appended to live recordings only`, { status: rec.status }, 'QA_RECORDING_NOT_LIVE');
      const { recording_id: _r, ...data } = p;
      const step = maskSecrets(checkStep(data));
      refuseDocumentTarget(step);
      const last = await delegateOf(env.db, env.registry.model('qa.recording.step')).findFirst({ where: { recording_id: rec.id }, orderBy: { sequence: 'desc' }, select: { sequence: true } });
      return env.sudo().dispatch('fw.create', { model: 'qa.recording.step', values: { recording_id: rec.id, sequence: Number(last?.sequence ?? 0) + 1, ...stepColumns(step) } });
    },
  },
  {
    name: 'qa.recording.finalize',
    record: true, op: 'update', returns: 'record',
    description: 'Finalise a live recording (no more steps); it can then be promoted',
    handler: async (env, p) => {
      const rec = await recordingOf(env, p.id);
      if (rec.status !== 'live') throw new Conflict(`recording ${String(rec.id)} is already ${String(rec.status)}`, { status: rec.status }, 'QA_RECORDING_NOT_LIVE');
      const steps = await delegateOf(env.db, env.registry.model('qa.recording.step')).count({ where: { recording_id: rec.id } });
      if (!steps) throw new ValidationError('a recording without steps cannot be finalised', { errors: [{ field: 'steps', code: 'QA_RECORDING_EMPTY', message: 'record at least one step' }] }, 'QA_RECORDING_EMPTY');
      await env.sudo().dispatch('fw.update', { model: 'qa.recording', id: rec.id, values: { status: 'finalised', finalised_at: new Date().toISOString() } });
      return env.dispatch('fw.read_one', { model: 'qa.recording', id: rec.id });
    },
  },
  {
    name: 'qa.recording.promote',
    record: true, op: 'update', roles: ['qa'], returns: 'json', output: UsecaseWritten,
    description: 'Freeze a finalised recording into a use case with exactly its steps (QA role only)',
    input: { usecase_key: f.char(100), name: f.char(200) },
    handler: async (env, p) => {
      const rec = await recordingOf(env, p.id);
      if (rec.status !== 'finalised') throw new Conflict(`recording ${String(rec.id)} is ${String(rec.status)}; only a finalised recording is promoted`, { status: rec.status }, 'QA_RECORDING_NOT_FINALISED');
      const rows = await delegateOf(env.db, env.registry.model('qa.recording.step')).findMany({ where: { recording_id: rec.id }, orderBy: { sequence: 'asc' } });
      const usecase = await writeUsecase(env, {
        key: checkKey('usecase_key', p.usecase_key ?? rec.usecase_key), name: String(p.name ?? rec.name), module: String(rec.module),
        start_path: String(rec.start_path ?? '/'), source: 'recording', recording_id: String(rec.id),
        organization_id: typeof rec.organization_id === 'string' ? rec.organization_id : null, steps: rows.map(stepOf),
      });
      await env.sudo().dispatch('fw.update', { model: 'qa.recording', id: rec.id, values: { status: 'promoted', promoted_usecase_id: usecase.id } });
      return usecase;
    },
  },
  {
    name: 'qa.usecase.import',
    // checked as an update of qa.usecase, which the qa role holds: nobody holds its generic create
    // (a use case is only ever written with its steps checked, here or by a promotion), and as
    // `create` this command refused the very role it is declared for
    op: 'update', roles: ['qa'], returns: 'json', output: UsecaseWritten,
    description: 'Create or replace a use case from steps (fw e2e import parses a Playwright script into them)',
    input: { usecase_key: f.char(100, { required: true }), name: f.char(200), module: f.char(100, { required: true }), start_path: f.char(500), steps: f.json({ required: true }) },
    handler: async (env, p) => {
      if (!Array.isArray(p.steps) || !p.steps.length) throw new ValidationError('steps must be a non-empty list', { errors: [{ field: 'steps', code: 'REQUIRED', message: 'at least one step' }] });
      const steps = (p.steps as Rec[]).map((s, i) => {
        try { return checkStep(s); } catch (err) {
          if (err instanceof ValidationError) throw new ValidationError(`step ${i + 1}: ${err.message}`, err.details);
          throw err;
        }
      });
      const key = checkKey('usecase_key', p.usecase_key);
      // imported by a person: their organization's; by the system (fw e2e import): the tenant's
      const organization_id = env.principal.kind === 'user' ? env.principal.organization_id ?? null : null;
      return writeUsecase(env, { key, name: String(p.name ?? key), module: checkModule(env, p.module), start_path: String(p.start_path ?? '/'), source: 'import', organization_id, steps });
    },
  },
];

/** The stored step a hook is about, refused with QA_RECORDING_NOT_LIVE unless its recording is live. */
async function liveStep(env: Env, id: unknown): Promise<Rec | null> {
  const row = await delegateOf(env.db, env.registry.model('qa.recording.step')).findUnique({ where: { record_uuid: String(id ?? '') } });
  if (!row) return null;
  const rec = await delegateOf(env.db, env.registry.model('qa.recording')).findUnique({ where: { record_uuid: String(row.recording_id) }, select: { status: true } });
  if (rec?.status !== 'live') throw new Conflict('steps of a finalised recording cannot change', { status: rec?.status }, 'QA_RECORDING_NOT_LIVE');
  return row;
}

/**
 * A recorded step may be edited (a caption added from the recorder bar) or dropped only while its
 * recording is live: what was finalised is what a promotion freezes. The edited step must still
 * be a valid step with its secrets masked: the generic update must not become a way around
 * `qa.recording.step.create`'s checks. (Deleting a recording deletes its steps in the database,
 * without these hooks.)
 */
export const recordingStepHooks: HookDecl[] = [{
  point: 'pre.qa.recording.step.delete',
  handler: async (ctx) => { await liveStep(ctx.env, ctx.before?.id); },
}, {
  point: 'pre.qa.recording.step.update',
  handler: async (ctx) => {
    const row = await liveStep(ctx.env, ctx.before?.id);
    if (!row) return;
    if ('recording_id' in ctx.payload || 'sequence' in ctx.payload) {
      throw new ValidationError('a step cannot move to another recording or position', { errors: [{ field: 'recording_id' in ctx.payload ? 'recording_id' : 'sequence', code: 'READONLY', message: 'set when the step is appended' }] });
    }
    const merged = maskSecrets(checkStep({ ...stepOf(row), ...ctx.payload }));
    refuseDocumentTarget(merged);
    Object.assign(ctx.payload, stepColumns(merged));
  },
}];

export async function usecaseByKey(env: Env, key: string): Promise<Rec> {
  const row = await delegateOf(env.db, env.registry.model('qa.usecase')).findUnique({ where: { key } });
  if (!row) throw new NotFound(`no use case "${key}"`, { key }, 'QA_USECASE_NOT_FOUND');
  return row;
}
