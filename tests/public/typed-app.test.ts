/**
 * Typed app code: with the project's generated/fw-types.ts in the program, `tsc` rejects app code
 * that reads a field a model does not have or passes a command a payload it does not take, and
 * accepts the correct version. Each case is a small app module written into a folder inside the
 * repository (so `fw/app` resolves through package.json `exports`, as in a team's project) and
 * typechecked by the repository's own `tsc` with the repository's compiler options.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIR = path.join(ROOT, '.tmp', `typed-app-${process.pid}`);

const HEAD = "import { defineApp, defineCommand, defineHook, type Env } from 'fw/app';\nexport declare const env: Env;\nvoid [defineApp, defineCommand, defineHook];\n";

/** case name → module source; each case is its own file, so errors are told apart by file. */
const CASES: Record<string, string> = {
  hook_ok: `${HEAD}
export const app = defineHook('pre.crm.lead.create', (ctx) => {
  const p: number | null | undefined = ctx.payload.probability;
  const name: string = ctx.payload.name;
  void p; void name;
});`,
  hook_reads_missing_field: `${HEAD}
export const app = defineHook('pre.crm.lead.create', (ctx) => { void ctx.payload.nonexistent; });`,
  hook_update_before_missing_field: `${HEAD}
export const app = defineHook('post.crm.lead.update', (ctx) => { void ctx.before.stage; void ctx.after.no_such_field; });`,
  hook_wrong_enum_value: `${HEAD}
export const app = defineHook('pre.crm.lead.update', (ctx) => { ctx.payload.stage = 'archived'; });`,
  hook_unknown_point_untyped: `${HEAD}
export const app = defineHook('pre.some.app_point', (ctx) => { void ctx.payload.anything; });`,
  dispatch_ok: `${HEAD}
export async function f() {
  const lead = await env.dispatch('crm.lead.mark_won', { id: 'x' });
  const stage: 'new' | 'qualified' | 'won' | 'lost' = lead.stage;
  const created = await env.dispatch('fw.create', { model: 'crm.lead', values: { name: 'Acme', probability: 0.5 } });
  const id: string = created.id;
  const any = await env.dispatch<{ n: number }>('crm.lead.mark_won', { whatever: true });
  return [stage, id, any.n];
}`,
  dispatch_bad_payload: `${HEAD}
export async function f() { await env.dispatch('crm.lead.mark_won', { id: 1 }); }`,
  dispatch_missing_result_field: `${HEAD}
export async function f() { const lead = await env.dispatch('crm.lead.mark_won', { id: 'x' }); return lead.nonexistent; }`,
  create_result_missing_field: `${HEAD}
export async function f() { const r = await env.dispatch('fw.create', { model: 'crm.lead', values: { name: 'A' } }); return r.nonexistent; }`,
  command_wrong_result: `${HEAD}
export const c = defineCommand('crm.lead.mark_won', { record: true, handler: async (_env, p) => ({ id: p.id }) });`,
  untyped_forms_still_compile: `${HEAD}
export const app = defineApp({
  manifest: { name: 'x.y', summary: '', description: '', author: '', category: '', version: '1', depends: [], data: [] },
  commands: [{ name: 'x.y.go', handler: async (e, p) => e.dispatch('some.unknown', { v: p.v }) }],
  hooks: [{ point: 'pre.crm.lead.create', handler(ctx) { void ctx.payload.whatever; } }],
});`,
};

/** file (case name) → the tsc error lines reported in it. */
let errors: Map<string, string[]>;

beforeAll(async () => {
  fs.mkdirSync(DIR, { recursive: true });
  for (const [name, source] of Object.entries(CASES)) fs.writeFileSync(path.join(DIR, `${name}.ts`), `${source}\n`);
  fs.writeFileSync(path.join(DIR, 'tsconfig.json'), JSON.stringify({
    extends: '../../tsconfig.json',
    include: ['*.ts', '../../generated/fw-types.ts'],
  }));
  const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
  const out = await promisify(execFile)(tsc, ['--noEmit', '--pretty', 'false', '-p', DIR], { cwd: ROOT })
    .then((r) => r.stdout, (err: { stdout?: string }) => err.stdout ?? String(err));
  errors = new Map(Object.keys(CASES).map((n) => [n, []]));
  for (const line of out.split('\n')) {
    const m = /([a-z_]+)\.ts\(\d+,\d+\): error (.*)$/.exec(line);
    if (!m) continue;
    if (!errors.has(m[1])) throw new Error(`tsc reported an error outside the cases: ${line}`);
    errors.get(m[1])!.push(m[2]);
  }
}, 120_000);

afterAll(() => fs.rmSync(DIR, { recursive: true, force: true }));
if (process.env.TYPED_APP_DEBUG) afterAll(() => console.log(errors));

describe('typed app code (generated/fw-types.ts + fw/app)', () => {
  it('a hook reading fields crm.lead has typechecks, with the fields typed', () => {
    expect(errors.get('hook_ok')).toEqual([]);
  });

  it('a hook reading a field crm.lead does not have fails tsc', () => {
    expect(errors.get('hook_reads_missing_field')!.join('\n')).toMatch(/TS2339.*'nonexistent'/);
  });

  it("an update hook's before and after are crm.lead records: a missing field fails tsc", () => {
    expect(errors.get('hook_update_before_missing_field')!.join('\n')).toMatch(/TS2339.*'no_such_field'/);
    expect(errors.get('hook_update_before_missing_field')).toHaveLength(1);
  });

  it('an enum field takes only its declared values', () => {
    expect(errors.get('hook_wrong_enum_value')!.join('\n')).toMatch(/TS2322.*"archived"/);
  });

  it('a hook point the generated file does not know gets the untyped context', () => {
    expect(errors.get('hook_unknown_point_untyped')).toEqual([]);
  });

  it('env.dispatch types a known command and fw.create by model; dispatch<T> stays an escape hatch', () => {
    expect(errors.get('dispatch_ok')).toEqual([]);
  });

  it("env.dispatch refuses a payload that does not fit the command's input", () => {
    expect(errors.get('dispatch_bad_payload')!.join('\n')).toMatch(/TS2769/);
  });

  it("a command's result is its model's record: reading a missing field fails tsc", () => {
    expect(errors.get('dispatch_missing_result_field')!.join('\n')).toMatch(/TS2339.*'nonexistent'/);
  });

  it("fw.create with a model's fitting values resolves to that model's record: a missing field fails tsc", () => {
    expect(errors.get('create_result_missing_field')!.join('\n')).toMatch(/TS2339.*'nonexistent'.*CrmLeadRecord/);
  });

  it("defineCommand's handler must resolve to the command's declared result (a crm.lead record)", () => {
    expect(errors.get('command_wrong_result')!.join('\n')).toMatch(/TS2322|TS2739|TS2741/);
  });

  it('the untyped forms (plain CommandDecl and HookDecl objects, unknown commands) still compile', () => {
    expect(errors.get('untyped_forms_still_compile')).toEqual([]);
  });
});
