/**
 * The PostgreSQL reader's named statements (src/kernel/db/readers/postgresql/statements.ts): a
 * read is prepared once per connection under a name derived from its text, at most
 * PG_STATEMENT_CACHE of them per connection, none with 0; a migration that changes a selected or
 * compared column's type, someone's DEALLOCATE ALL, a failed read and a connection lost mid-read
 * all leave the reader answering, and so does a connection the server ends while the pool holds it.
 * (Behind PgBouncer in transaction mode: tests/kernel/db/pgbouncer.test.ts.)
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPostgresReader } from '../../../src/kernel/db/readers/postgresql/index.ts';
import type { Reader } from '../../../src/kernel/db/readers/types.ts';
import { PG_URL, pgDatabaseUrl, uniquePgPrefix, withPgClient } from '../../helpers/kernel.ts';

const database = `${uniquePgPrefix()}statements`;
const url = pgDatabaseUrl(database);
const elsewhere = (sql: string) => withPgClient(url, (c) => c.query(sql));

describe('the PostgreSQL reader names its statements', () => {
  let pool: pg.Pool;
  let reader: Reader;
  /** The statements prepared on the pool's one connection (pg_prepared_statements is per session). */
  const prepared = async () => (await pool.query<{ statement: string }>("select statement from pg_prepared_statements where name like 'fw\\_%' order by statement")).rows.map((r) => r.statement);
  const open = (statementsPerConnection: number, max = 1) => {
    pool = new pg.Pool({ connectionString: url, max });
    reader = createPostgresReader(pool, { statementsPerConnection });
  };

  beforeAll(async () => {
    await withPgClient(PG_URL, (c) => c.query(`create database "${database}"`));
  });
  beforeEach(async () => {
    await elsewhere("drop table if exists item; create table item (id int primary key, name text, code text); insert into item values (1, 'one', '10'), (2, 'two', '20')");
  });
  afterEach(async () => {
    await reader.close();
  });
  afterAll(async () => {
    await withPgClient(PG_URL, (c) => c.query(`drop database if exists "${database}" with (force)`));
  });

  it('a read is prepared once on its connection and answers every later run with that run\'s parameters', async () => {
    open(100);
    const sql = 'select name from item where id = $1';
    expect(await reader.rows(sql, [1])).toEqual([['one']]);
    expect(await reader.rows(sql, [2])).toEqual([['two']]);
    expect(await reader.rows(sql, [3])).toEqual([]);
    expect(await prepared()).toEqual([sql]);
  });

  it('a connection keeps at most PG_STATEMENT_CACHE statements, and reads beyond them are answered unnamed', async () => {
    open(2);
    const texts = ['select name from item where id = $1', 'select code from item where id = $1', 'select id from item where name = $1'];
    expect(await reader.rows(texts[0]!, [1])).toEqual([['one']]);
    expect(await reader.rows(texts[1]!, [2])).toEqual([['20']]);
    expect(await reader.rows(texts[2]!, ['two'])).toEqual([[2]]);
    expect(await reader.rows(texts[2]!, ['one'])).toEqual([[1]]);
    expect(await prepared()).toEqual([texts[1], texts[0]].sort());
  });

  it('with PG_STATEMENT_CACHE=0 nothing is prepared', async () => {
    open(0);
    expect(await reader.rows('select name from item where id = $1', [1])).toEqual([['one']]);
    expect(await prepared()).toEqual([]);
  });

  it('after a migration changes a selected column\'s type, no read fails on any connection that prepared the statement before', async () => {
    open(100, 3);
    const sql = 'select code from item order by id';
    // three reads at once: each of the three connections prepares the statement
    const before = await Promise.all([1, 2, 3].map(() => reader.rows(sql, [])));
    expect(before).toEqual([1, 2, 3].map(() => [['10'], ['20']]));
    expect(pool.totalCount).toBe(3);
    await elsewhere('alter table item alter column code type int using code::int');
    // each stale connection is refused once ("cached plan must not change result type"): the
    // read runs again unnamed and that connection is closed
    for (let i = 0; i < 6; i++) expect(await reader.rows(sql, [])).toEqual([[10], [20]]);
    expect(await Promise.all([1, 2, 3].map(() => reader.rows(sql, [])))).toEqual([1, 2, 3].map(() => [[10], [20]]));
  });

  it('after a migration changes a compared column\'s type, the statement prepared with the old parameter type does not fail the read', async () => {
    open(100);
    const sql = 'select id from item where code = $1';
    expect(await reader.rows(sql, ['10'])).toEqual([[1]]);
    await elsewhere('alter table item alter column code type int using code::int');
    // prepared as text = text; now int = text, which the server refuses (42883)
    expect(await reader.rows(sql, ['20'])).toEqual([[2]]);
    expect(await reader.rows(sql, ['10'])).toEqual([[1]]);
    expect(await prepared()).toEqual([sql]);
  });

  it('one "prepared statement does not exist" (someone ran DEALLOCATE ALL) repeats that read and keeps naming on', async () => {
    open(100);
    const sql = 'select name from item where id = $1';
    expect(await reader.rows(sql, [1])).toEqual([['one']]);
    await pool.query('deallocate all');
    expect(await reader.rows(sql, [2])).toEqual([['two']]);
    expect(await reader.rows(sql, [1])).toEqual([['one']]);
    expect(await prepared()).toEqual([sql]);
  });

  it('a read whose prepared statement is really wrong fails with its own error, not a repeat\'s', async () => {
    open(100);
    await expect(reader.rows('select no_such_column from item where id = $1', [1])).rejects.toMatchObject({ code: '42703' });
    expect(await prepared()).toEqual([]);
  });

  it('a read that fails gives its error and returns no connection to the pool that is still checked out', async () => {
    open(100, 2);
    await expect(reader.rows('select no_such_column from item', [])).rejects.toMatchObject({ code: '42703' });
    await expect(reader.rows('select 1 / (id - id) from item', [])).rejects.toMatchObject({ code: '22012' });
    expect(pool.totalCount - pool.idleCount).toBe(0);
    expect(await reader.rows('select name from item where id = $1', [2])).toEqual([['two']]);
  });

  it('a connection lost during a read (the socket reset) fails that read, and the process and the next read go on', async () => {
    open(100);
    let cut = false;
    pool.on('connect', (client) => {
      if (cut) return;
      cut = true;
      // pg's own socket, reset while the read waits on the server: the client emits 'error'
      const stream = (client as unknown as { connection: { stream: { destroy(e: Error): void } } }).connection.stream;
      setTimeout(() => stream.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })), 100);
    });
    const outcome = await reader.rows('select pg_sleep(1), name from item where id = $1', [1]).then(() => null, (e: unknown) => e);
    expect(outcome).toMatchObject({ code: 'ECONNRESET' });
    expect(await reader.rows('select name from item where id = $1', [1])).toEqual([['one']]);
  });

  it('a connection the server ends while it is idle in the pool does not end the process (the reader listens for the pool\'s error), and the next read opens another', async () => {
    open(100);
    expect(await reader.rows('select name from item where id = $1', [1])).toEqual([['one']]);
    expect(pool.idleCount).toBe(1);
    const removed = new Promise((resolve) => pool.once('remove', resolve));
    // pg-pool emits 'error' on the pool for this; with no listener that is an uncaught exception
    await elsewhere(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${database}' and pid <> pg_backend_pid()`);
    await removed;
    expect(pool.totalCount).toBe(0);
    expect(await reader.rows('select name from item where id = $1', [2])).toEqual([['two']]);
  });

  it('a connection the server ends during a read fails that read, and the next read goes on', async () => {
    open(100);
    const sleeping = reader.rows('select pg_sleep(5), name from item where id = $1', [1]).then(() => null, (e: unknown) => e);
    await withPgClient(url, async (c) => {
      for (let i = 0; i < 100; i++) {
        const { rowCount } = await c.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and query like 'select pg_sleep(5)%'", [database]);
        if (rowCount) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('the sleeping read never showed up in pg_stat_activity');
    });
    expect(await sleeping).toMatchObject({ code: '57P01' });
    expect(await reader.rows('select name from item where id = $1', [1])).toEqual([['one']]);
  });
});
