import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { systemPrincipal, type Principal } from '../../kernel/env.js';
import { FwError } from '../../kernel/errors.js';
import { Kernel } from '../../kernel/kernel.js';
import { loadSettings, type Settings } from '../../kernel/settings.js';
import { DEFAULT_FRESHNESS_HOURS, type GateVerdict } from './gate.js';
import { qaSettings } from './settings.js';

export const E2E_USAGE = `fw e2e — QA automation (ENABLE_QA_AUTOMATION=true; replay and polish also need QA_E2E_ENABLED=true)

  fw e2e record --usecase <key> [--module <app>] [--name <text>] [--start-path </path>] [-t <tenant>]
                                             start a recording; open the printed URL to record in the web client
                                             (--module is needed for a new use case; else it is the use case's)
  fw e2e record --finalize <recording_uuid> [-t <tenant>]
  fw e2e record --promote <recording_uuid> --usecase <key> [-t <tenant>]
  fw e2e import --file <script.ts> --usecase <key> [--module <app>] [-t <tenant>]
                                             a Playwright codegen script → a use case (anything else is refused with its line)
  fw e2e replay --tenant <key> [--usecase <key> [--from <n>]]
                                             replay the tenant's use cases against QA_SANDBOX_TENANT_KEY (reset first);
                                             --from n: replay from step n (the steps before it run, without screenshots)
  fw e2e polish --run <run_uuid> [-t <tenant>] a narrated MP4 of a run under QA_E2E_VIDEO_DIR
  fw e2e gate --module <app> [--freshness-hours <n>] [-t <tenant>]
                                             exit 0 if every use case of the module passed within the window
                                             (default ${DEFAULT_FRESHNESS_HOURS} h), 1 if one failed (however long ago), is stale
                                             or never ran, 2 if no use case of the module has any run,
                                             64 on a usage error (unknown option or module, invalid window, unknown tenant)`;

/**
 * Exit codes of `fw e2e gate` (and of the other subcommands: 0 ok, 1 failed or refused). A usage
 * error is no verdict: it gets its own code (64, EX_USAGE of sysexits.h), so a CI never reads a
 * misspelt `--module` as "never ran" or `--freshness-hours 0` as a failed gate.
 */
export const GATE_EXIT = { pass: 0, fail: 1, no_runs: 2, usage: 64 } as const;

/** An invalid `fw e2e gate` invocation; the CLI prints it and exits GATE_EXIT.usage. */
export class GateUsageError extends FwError {
  constructor(message: string, details?: Record<string, unknown>) { super('QA_GATE_USAGE', 400, message, details); }
}

/** Whether an error of a gate invocation is the caller's mistake rather than a verdict or a fault. */
function gateUsageError(err: unknown): GateUsageError | null {
  if (err instanceof GateUsageError) return err;
  const code = (err as { code?: unknown })?.code;
  // node:util parseArgs: an unknown option, a missing value, a stray positional
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) return new GateUsageError((err as Error).message, { cause: code });
  if (err instanceof FwError && ['VALIDATION_FAILED', 'UNKNOWN_TENANT', 'INVALID_TENANT', 'USAGE'].includes(err.code)) {
    const field = (err.details?.errors as Array<{ field?: string; code?: string; message?: string }> | undefined)?.[0];
    return new GateUsageError(field?.message ? `${err.message} (${field.message})` : err.message, { cause: field?.code ?? err.code });
  }
  return null;
}

/** `fw e2e gate …`: a usage error is printed with the usage line and exits GATE_EXIT.usage. */
async function gateCli(argv: string[]): Promise<number> {
  try {
    return await e2eMain(argv);
  } catch (err) {
    const usage = gateUsageError(err);
    if (!usage) throw err;
    console.error(`fw e2e gate: ${usage.message}`);
    console.error('usage: fw e2e gate --module <app> [--freshness-hours <n>] [-t <tenant>] (fw e2e --help)');
    return GATE_EXIT.usage;
  }
}

/**
 * The app a recorded or imported use case belongs to: `--module`, else the module of the use case
 * of that key when it exists already (recording or importing it again), so the spec's
 * `record --usecase <key>` and `import --file <path> --usecase <key>` work as written for it.
 */
async function moduleOf(kernel: Kernel, sys: Principal, usecase: string, module: string | undefined, sub: 'record' | 'import'): Promise<string> {
  if (module) return module;
  const found = await kernel.dispatch<{ items: Array<{ module: string }> }>('fw.search', { model: 'qa.usecase', domain: [['key', '=', usecase]], limit: 1, fields: ['module'] }, sys);
  if (found.items[0]?.module) return found.items[0].module;
  throw new FwError('USAGE', 400, `fw e2e ${sub}: use case ${usecase} does not exist yet, so name its app with --module <app>`);
}

async function bootQa(settings: Settings): Promise<Kernel> {
  if (!qaSettings(settings).ENABLE_QA_AUTOMATION) throw new FwError('QA_DISABLED', 400, 'QA automation is off: set ENABLE_QA_AUTOMATION=true');
  return Kernel.boot({ settings, worker: false });
}

/** `fw e2e …`: progress lines as it goes, and one summary line at the end. */
export async function e2e(argv: string[]): Promise<number> {
  // the first word that is no option is the subcommand (parseArgs may refuse the line itself)
  return argv.find((a) => !a.startsWith('-')) === 'gate' ? gateCli(argv) : e2eMain(argv);
}

