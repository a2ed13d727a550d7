import type { CommandDecl } from '../app.js';
import type { Env } from '../env.js';
import { BadRequest, FwError } from '../errors.js';

/**
 * `fw.import_batch`: one batch of an import, in one transaction. Each row is a create (through
 * the model's create command when it declares one, as POST /api/data does) or, with an `id`,
 * an update, dispatched on the bus like any other, so access, record rules, reference checks and
 * hooks apply. Each row runs in a savepoint: a refused row is recorded with its line and the
 * batch goes on, so one pass reports every row. Then the transaction commits only when the
 * batch is not a dry run and no row was refused; otherwise it rolls back and nothing is written.
 */
export const MAX_IMPORT_BATCH = 1000;

export interface ImportRow { line: number; id?: string; values: Record<string, unknown> }
/**
 * A refused row. `message` is English (for REST clients and logs); `values` are what a message
 * in another language needs (the cell's text, a count, a line), for the import's own codes whose
 * English message embeds them: a client translates by `code` with these as its arguments.
 */
export interface RowError { line: number; code: string; message: string; field?: string; values?: Record<string, string | number> }
export interface BatchResult { created: number; updated: number; errors: RowError[]; committed: boolean }

/** Thrown out of the batch's transaction to roll it back while keeping what it found. */
class Rollback extends Error {
  constructor(readonly result: BatchResult) {
    super('import batch rolled back');
  }
}

/** A refused row: one entry per field problem of a validation error, else the error itself. */
export function rowErrors(line: number, err: FwError): RowError[] {
  const problems = err.details?.errors;
  if (Array.isArray(problems) && problems.length) {
    return problems.map((p: { field?: string; code?: string; message?: string }) => ({ line, code: p.code ?? err.code, message: p.message ?? err.message, ...(p.field ? { field: p.field } : {}) }));
  }
  const field = typeof err.details?.field === 'string' ? err.details.field : undefined;
  return [{ line, code: err.code, message: err.message, ...(field ? { field } : {}) }];
}

function checkRows(rows: unknown): ImportRow[] {
  if (!Array.isArray(rows) || rows.length > MAX_IMPORT_BATCH) {
    throw new BadRequest(`payload.rows must be a list of at most ${MAX_IMPORT_BATCH} rows`, { max: MAX_IMPORT_BATCH }, 'INVALID_PAYLOAD');
  }
  for (const r of rows as ImportRow[]) {
    if (!r || typeof r !== 'object' || !Number.isInteger(r.line) || typeof r.values !== 'object' || r.values === null || (r.id !== undefined && typeof r.id !== 'string')) {
      throw new BadRequest('each row is { line, id?, values }', undefined, 'INVALID_PAYLOAD');
    }
  }
  return rows as ImportRow[];
}

async function writeRow(env: Env, model: string, createCommand: string | undefined, row: ImportRow): Promise<'created' | 'updated'> {
  if (row.id) {
    await env.dispatch('fw.update', { model, id: row.id, values: row.values });
    return 'updated';
  }
  if (createCommand) await env.dispatch(createCommand, row.values);
  else await env.dispatch('fw.create', { model, values: row.values });
  return 'created';
}

export const importCommands: CommandDecl[] = [
  {
    name: 'fw.import_batch',
    description: 'One batch of an import in one transaction: { model, rows: [{ line, id?, values }], dry_run? }',
    // the batch opens its own transaction (below), so a dry run can roll it back and still answer
    transaction: false,
    internal: true,
    async handler(env, payload) {
      if (typeof payload.model !== 'string') throw new BadRequest('payload.model must name a model', undefined, 'INVALID_PAYLOAD');
      const model = env.registry.model(payload.model);
      const rows = checkRows(payload.rows);
      const dryRun = payload.dry_run === true;
      try {
        return await env.transaction(async (tx) => {
          const result: BatchResult = { created: 0, updated: 0, errors: [], committed: false };
          for (const row of rows) {
            try {
              const done = await tx.transaction((sp) => writeRow(sp, model.key, model.createCommand, row));
              result[done] += 1;
            } catch (err) {
              if (!(err instanceof FwError) || err.status >= 500) throw err;
              result.errors.push(...rowErrors(row.line, err));
            }
          }
          if (dryRun || result.errors.length) throw new Rollback(result);
          return { ...result, committed: true };
        });
      } catch (err) {
        if (err instanceof Rollback) return err.result;
        throw err;
      }
    },
  },
];
