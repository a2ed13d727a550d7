/**
 * A `datetime-local` input speaks wall-clock time without a zone; the API speaks UTC instants.
 * These convert between the two in the person's time zone (their `tz` preference, the
 * IntlProvider's `timeZone`), or the browser's when they chose none, so a form shows and takes
 * the same times the lists and the chatter show. The zone arithmetic is @internationalized/date's,
 * as the calendar's (web/src/views/calendar/range.ts), so a form and a calendar move agree.
 */
import { CalendarDateTime, fromAbsolute, toZoned } from '@internationalized/date';

const pad = (n: number) => String(n).padStart(2, '0');

/** `2026-03-29T02:30` for an ISO instant, in `timeZone` (the browser's when undefined); '' for no valid instant. */
export function toZonedInput(iso: string, timeZone?: string): string {
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return '';
  if (!timeZone) {
    const d = new Date(t);
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  }
  const w = fromAbsolute(t, timeZone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}`;
}

/**
 * The ISO instant a wall-clock `YYYY-MM-DDTHH:mm` names in `timeZone` (the browser's when
 * undefined); null for text that is no such time. A time a clock change repeats (02:30 on the night
 * summer time ends) is its first pass; one it skips (02:30 the night summer time starts) is read
 * with the offset from before the change, as browsers read their own zone (`compatible`).
 */
export function fromZonedInput(local: string, timeZone?: string): string | null {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)$/.exec(local);
  if (!m) return null;
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  if (!timeZone) {
    const t = new Date(y, mo - 1, d, h, mi).getTime();
    return Number.isNaN(t) ? null : new Date(t).toISOString();
  }
  return toZoned(new CalendarDateTime(y, mo, d, h, mi), timeZone, 'compatible').toDate().toISOString();
}
