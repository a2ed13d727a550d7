import { BadRequest, ValidationError } from '../errors.js';
import { DATETIME_EXPECTED, parseDateTime } from './datetime.js';
import { didYouMean } from '../registry/closest.js';
import type { ResolvedField, ResolvedModel } from '../registry/model.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `v` has the form of a record id (a UUID, any case). */
export const isRecordId = (v: unknown): v is string => typeof v === 'string' && UUID_RE.test(v);

/**
 * The instants a DateTime may hold, written or compared: years 1 to 9999 in UTC. JavaScript
 * dates reach ±275760 and include year 0, but on PostgreSQL a year 0, a negative (six-digit) year
 * or one past 294276 fails in the database (a 500), while SQLite stores the text. One range for
 * both engines, the years ISO 8601 writes with four digits, so a value means the same on each
 * and SQLite's stored text still sorts in time order.
 */
export const MIN_DATETIME = new Date('0001-01-01T00:00:00.000Z');
export const MAX_DATETIME = new Date('9999-12-31T23:59:59.999Z');

/**
 * PostgreSQL stores no NUL character (U+0000) in text or jsonb (the statement fails: a 500), and
 * the HTTP edge refuses it in bodies and query strings, but a GraphQL string literal
 * (`"a\u0000b"` inside the document) or an in-process dispatch still carries one here: it is
 * refused in every written or compared text on both engines, so SQLite does not store what
 * PostgreSQL could not.
 */
const NUL = '\u0000';
export const NUL_MESSAGE = 'contains a NUL character (U+0000), which text cannot hold';

/** Whether a JSON value holds a NUL in any string or key (iterative: no depth limit applies here). */
function jsonHasNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes(NUL)) return true;
    } else if (v !== null && typeof v === 'object') {
      // an array's keys are its indexes, which hold no NUL
      for (const [k, x] of Object.entries(v)) {
        if (k.includes(NUL)) return true;
        stack.push(x);
      }
    }
  }
  return false;
}