async function e2eMain(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      usecase: { type: 'string' }, from: { type: 'string' }, module: { type: 'string' }, name: { type: 'string' }, 'start-path': { type: 'string' },
      finalize: { type: 'string' }, promote: { type: 'string' }, file: { type: 'string' }, run: { type: 'string' },
      'freshness-hours': { type: 'string' }, t: { type: 'string' }, tenant: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  const [sub] = positionals;
  if (values.help || !sub) {
    console.log(E2E_USAGE);
    return sub ? 0 : 1;
  }
  const settings = loadSettings();
  const tenant = values.tenant ?? values.t ?? settings.DEFAULT_TENANT;

  if (sub === 'replay' || sub === 'polish') {
    if (!qaSettings(settings).QA_E2E_ENABLED) throw new FwError('QA_E2E_DISABLED', 400, `fw e2e ${sub} runs a browser only with QA_E2E_ENABLED=true`);
    const kernel = await bootQa(settings);
    try {
      await kernel.tenants.assertExists(tenant);
      if (sub === 'replay') {
        if (!values.tenant && !values.t) throw new FwError('USAGE', 400, 'fw e2e replay needs --tenant <key>');
        const { replayFromCli } = await import('./replay/cli.js');
        const fromStep = values.from === undefined ? null : Number(values.from);
        return await replayFromCli(kernel, { tenant, usecase: values.usecase ?? null, fromStep, log: (m) => console.log(m) });
      }
      if (!values.run) throw new FwError('USAGE', 400, 'fw e2e polish needs --run <run_uuid>');
      const { polishFromCli } = await import('./polish/cli.js');
      return await polishFromCli(kernel, { tenant, run: values.run, log: (m) => console.log(m) });
    } finally {
      await kernel.close();
    }
  }

  const kernel = await bootQa(settings);
  const sys = systemPrincipal(tenant);
  try {
    await kernel.tenants.assertExists(tenant);
    if (sub === 'record') {
      if (values.finalize) {
        const r = await kernel.dispatch<{ id: string; status: string }>('qa.recording.finalize', { id: values.finalize }, sys);
        console.log(`recording ${r.id} finalised`);
        return 0;
      }
      if (values.promote) {
        if (!values.usecase) throw new FwError('USAGE', 400, 'fw e2e record --promote needs --usecase <key>');
        const u = await kernel.dispatch<{ key: string; version: number; step_count: number }>('qa.recording.promote', { id: values.promote, usecase_key: values.usecase }, sys);
        console.log(`promoted recording ${values.promote} to use case ${u.key} (version ${u.version}, ${u.step_count} steps)`);
        return 0;
      }
      if (!values.usecase) throw new FwError('USAGE', 400, 'fw e2e record needs --usecase <key>');
      const module = await moduleOf(kernel, sys, values.usecase, values.module, 'record');
      const r = await kernel.dispatch<{ id: string; start_path: string }>('qa.recording.start', {
        usecase_key: values.usecase, module, name: values.name, start_path: values['start-path'],
      }, sys);
      const base = `http://${settings.HOST}:${settings.PORT}`;
      console.log(`recording ${r.id} started for use case ${values.usecase}`);
      console.log(`open ${base}${r.start_path === '/' ? '/' : r.start_path}?qa_recording=${r.id} and record; then: fw e2e record --finalize ${r.id}`);
      return 0;
    }
    if (sub === 'import') {
      if (!values.file || !values.usecase) throw new FwError('USAGE', 400, 'fw e2e import needs --file <path> and --usecase <key>');
      const module = await moduleOf(kernel, sys, values.usecase, values.module, 'import');
      const { parsePlaywrightScript } = await import('./import/playwright.js');
      const parsed = parsePlaywrightScript(fs.readFileSync(values.file, 'utf8'), values.file);
      const u = await kernel.dispatch<{ key: string; version: number; step_count: number }>('qa.usecase.import', {
        usecase_key: values.usecase, module, name: values.name, start_path: parsed.start_path ?? undefined, steps: parsed.steps,
      }, sys);
      console.log(`imported ${values.file}: use case ${u.key} (version ${u.version}, ${u.step_count} steps)`);
      return 0;
    }
    if (sub === 'gate') {
      if (!values.module) throw new GateUsageError('--module <app> is required');
      if (positionals.length > 1) throw new GateUsageError(`unexpected argument "${positionals[1]}"`);
      const raw = values['freshness-hours'];
      const hours = raw === undefined ? DEFAULT_FRESHNESS_HOURS : Number(raw);
      if (raw !== undefined && (raw.trim() === '' || !Number.isFinite(hours) || hours <= 0)) {
        throw new GateUsageError(`--freshness-hours must be a number of hours more than 0, not "${raw}"`);
      }
      const v = await kernel.dispatch<GateVerdict>('qa.gate', { module: values.module, freshness_hours: hours }, sys);
      for (const u of v.usecases) console.log(`  ${u.status.padEnd(9)} ${u.key}${u.reason ? ` — ${u.reason}` : ''}`);
      const bad = v.usecases.filter((u) => u.status !== 'passed').map((u) => `${u.key} (${u.status})`);
      console.log(v.verdict === 'pass'
        ? `gate passed: ${v.usecases.length} use case(s) of ${v.module} passed within ${v.freshness_hours} h`
        : v.verdict === 'no_runs'
          ? `gate failed: no run of ${v.module} (${v.usecases.length ? `never run: ${v.usecases.map((u) => u.key).join(', ')}` : 'the module has no use case'})`
          : `gate failed: ${bad.join(', ')}`);
      return GATE_EXIT[v.verdict];
    }
    console.error(E2E_USAGE);
    return 1;
  } finally {
    await kernel.close();
  }
}
