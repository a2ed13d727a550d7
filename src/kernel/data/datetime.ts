/**
 * The date-times fw takes in: ISO 8601 / RFC 3339 text, read strictly.
 *
 * JavaScript's `new Date(text)` takes far more than that, and takes some of it wrongly: it rolls
 * `2026-02-30` over to March 2, reads `2026`, `2026-1-5` or an RFC 2822 date, and puts a time
 * without an offset (`2026-01-15T10:00:00`) in the server's own time zone, so the same request
 * stored another instant on a server with another `TZ`. Here:
 * - `2026-03-31` is midnight UTC of that day (a date column, as a spreadsheet means it);
 * - `2026-03-31T14:00`, `…T14:00:05`, `…T14:00:05.123` (a space may stand for the `T`) without an
 *   offset are UTC, on every server;
 * - with an offset (`Z`, `+02:00`, `+0200`, `+02`) they are that instant;
 * - fractions of a second beyond milliseconds are cut, as a JavaScript date holds milliseconds;
 * - ISO's expanded years (`+010000-…`, `-001000-…`) are read too, so that the caller is told the
 *   year is out of range (src/kernel/data/values.ts) rather than that the text is no date;
 * - anything else, and any day, hour or offset the calendar does not have, is refused (null).
 */
const ISO = /^(\d{4}|[+-]\d{6})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Minutes east of UTC of `Z`, `+02:00`, `-0530` or `+02`; null when out of range. */
function offsetMinutes(zone: string | undefined): number | null {
  if (!zone || zone === 'Z' || zone === 'z') return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const h = Number(digits.slice(0, 2));
  const m = digits.length > 2 ? Number(digits.slice(2)) : 0;
  return h > 23 || m > 59 ? null : sign * (h * 60 + m);
}

/** The instant an ISO 8601 date or date-time names (rules above), or null. */
export function parseDateTime(text: string): Date | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1 || d > (mo === 2 && isLeap(y) ? 29 : DAYS[mo - 1]!)) return null;
  const [h, mi, s] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (h > 23 || mi > 59 || s > 59) return null;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const offset = offsetMinutes(m[8]);
  if (offset === null) return null;
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999
  const out = new Date(0);
  out.setUTCFullYear(y, mo - 1, d);
  out.setUTCHours(h, mi - offset, s, ms);
  return out;
}

/** What a refused date-time is told, after "expected". */
export const DATETIME_EXPECTED = 'an ISO 8601 date-time such as 2026-03-31T14:00:00Z (a date alone is midnight UTC; a time without an offset is UTC)';