/** A refused value as a message shows it: its JSON, except what JSON cannot say (`1e400` is Infinity, not null), cut after 100 characters. */
function shown(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/** Code points of a text (counted only past the size in UTF-16 units, which is never fewer). */
function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // a high surrogate followed by a low one is one character
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/**
 * One value of one field, checked and converted to what Prisma stores. Throws a plain Error
 * with a human message; callers wrap it in the error class of their context. A value compared
 * in a filter (`purpose: 'filter'`) only has to fit the column: a field's size, `min` and `max`
 * bind what is written, not what may be searched for (`expected_revenue > -1` is a fine filter).
 */
export function coerceScalar(field: ResolvedField, v: unknown, purpose: 'write' | 'filter' = 'write'): unknown {
  const is = (t: string) => typeof v === t;
  const writing = purpose === 'write';
  switch (field.type) {
    case 'char':
    case 'text':
      if (!is('string')) throw new Error(`expected text, got ${typeof v}`);
      if ((v as string).includes(NUL)) throw new Error(NUL_MESSAGE);
      // characters as people and PostgreSQL's varchar count them (code points): an emoji is one,
      // though JavaScript's length counts it as two UTF-16 units
      if (writing && field.size && (v as string).length > field.size && codePoints(v as string) > field.size) {
        throw new Error(`longer than ${field.size} characters`);
      }
      return v;
    case 'integer':
      if (!Number.isInteger(v)) throw new Error(`expected an integer, got ${shown(v)}`);
      if (writing && (v as number) < (field.min ?? -Infinity)) throw new Error(`must be at least ${field.min}`);
      if (writing && (v as number) > (field.max ?? Infinity)) throw new Error(`must be at most ${field.max}`);
      if (Math.abs(v as number) > 2 ** 31 - 1) throw new Error('out of the 32-bit integer range');
      return v;
    case 'float':
      if (!is('number') || !Number.isFinite(v)) throw new Error(`expected a number, got ${shown(v)}`);
      return v;
    case 'boolean':
      if (!is('boolean')) throw new Error(`expected true or false, got ${shown(v)}`);
      return v;
    case 'datetime': {
      const d = v instanceof Date ? v : is('string') ? parseDateTime(v as string) : null;
      if (!d || Number.isNaN(d.getTime())) throw new Error(`expected ${DATETIME_EXPECTED}, got ${shown(v)}`);
      if (d < MIN_DATETIME || d > MAX_DATETIME) {
        throw new Error(`${shown(v)} is outside the years 1 to 9999 (UTC) a date-time may hold`);
      }
      return d;
    }
    case 'uuid':
    case 'reference':
      if (!isRecordId(v)) throw new Error(`expected a record id (UUID), got ${shown(v)}`);
      return (v as string).toLowerCase();
    case 'enum':
      if (!is('string') || !field.values!.includes(v as string)) {
        throw new Error(`expected one of ${field.values!.join(', ')}, got ${shown(v)}`);
      }
      return v;
    case 'json':
      if (jsonHasNul(v)) throw new Error(NUL_MESSAGE);
      return v;
    default:
      throw new Error(`${field.type} fields hold no value`);
  }
}

/**
 * One field's problem. `message` names the field by its key (for logs and API clients that
 * match on it); `label` and `reason` let a client say it in people's words ("Expected revenue
 * must be at least 0") without parsing the message.
 */
/** A value problem as the end of a sentence about the field ("must be an integer"), without the value echoed back. */
function reasonOf(message: string): string {
  const expected = /^expected (.+?), got /s.exec(message);
  if (expected) return `must be ${expected[1]}`;
  return message.startsWith('longer') ? `is ${message}` : message;
}

/**
 * Whether a written value counts as missing for a required field: blank text (nothing but
 * whitespace) in a Char or Text that does not declare `allow_empty`.
 */
export function isBlankRequired(field: ResolvedField, value: unknown): boolean {
  return field.required && !field.allowEmpty && (field.type === 'char' || field.type === 'text')
    && typeof value === 'string' && value.trim() === '';
}

export interface FieldProblem { field: string; code: string; message: string; label?: string; reason?: string }

/**
 * Values of a create or update turned into Prisma data. Every problem is collected so a client
 * learns all of them at once (422 with `details.errors`).
 */
export function toWriteData(
  model: ResolvedModel,
  values: Record<string, unknown>,
  mode: 'create' | 'update',
  opts: { allowReadonly?: boolean; canWrite?: (f: ResolvedField) => boolean } = {},
): Record<string, unknown> {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    // the payload's shape, as every other INVALID_PAYLOAD (400); 422 is for values that do not fit their fields
    throw new BadRequest(`${model.key}: values must be a JSON object`, undefined, 'INVALID_PAYLOAD');
  }
  const problems: FieldProblem[] = [];
  const data: Record<string, unknown> = {};
  const problem = (field: ResolvedField, code: string, message: string, reason: string) =>
    problems.push({ field: field.name, code, message, label: field.description || field.name, reason });
  for (const [name, v] of Object.entries(values)) {
    const field = model.fields.get(name);
    if (!field || (field.private && !opts.allowReadonly)) {
      // the near name among the fields this caller may write (a private one is never named)
      const writable = [...model.fields.values()].filter((f) => !f.private && !f.auto && f.type !== 'one2many' && !f.readonly && (!opts.canWrite || opts.canWrite(f)));
      problems.push({ field: name, code: 'UNKNOWN_FIELD', message: `${model.key} has no field "${name}"${didYouMean(name, writable.map((f) => f.name))}` });
      continue;
    }
    if (field.auto || field.type === 'one2many' || (field.readonly && !opts.allowReadonly)) {
      problem(field, 'READONLY_FIELD', `"${name}" is read-only`, 'is read-only');
      continue;
    }
    if (opts.canWrite && !opts.canWrite(field)) {
      problem(field, 'FIELD_ACCESS_DENIED', `you may not write "${name}"`, 'may not be changed by you');
      continue;
    }
    if (v === null || v === undefined) {
      if (field.notNull) problem(field, 'REQUIRED', `"${name}" is required`, 'is required');
      else data[name] = null;
      continue;
    }
    try {
      const value = coerceScalar(field, v);
      if (isBlankRequired(field, value)) problem(field, 'REQUIRED', `"${name}" is required (blank text is no value)`, 'is required');
      else data[name] = value;
    } catch (err) {
      const message = (err as Error).message;
      const code = message.startsWith('longer') ? 'TOO_LONG' : field.type === 'enum' ? 'INVALID_ENUM' : 'INVALID_TYPE';
      problem(field, code, `"${name}": ${message}`, reasonOf(message));
    }
  }
  if (mode === 'create') {
    for (const f of model.fields.values()) {
      if (f.required && !f.auto && f.stored && f.default === undefined && data[f.name] === undefined
        && !problems.some((p) => p.field === f.name)) {
        problem(f, 'REQUIRED', `"${f.name}" is required`, 'is required');
      }
    }
  }
  if (problems.length) {
    throw new ValidationError(problems.map((p) => p.message).join('; '), { model: model.key, errors: problems });
  }
  return data;
}

/** A stored row as clients see it: declared fields plus id, dbid, timestamps and revision. */
export function toRecord(model: ResolvedModel, row: Record<string, unknown>, hide?: (f: ResolvedField) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.record_uuid };
  for (const f of model.fields.values()) {
    if (!f.stored || f.private || f.name === 'record_uuid' || hide?.(f)) continue;
    const v = row[f.name];
    if (v === undefined) continue;
    out[f.name] = v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? Number(v) : v;
  }
  return out;
}
