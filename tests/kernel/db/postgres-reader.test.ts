/**
 * The PostgreSQL reader's result cache: a kept result is served only to a read whose own check of
 * the server's snapshot, taken after the read started, found nothing committed since the result
 * was read. Concurrent reads share one check, and steady commits turn the check off for a while.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPostgresReader } from '../../../src/kernel/db/readers/postgresql/index.ts';
import type { Reader } from '../../../src/kernel/db/readers/types.ts';
import { PG_URL, pgDatabaseUrl, uniquePgPrefix, waitFor, withPgClient } from '../../helpers/kernel.ts';

const SELECT = 'select name from item order by id';
const database = `${uniquePgPrefix()}reader`;
const url = pgDatabaseUrl(database);

/** A statement run by another connection (another process, as far as the reader knows). */
const elsewhere = (sql: string) => withPgClient(url, (c) => c.query(sql));

describe('the PostgreSQL reader', () => {
  let pool: pg.Pool;
  let reader: Reader;
  let calls: ReturnType<typeof vi.spyOn>;
  const snapshotChecks = () => calls.mock.calls.filter(([q]: unknown[]) => (q as { text?: string }).text === 'SELECT pg_current_snapshot()::text').length;
  const statementRuns = (sql: string) => calls.mock.calls.filter(([q]: unknown[]) => (q as { text?: string }).text === sql).length;
  const names = async () => (await reader.rows(SELECT, [])).map((r) => r[0]);

  beforeAll(async () => {
    await withPgClient(PG_URL, (c) => c.query(`create database "${database}"`));
    await elsewhere("create table item (id int primary key, name text); insert into item values (1, 'one'), (2, 'two')");
  });
  afterAll(async () => {
    await withPgClient(PG_URL, (c) => c.query(`drop database if exists "${database}" with (force)`));
  });
  // a fresh reader per test: each starts with an empty cache and the check turned on
  const open = (cacheRows = 100) => {
    pool = new pg.Pool({ connectionString: url, max: 3 });
    calls = vi.spyOn(pool, 'query');
    reader = createPostgresReader(pool, { cacheRows });
  };
  afterEach(async () => {
    await reader.close();
  });

  it('reads started in the same turn share one snapshot check and one run of the statement', async () => {
    open();
    const all = await Promise.all(Array.from({ length: 10 }, () => reader.rows(SELECT, [])));
    for (const rows of all) expect(rows).toEqual([['one'], ['two']]);
    expect(snapshotChecks()).toBe(1);
    expect(statementRuns(SELECT)).toBe(1);
  });

  it('a read that starts after a check was sent waits for a check of its own', async () => {
    open();
    const first = reader.rows(SELECT, []);
    await new Promise((r) => setImmediate(r)); // the first read's check is on its way
    expect(snapshotChecks()).toBe(1);
    const second = reader.rows(SELECT, []);
    await Promise.all([first, second]);
    expect(snapshotChecks()).toBe(2);
  });

  it('the same read with nothing committed since is answered from the cache', async () => {
    open();
    await waitFor(async () => {
      await names();
      const before = statementRuns(SELECT);
      const again = await names();
      expect(again).toEqual(['one', 'two']);
      // another test file's commit anywhere in the cluster is a miss: retried until a quiet moment
      return statementRuns(SELECT) === before;
    }, 'a read answered without running the statement', 20_000);
    expect(reader.stats().hits).toBeGreaterThan(0);
  });

  it('a commit by another connection is seen by the next read', async () => {
    open();
    expect(await names()).toEqual(['one', 'two']);
    await elsewhere("update item set name = 'uno' where id = 1");
    expect(await names()).toEqual(['uno', 'two']);
    await elsewhere("update item set name = 'one' where id = 1");
    expect(await names()).toEqual(['one', 'two']);
  });

  it('a write that began before a result was kept and commits after it is seen by the next read', async () => {
    open();
    await withPgClient(url, async (writer) => {
      await writer.query('begin');
      await writer.query("update item set name = 'pending' where id = 2"); // holds a transaction id from here
      expect(await names()).toEqual(['one', 'two']);
      expect(await names()).toEqual(['one', 'two']);
      await writer.query('commit');
    });
    expect(await names()).toEqual(['one', 'pending']);
    await elsewhere("update item set name = 'two' where id = 2");
  });

  it('a failing statement is not kept: the same read runs it again and fails again', async () => {
    open();
    const divide = 'select 10 / $1::int';
    await expect(reader.rows(divide, [0])).rejects.toThrow(/division by zero/);
    await expect(reader.rows(divide, [0])).rejects.toThrow(/division by zero/);
    expect(statementRuns(divide)).toBe(2);
    expect(await reader.rows(divide, [5])).toEqual([[2]]);
  });

  it('under steady commits the check turns itself off: fewer checks than reads, and every read sees the last commit', async () => {
    open();
    const reads = 30;
    for (let i = 0; i < reads; i++) {
      await elsewhere(`update item set name = 'n${i}' where id = 1`);
      expect((await names())[0]).toBe(`n${i}`);
    }
    expect(snapshotChecks()).toBeLessThan(reads);
    await elsewhere("update item set name = 'one' where id = 1");
  });

  it('the bypass counts checks, not reads: with two concurrent reads per commit it still turns itself off', async () => {
    open();
    const rounds = 30;
    for (let i = 0; i < rounds; i++) {
      await elsewhere(`update item set name = 'm${i}' where id = 1`);
      const [a, b] = await Promise.all([names(), names()]);
      expect([a[0], b[0]]).toEqual([`m${i}`, `m${i}`]);
    }
    expect(snapshotChecks()).toBeLessThan(rounds);
    await elsewhere("update item set name = 'one' where id = 1");
  });

  it('reads that rarely find their result kept turn the check off, even when most checks see the same snapshot: fewer checks than reads, every read fresh', async () => {
    open();
    // between two commits, three different statements: the snapshot holds for two of the three
    // checks, but no read is ever a hit (many users on many pages between writes)
    const statements = ['select name from item where id = 1', 'select name from item where id = $1', 'select upper(name) from item where id = 1'];
    const params = [[], [1], []];
    const rounds = 20;
    for (let i = 0; i < rounds; i++) {
      await elsewhere(`update item set name = 'p${i}' where id = 1`);
      for (let k = 0; k < statements.length; k++) {
        const [[value]] = await reader.rows(statements[k]!, params[k]!) as [[string]];
        expect(value.toLowerCase()).toBe(`p${i}`);
      }
    }
    expect(reader.stats().hits).toBe(0);
    expect(snapshotChecks()).toBeLessThan(rounds * statements.length);
    await elsewhere("update item set name = 'one' where id = 1");
  });

  it('cacheRows 0: no check, every read runs its statement', async () => {
    open(0);
    await names();
    await names();
    expect(snapshotChecks()).toBe(0);
    expect(statementRuns(SELECT)).toBe(2);
    expect(reader.stats()).toEqual({ hits: 0, misses: 0 });
  });
});
