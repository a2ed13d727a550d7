import type { FieldDecl, ModelDecl } from '../declare.js';
import { Conflict } from '../errors.js';
import type { FieldRename } from './renames.js';

/**
 * What a migration does to the rows a tenant already holds, read from the declarations (the
 * app's last snapshot against its current models) rather than from the SQL: the declarations say
 * exactly which field was removed, narrowed or added as required, where the SQL of a SQLite table
 * rebuild hides it in an INSERT … SELECT.
 *
 * `loses` marks the effects `fw migrate generate` refuses without `--allow-data-loss`: data that
 * would be gone after the upgrade (a dropped table or column, a narrowed type), and a required
 * column without a default added to a table that may have rows (PostgreSQL refuses it on a table
 * with rows; SQLite's rebuild would fail the same way). Effects that can only make the upgrade
 * fail, never lose anything (a field becoming required or unique), are printed but not refused:
 * the upgrade runs in a transaction and names the column (runner.ts).
 */
export interface DataEffect {
  /** `crm.lead.due_at`, or the model key for a whole table. */
  subject: string;
  what: string;
  loses: boolean;
}

export const effectLine = (e: DataEffect): string => `${e.subject}: ${e.what}`;

const has = (v: unknown): boolean => v !== undefined;
const defaultOf = (f: FieldDecl): unknown => ('default' in f ? f.default : undefined);

/** The type as the database holds it, ranked where one widens into another without loss. */
function describeType(f: FieldDecl): string {
  return f.type === 'char' ? `Char(${f.size})` : f.type;
}

/**
 * Whether every value of `from` converts to `to` unchanged. Char(n) widens to Char(m ≥ n) and to
 * text; an enum (at most 64 characters) to text or Char(≥ 64); integer to float; a reference to
 * a plain uuid and back (the values are uuids either way; a missing target fails the upgrade).
 */
function widens(from: FieldDecl, to: FieldDecl): boolean {
  if (from.type === to.type) return from.type !== 'char' || to.type !== 'char' || to.size >= from.size;
  if (to.type === 'text') return from.type === 'char' || from.type === 'enum';
  if (to.type === 'char') return from.type === 'enum' && to.size >= 64;
  if (to.type === 'float') return from.type === 'integer';
  if (to.type === 'uuid') return from.type === 'reference';
  if (to.type === 'reference') return from.type === 'uuid';
  return false;
}

export function dataEffects(before: readonly ModelDecl[] | null, after: readonly ModelDecl[], renames: readonly FieldRename[]): DataEffect[] {
  const out: DataEffect[] = [];
  const old = new Map((before ?? []).map((m) => [m.key, m]));
  for (const r of renames) out.push({ subject: `${r.model}.${r.to}`, what: `column renamed from ${r.from} — its data is kept`, loses: false });
  for (const m of after) {
    const prev = old.get(m.key);
    if (!prev) {
      out.push({ subject: m.key, what: 'table created', loses: false });
      continue;
    }
    for (const [name, f] of Object.entries(m.fields)) {
      if (f.type === 'one2many') continue;
      const subject = `${m.key}.${name}`;
      const p = prev.fields[name];
      if (!p || p.type === 'one2many') {
        const def = defaultOf(f);
        if (has(def)) out.push({ subject, what: `column added — existing rows get ${JSON.stringify(def)}`, loses: false });
        else if (f.required) {
          out.push({
            subject, loses: true,
            what: 'required column added without a default — the upgrade fails on a table with rows; give it a default, or add it optional, fill it in a data step, then make it required',
          });
        } else out.push({ subject, what: 'column added — existing rows hold null', loses: false });
        continue;
      }
      if (p.type !== f.type || (p.type === 'char' && f.type === 'char' && p.size !== f.size)) {
        const change = `${describeType(p)} → ${describeType(f)}`;
        if (widens(p, f)) out.push({ subject, what: `type widened (${change}) — values are kept`, loses: false });
        else out.push({ subject, what: `type narrowed (${change}) — values that do not fit are cut or lost`, loses: true });
      }
      if (p.type === 'enum' && f.type === 'enum') {
        // no column changes (an Enum is text), yet rows holding a removed value keep one the model
        // no longer declares: GraphQL cannot return it, and one such row fails a whole list
        const removed = p.values.filter((v) => !f.values.includes(v));
        if (removed.length) {
          out.push({
            subject, loses: true,
            what: `enum values removed (${removed.join(', ')}) — rows holding them keep a value the model no longer declares; move them to another value in a data step (--data)`,
          });
        }
      }
      const wasNullable = !p.required && !has(defaultOf(p));
      if (f.required && wasNullable) {
        const def = defaultOf(f);
        out.push({
          subject, loses: false,
          what: has(def)
            ? `becomes required — rows without a value get ${JSON.stringify(def)}`
            : 'becomes required — the upgrade fails if a row has no value; fill them first in a data step',
        });
      }
      if (f.unique && !p.unique) out.push({ subject, what: 'becomes unique — the upgrade fails if two rows share a value', loses: false });
    }
    for (const [name, p] of Object.entries(prev.fields)) {
      if (p.type !== 'one2many' && !(name in m.fields)) {
        out.push({ subject: `${m.key}.${name}`, what: 'column dropped — its data is lost', loses: true });
      }
    }
  }
  const now = new Set(after.map((m) => m.key));
  for (const key of old.keys()) if (!now.has(key)) out.push({ subject: key, what: 'table dropped — its rows are lost', loses: true });
  return out;
}

/**
 * Refuses effects that lose data, listing them (`fw migrate generate --allow-data-loss` writes
 * anyway); `remedy` is how to go on where that flag is not the way (fw dev).
 */
export function assertNoDataLoss(app: string, effects: readonly DataEffect[], remedy = 'or run again with --allow-data-loss to write it anyway'): void {
  const losing = effects.filter((e) => e.loses);
  if (!losing.length) return;
  throw new Conflict(
    `the next migration of ${app} would lose data:\n${losing.map((e) => `  ${effectLine(e)}`).join('\n')}\n` +
      `declare renamed fields with renamed_from, ${remedy}`,
    { app, effects: losing.map(effectLine) },
    'MIGRATION_LOSES_DATA',
  );
}
