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
 * - A pooler in transaction mode without prepared-statement support (PgBouncer < 1.21) hands the
 *   next read of a connection to another server connection, which answers "prepared statement
 *   does not exist" (26000) or, for a name another client prepared, "already exists" (42P05).
 *   Either turns naming off for this pool for good (`onPooler`) and the read runs again
 *   unnamed: a read outside a transaction can always be repeated.
 * - A migration that changes a selected column's type leaves a prepared statement of the same
 *   text whose result type no longer matches ("cached plan must not change result type",
 *   0A000). The connection is closed (and with it its statements) and the read runs again on
 *   another.
 *
 * A connection that fails a read is closed, as `pg.Pool.query` closes it.
 */
export interface StatementOptions {
  /** Statements kept per connection (PG_STATEMENT_CACHE); 0 = every read unnamed. */
  perConnection: number;
  types: pg.CustomTypesConfig;
  /** Called once when a pooler refused a named statement and naming was turned off. */
  onPooler?: () => void;
}

/** SQLSTATEs a transaction-mode pooler answers to a statement named on another server connection. */
const POOLER_CODES = new Set(['26000', '42P05']);
const isStaleResultType = (e: unknown): boolean =>
  (e as { code?: unknown }).code === '0A000' && /cached plan must not change result type/.test(String((e as Error).message));

const ignore = (): void => {};

/** Names by text, bounded: a name costs a hash of the text, kept for the texts seen recently. */
function statementNames(max = 1000): (sql: string) => string {
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

export function pooledStatements(pool: pg.Pool, opts: StatementOptions): (sql: string, params: readonly unknown[]) => Promise<unknown[][]> {
  let naming = opts.perConnection > 0;
  const nameOf = statementNames();
  /** The names each connection holds (the server keeps them as long as the connection lives). */
  const held = new WeakMap<pg.PoolClient, Set<string>>();

  const run = async (sql: string, params: readonly unknown[], named: boolean): Promise<unknown[][]> => {
    const config: pg.QueryArrayConfig = { text: sql, values: params as unknown[], rowMode: 'array', types: opts.types };
    if (!named) return (await pool.query(config)).rows as unknown[][];
    const client = await pool.connect();
    let names = held.get(client);
    if (!names) held.set(client, (names = new Set()));
    const name = nameOf(sql);
    if (names.has(name) || names.size < opts.perConnection) {
      config.name = name;
      names.add(name);
    }
    // a connection lost during the read also fails the read, which closes it below; without a
    // listener the client's 'error' event would end the process (pg.Pool.query listens too)
    client.on('error', ignore);
    try {
      const rows = (await client.query(config)).rows as unknown[][];
      client.off('error', ignore);
      client.release();
      return rows;
    } catch (e) {
      client.off('error', ignore);
      client.release(e instanceof Error ? e : true);
      throw e;
    }
  };

  return async (sql, params) => {
    if (!naming) return run(sql, params, false);
    try {
      return await run(sql, params, true);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (typeof code === 'string' && POOLER_CODES.has(code)) {
        // reads in flight together may all be refused: the first one says so
        if (naming) opts.onPooler?.();
        naming = false;
        return run(sql, params, false);
      }
      if (isStaleResultType(e)) return run(sql, params, true);
      throw e;
    }
  };
}
