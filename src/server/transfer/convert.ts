import type { Cell } from './formats.js';
import { unneutralise } from './formats.js';
import { parseDateTime } from '../../kernel/data/datetime.js';
import type { TransferField } from './fields.js';

/**
 * One imported cell as the value the command bus takes for a field, or the reason it cannot be.
 * Only the shape is checked here (a number, a date, one of the values); sizes, required fields,
 * uniqueness and access are the bus's, reported by the dry run like any other row error.
 * References are resolved elsewhere (./import.ts): here they stay text.
 */
export type Converted = { ok: true; value: unknown } | { ok: false; message: string; values: { value: string; expected: string } };

const ok = (value: unknown): Converted => ({ ok: true, value });
/** `expected`: the field's type (integer, float, boolean, datetime, json), what a translation names */
const bad = (message: string, value: string, expected: string): Converted => ({ ok: false, message, values: { value, expected } });

const TRUE = new Set(['true', '1', 'yes', 'y', 'on', 'x']);
const FALSE = new Set(['false', '0', 'no', 'n', 'off']);
const INTEGER = /^[+-]?\d+$/;
// a number as people type it: no thousands separators (they differ by locale), a point or comma for decimals
const DECIMAL = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$/;

export function cellText(c: Cell): string {
  if (c === null) return '';
  if (c instanceof Date) return c.toISOString();
  return typeof c === 'string' ? unneutralise(c) : String(c);
}

/** Empty text means "no value" (null) for every type but a Char/Text that allows blank text. */
export function convertCell(f: TransferField, c: Cell): Converted {
  if (c === null || (typeof c === 'string' && c.trim() === '')) return ok(null);
  switch (f.type) {
    case 'integer': {
      if (typeof c === 'number') return Number.isInteger(c) ? ok(c) : bad(`${c} is not a whole number`, String(c), f.type);
      const t = cellText(c).trim();
      return INTEGER.test(t) && Number.isSafeInteger(Number(t)) ? ok(Number(t)) : bad(`"${t}" is not a whole number`, t, f.type);
    }
    case 'float': {
      if (typeof c === 'number') return ok(c);
      const t = cellText(c).trim();
      return DECIMAL.test(t) ? ok(Number(t.replace(',', '.'))) : bad(`"${t}" is not a number`, t, f.type);
    }
    case 'boolean': {
      if (typeof c === 'boolean') return ok(c);
      const t = cellText(c).trim().toLowerCase();
      if (TRUE.has(t)) return ok(true);
      if (FALSE.has(t)) return ok(false);
      return bad(`"${t}" is not yes/no (true, false, 1, 0, yes, no)`, t, f.type);
    }
    case 'datetime': {
      if (c instanceof Date) return ok(c.toISOString());
      const t = cellText(c).trim();
      // a date without a time is midnight UTC, as a date column of a spreadsheet means it; a
      // time without an offset is UTC too (src/kernel/data/datetime.ts)
      const d = parseDateTime(t);
      return !d ? bad(`"${t}" is not a date (write 2026-03-31 or 2026-03-31T14:00:00Z)`, t, f.type) : ok(d.toISOString());
    }
    case 'enum': {
      // the declared value whatever its case ("Won" for won); anything else is the bus's INVALID_ENUM
      const t = cellText(c).trim();
      return ok(f.values?.find((v) => v.toLowerCase() === t.toLowerCase()) ?? t);
    }
    case 'json': {
      const t = cellText(c);
      try {
        return ok(JSON.parse(t));
      } catch {
        return bad(`"${t.slice(0, 40)}" is not JSON`, t.slice(0, 40), f.type);
      }
    }
    default:
      // char, text, uuid, reference: the text itself (a Char keeps its spaces, as a form does)
      return ok(cellText(c));
  }
}
