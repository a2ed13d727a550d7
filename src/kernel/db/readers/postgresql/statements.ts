import crypto from 'node:crypto';
import type pg from 'pg';

/**
 * The compiled reads, sent as named statements so each connection parses and plans a statement
 * once instead of on every read (docs/decisions.md, "PostgreSQL reads are prepared once per
 * connection"). The same SQL text always carries the same name (a hash of the text), so two
 * connections, or a pooler's server connections, never hold one name for two statements.
 *
 * - Each connection keeps at most `perConnection` of them; a text first seen on a connection that
 *   is full is sent unnamed there, so the server's memory per connection stays bounded however
 *   many different reads arrive.
 * - A prepared statement keeps the types it was prepared with. After a migration changes a
 *   column's type, running it again can fail where the same text unnamed would not: a selected
 *   column ("cached plan must not change result type", 0A000) or a compared one ("operator does
 *   not exist: integer = text", 42883, and the rest of class 42). So a read that *reused* a
 *   statement and fails with 0A000 or a class-42 error runs again unnamed, once; its connection
 *   is closed (a failed read always closes it), and with it every statement it held. Each other
 *   connection holding the same statement costs one such repeat, never a failed read. A read
 *   whose statement is really wrong fails again, unnamed, with its own error.
 * - A pooler in transaction mode without prepared-statement support (PgBouncer < 1.21) hands the
 *   next read of a connection to another server connection, which answers "prepared statement
 *   does not exist" (26000) or, for a name another client prepared there, "already exists"
 *   (42P05). Such a read runs again unnamed; after POOLER_REFUSALS of them naming is turned off
 *   for this pool for good (`onPooler`). One refusal alone may be someone's `DEALLOCATE ALL`.
 *
 * Every repeat is a read outside a transaction, refused at Parse or Bind, before it ran.
 */
export interface StatementOptions {
  /** Statements kept per connection (PG_STATEMENT_CACHE); 0 = every read unnamed. */
  perConnection: number;
  types: pg.CustomTypesConfig;
  /** Called once, when refusals of named statements turned naming off for this pool. */
  onPooler?: () => void;
}

/** SQLSTATEs a transaction-mode pooler answers to a statement named on another server connection. */
const POOLER_CODES = new Set(['26000', '42P05']);
/** Refusals by a pooler after which a pool's reads are all sent unnamed. */
export const POOLER_REFUSALS = 3;
const codeOf = (e: unknown): string => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};
/** What a statement prepared before a migration can answer where the same text unnamed would not. */
const isStale = (code: string): boolean => code === '0A000' || (code.startsWith('42') && !POOLER_CODES.has(code));

const ignore = (): void => {};

/**
 * Names by text, bounded: a name costs a hash of the text, kept for the texts seen recently. The
 * bench's PostgreSQL floors name their statements with it too, as fw's reader does.
 */
export function statementNames(max = 1000): (sql: string) => string {
  const names = new Map<string, string>();
  return (sql) => {
    let name = names.get(sql);
    if (name === undefined) {
      if (names.size >= max) names.clear();
      name = `fw_${crypto.createHash('sha256').update(sql).digest('base64url').slice(0, 22)}`;
      names.set(sql, name);
    }
    return name;
  };
}

/** A read's rows as arrays, its values parsed by `types`; a named statement when `name` is given. */
export async function arrayRows(on: pg.Pool | pg.ClientBase, sql: string, params: readonly unknown[], types: pg.CustomTypesConfig, name?: string): Promise<unknown[][]> {
  const config: pg.QueryArrayConfig = { text: sql, values: params as unknown[], rowMode: 'array', types, ...(name ? { name } : {}) };
  return (await on.query<unknown[]>(config)).rows;
}

export function pooledStatements(pool: pg.Pool, opts: StatementOptions): (sql: string, params: readonly unknown[]) => Promise<unknown[][]> {
  let naming = opts.perConnection > 0;
  let refusals = 0;
  const nameOf = statementNames();
  /** The names each connection holds (the server keeps them as long as the connection lives). */
  const held = new WeakMap<pg.PoolClient, Set<string>>();

  const unnamed = (sql: string, params: readonly unknown[]): Promise<unknown[][]> => arrayRows(pool, sql, params, opts.types);

  const named = async (sql: string, params: readonly unknown[]): Promise<unknown[][]> => {
    const name = nameOf(sql);
    const client = await pool.connect();
    let names = held.get(client);
    if (!names) held.set(client, (names = new Set()));
    const reused = names.has(name);
    const keep = reused || names.size < opts.perConnection;
    if (keep) names.add(name);
    // a connection lost during the read also fails the read, which closes it below; without a
    // listener the client's 'error' event would end the process (pg.Pool.query listens too)
    client.on('error', ignore);
    let rows: unknown[][];
    try {
      rows = await arrayRows(client, sql, params, opts.types, keep ? name : undefined);
    } catch (e) {
      client.off('error', ignore);
      client.release(e instanceof Error ? e : true);
      const code = codeOf(e);
      if (POOLER_CODES.has(code)) {
        // reads in flight together may all be refused: the one that reaches the limit says so
        if (++refusals === POOLER_REFUSALS) {
          naming = false;
          opts.onPooler?.();
        }
        return unnamed(sql, params);
      }
      if (reused && isStale(code)) return unnamed(sql, params);
      throw e;
    }
    client.off('error', ignore);
    client.release();
    return rows;
  };

  return (sql, params) => (naming ? named(sql, params) : unnamed(sql, params));
}
