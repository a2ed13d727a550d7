import type { CommandDecl } from '../../kernel/app.js';
import { f } from '../../kernel/declare.js';
import { o } from '../../kernel/output.js';
import { delegateOf } from '../../kernel/data/delegate.js';
import { ValidationError } from '../../kernel/errors.js';

/** The gate's default freshness window: a day, as CI gates usually use. */
export const DEFAULT_FRESHNESS_HOURS = 24;

export interface GateVerdict {
  /** `pass` (exit 0), `fail` (a use case failed, is stale or never ran while others did, exit 1), `no_runs` (no use case of the module ever ran, exit 2). */
  verdict: 'pass' | 'fail' | 'no_runs';
  module: string;
  freshness_hours: number;
  usecases: Array<{
    key: string;
    /** A failed or errored latest run is `failed`/`error` however old it is; `stale` is a pass older than the window. */
    status: 'passed' | 'failed' | 'error' | 'stale' | 'never_run';
    finished_at: string | null;
    run_id: string | null;
    reason: string | null;
    /** The latest run is older than the window (whatever its status). */
    stale: boolean;
  }>;
}

/**
 * `fw e2e gate`: passes only if the latest result of every active use case of the module passed
 * within the window. A failing, stale or never-run use case is named (`fail`); a latest run that
 * failed is reported as failed whatever its age (its staleness is added to the reason), never as
 * merely stale. Only a module none of whose use cases has any result, however old (or an active
 * app without use cases), is `no_runs`, which the CLI exits with a distinct code: results that are
 * all too old are stale, not missing. A module that is neither an active app nor the module of
 * any use case (a misspelt `--module`) is refused (VALIDATION_FAILED, `UNKNOWN_MODULE`), as is a
 * window that is not a positive finite number of hours: usage errors, not verdicts.
 */
export const gateCommand: CommandDecl = {
  name: 'qa.gate',
  mutates: false,
  returns: 'json',
  output: o.object('QaGateVerdict', {
    verdict: o.string({ description: 'pass, fail (a use case failed, is stale or never ran while others did) or no_runs (no use case of the module ever ran)' }),
    module: o.string(),
    freshness_hours: o.float(),
    usecases: o.list(o.object('QaGateUsecase', {
      key: o.string(),
      status: o.string({ description: 'passed, failed, error, stale (a pass older than the window) or never_run; a failed or errored latest run stays failed or error however old it is' }),
      finished_at: o.datetime({ nullable: true, description: 'When the latest run of the use case finished' }),
      run_id: o.id({ nullable: true }),
      reason: o.string({ nullable: true }),
      stale: o.boolean({ description: 'The latest run is older than the window, whatever its status' }),
    })),
  }),
  description: 'Whether every use case of a module passed its latest run within the freshness window',
  input: { module: f.char(100, { required: true }), freshness_hours: f.float() },
  handler: async (env, p): Promise<GateVerdict> => {
    const hours = p.freshness_hours === undefined ? DEFAULT_FRESHNESS_HOURS : Number(p.freshness_hours);
    if (!(hours > 0) || !Number.isFinite(hours)) throw new ValidationError('freshness_hours must be a number of hours more than 0', { errors: [{ field: 'freshness_hours', code: 'INVALID_VALUE', message: 'a positive number of hours' }] });
    const module = String(p.module);
    const since = Date.now() - hours * 3_600_000;
    const rows = delegateOf(env.db, env.registry.model('qa.usecase'));
    if (!env.registry.apps.some((a) => a.name === module) && !(await rows.findFirst({ where: { module } }))) {
      throw new ValidationError(`module "${module}" is neither an active app nor the module of any use case`, {
        errors: [{ field: 'module', code: 'UNKNOWN_MODULE', message: `active apps: ${env.registry.apps.map((a) => a.name).join(', ')}` }],
      });
    }
    const usecases = await rows.findMany({ where: { module, is_active: true }, orderBy: { key: 'asc' } });
    const results = delegateOf(env.db, env.registry.model('qa.run.result'));
    const out: GateVerdict['usecases'] = [];
    for (const u of usecases) {
      const last = await results.findFirst({ where: { usecase_key: u.key, finished_at: { not: null } }, orderBy: { finished_at: 'desc' } });
      const finished = last?.finished_at ? new Date(last.finished_at as Date) : null;
      const stale = !!finished && finished.getTime() < since;
      const base = { key: String(u.key), finished_at: finished?.toISOString() ?? null, run_id: (last?.run_id as string | null) ?? null, stale };
      const age = stale ? `last run ${finished!.toISOString()} is older than ${hours} h` : null;
      if (!last || !finished) out.push({ ...base, status: 'never_run', reason: 'no run yet' });
      // a failure stays a failure however old: it is never hidden behind "stale"
      else if (last.status !== 'passed') out.push({ ...base, status: last.status as 'failed' | 'error', reason: [String(last.error ?? `step ${String(last.failed_step ?? '?')} failed`), age].filter(Boolean).join('; ') });
      else if (stale) out.push({ ...base, status: 'stale', reason: age });
      else out.push({ ...base, status: 'passed', reason: null });
    }
    const anyRun = out.some((u) => u.status !== 'never_run');
    const verdict = !anyRun ? 'no_runs' : out.every((u) => u.status === 'passed') ? 'pass' : 'fail';
    return { verdict, module, freshness_hours: hours, usecases: out };
  },
};
