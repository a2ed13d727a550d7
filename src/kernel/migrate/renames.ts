import {
  DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, SqliteAdapter, SqliteIntrospector,
  SqliteQueryCompiler, type Compilable,
} from 'kysely';
import type { FieldDecl, ModelDecl } from '../declare.js';
import { BadRequest } from '../errors.js';
import type { DbProvider } from '../generate/prisma-schema.js';
import { columnObjectName, modelNames } from '../registry/names.js';

/**
 * Fields declared `renamed_from: 'old'`. The schema engine diffs two datamodels and cannot tell a
 * renamed field from one dropped and another added (it wrote DROP COLUMN "due_at" + ADD COLUMN
 * "deadline", losing the data). So before diffing, the rename is applied to the last snapshot —
 * the engine then only sees what else changed — and the rename itself is written by us, first in
 * the migration: ALTER TABLE … RENAME COLUMN (SQLite ≥ 3.25, PostgreSQL), which keeps the data.
 */
export interface FieldRename {
  model: string;
  table: string;
  from: string;
  to: string;
  /** The field as the snapshot had it (for the derived objects below). */
  before: FieldDecl;
}

/**
 * The snapshot with every pending rename applied (`snapshot`, what the data effects compare
 * against; `diffFrom`, the same without the objects named after a renamed column, what the engine
 * diffs from: see withoutDerived), and those renames. A rename is pending when the
 * snapshot still holds the old name and not the new one; once the migration is written its
 * snapshot holds the new name, so a `renamed_from` left in place renames nothing again.
 */
export function applyRenames(app: string, snapshot: readonly ModelDecl[] | null, models: readonly ModelDecl[]): {
  snapshot: ModelDecl[] | null;
  diffFrom: ModelDecl[] | null;
  renames: FieldRename[];
} {
  const renames: FieldRename[] = [];
  if (!snapshot) {
    const first = models.flatMap((m) => Object.entries(m.fields).filter(([, f]) => f.renamed_from).map(([n]) => `${m.key}.${n}`))[0];
    if (first) throw unknownRename(app, first, 'the app has no migration yet');
    return { snapshot: null, diffFrom: null, renames };
  }
  const out = snapshot.map((m) => ({ ...m, fields: { ...m.fields } }));
  const diffFrom = snapshot.map((m) => ({ ...m, fields: { ...m.fields } }));
  for (const m of models) {
    for (const [name, field] of Object.entries(m.fields)) {
      const old = field.renamed_from;
      if (!old) continue;
      const where = `${m.key}.${name}`;
      const before = out.find((s) => s.key === m.key);
      if (!before) throw unknownRename(app, where, `model ${m.key} is not in the app's last migration`);
      if (name in before.fields) continue; // already renamed by an earlier migration
      const previous = before.fields[old];
      if (!previous) throw unknownRename(app, where, `the app's last migration has no field ${m.key}.${old}`);
      if (old in m.fields) {
        throw new BadRequest(`${where}: renamed_from "${old}" names a field that is still declared`, { field: where, renamed_from: old }, 'RENAMED_FROM_UNKNOWN');
      }
      if (previous.type === 'one2many') continue; // no column: nothing to rename
      // keep the field order of the snapshot, so the engine sees no other change
      const rename = (fields: ModelDecl['fields'], as: (f: FieldDecl) => FieldDecl): ModelDecl['fields'] =>
        Object.fromEntries(Object.entries(fields).map(([n, f]) => (n === old ? [name, as(f)] : [n, f])));
      before.fields = rename(before.fields, (f) => f);
      const bare = diffFrom.find((s) => s.key === m.key);
      if (bare) bare.fields = rename(bare.fields, withoutDerived);
      renames.push({ model: m.key, table: modelNames(m.key).table, from: old, to: name, before: previous });
    }
  }
  return { snapshot: out, diffFrom, renames };
}

function unknownRename(app: string, where: string, why: string): BadRequest {
  return new BadRequest(`${where}: renamed_from names a field that never existed (${why}, app ${app})`, { field: where }, 'RENAMED_FROM_UNKNOWN');
}

/**
 * The renamed field in the "before" snapshot without the objects named after its column: the
 * index (`<table>_<old>_idx`), unique index (`<table>_<old>_key`) and, on PostgreSQL, foreign
 * key (`<table>_<old>_fkey`) keep their old names through RENAME COLUMN, while the engine would
 * believe them already named after the new column. Dropping them here (renameSql) and letting the
 * engine re-create them under the new name keeps later migrations' DROP INDEX statements right.
 */
function withoutDerived(f: FieldDecl): FieldDecl {
  const { index: _index, unique: _unique, ...rest } = f;
  if (rest.type !== 'reference') return rest;
  const { target: _target, on_delete: _onDelete, if_loaded: _ifLoaded, ...plain } = rest;
  return { ...plain, type: 'uuid' };
}

function compiler(provider: DbProvider): Kysely<Record<string, never>> {
  // compile-only: DummyDriver never connects, the dialect's compiler gives the quoting
  return new Kysely({
    dialect: provider === 'sqlite'
      ? {
        createAdapter: () => new SqliteAdapter(), createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new SqliteIntrospector(db), createQueryCompiler: () => new SqliteQueryCompiler(),
      }
      : {
        createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new PostgresIntrospector(db), createQueryCompiler: () => new PostgresQueryCompiler(),
      },
  });
}

const statement = (q: Compilable): string => `${q.compile().sql};`;

/** The statements renaming the columns (and dropping what was named after the old ones), per engine. */
export function renameSql(renames: readonly FieldRename[], provider: DbProvider): string {
  const db = compiler(provider);
  const out: string[] = [];
  for (const r of renames) {
    out.push(`-- ${r.model}.${r.from} renamed to ${r.to}: the column keeps its data`);
    out.push(statement(db.schema.alterTable(r.table).renameColumn(r.from, r.to)));
    // a Reference is always indexed (registry/model.ts), whatever its declaration says
    if (r.before.unique) out.push(statement(db.schema.dropIndex(columnObjectName(r.table, r.from, 'key'))));
    else if (r.before.index || r.before.type === 'reference') out.push(statement(db.schema.dropIndex(columnObjectName(r.table, r.from, 'idx'))));
    if (r.before.type === 'reference' && provider === 'postgresql') {
      // IF EXISTS: an if_loaded Reference whose target app is inactive has no foreign key
      out.push(statement(db.schema.alterTable(r.table).dropConstraint(columnObjectName(r.table, r.from, 'fkey')).ifExists()));
    }
  }
  return out.join('\n');
}
