/**
 * UPDATE statements kept by shape (src/kernel/data/sql/writes.ts): a kept text is handed out with
 * the new values in the order its placeholders take them (SET columns, then dbid, then revision),
 * and another shape is another text.
 */
import { describe, expect, it } from 'vitest';
import { compileUpdate } from '../../../src/kernel/data/sql/compile.ts';
import { updateStatement } from '../../../src/kernel/data/sql/writes.ts';
import { defineModel, f } from '../../../src/kernel/declare.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import { fixtureApp } from '../../helpers/kernel.ts';

const registry = createRegistry([fixtureApp('fixture_sw', {
  models: [defineModel({ key: 'sw.row', description: 'Row', fields: { name: f.char(20), n: f.integer() } })],
})]);
const model = registry.model('sw.row');
const fields = ['record_uuid', 'name', 'n', 'revision'].map((n) => model.fields.get(n)!);

describe.each(['sqlite', 'postgresql'] as const)('updateStatement on %s', (dialect) => {
  it('a kept statement gets each call\'s values in its placeholders\' order: SET columns, dbid, revision', () => {
    const first = updateStatement(model, { name: 'a', n: 1 }, { dbid: 7, revision: 3 }, fields, dialect);
    expect(first).toEqual(compileUpdate(model, { name: 'a', n: 1 }, { dbid: 7, revision: 3 }, fields, dialect));
    const again = updateStatement(model, { name: 'b', n: 2 }, { dbid: 8, revision: 4 }, fields, dialect);
    expect(again.sql).toBe(first.sql);
    expect(again).toEqual(compileUpdate(model, { name: 'b', n: 2 }, { dbid: 8, revision: 4 }, fields, dialect));
    expect(again.params).toEqual(['b', 2, 8, 4]);
  });

  it('other columns, another column order, or no revision in the WHERE is another statement', () => {
    const base = updateStatement(model, { name: 'a', n: 1 }, { dbid: 7, revision: 3 }, fields, dialect).sql;
    const swapped = updateStatement(model, { n: 1, name: 'a' }, { dbid: 7, revision: 3 }, fields, dialect);
    expect(swapped.sql).not.toBe(base);
    expect(swapped.params).toEqual([1, 'a', 7, 3]);
    const unguarded = updateStatement(model, { name: 'a', n: 1 }, { dbid: 7 }, fields, dialect);
    expect(base).toMatch(/ where "dbid" = \S+ and "revision" = \S+ returning /);
    expect(unguarded.sql).toMatch(/ where "dbid" = \S+ returning /);
    expect(unguarded.params).toEqual(['a', 1, 7]);
    expect(updateStatement(model, { name: 'c' }, { dbid: 9 }, fields, dialect).params).toEqual(['c', 9]);
  });
});
