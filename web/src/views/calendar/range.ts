/**
 * The calendar's date arithmetic, in the person's time zone (their `tz` preference, the
 * IntlProvider's `timeZone`; the browser's when they chose none), as every other date of the client
 * is shown: which days a month, week or day shows and the UTC instants that bound them, the day a
 * record falls on there, and moving a record to another day at the same wall-clock time. Days are
 * `CalendarDate`s (a date with no zone, no time, no daylight-saving hour to trip over) and zones
 * are @internationalized/date's, whose disambiguation is the forms' (web/src/widgets/zoned-time.ts):
 * a time a clock change repeats is its first pass, one it skips is read with the offset from before
 * the change. Pure functions, so they are tested without a browser.
 *
 * A value without a time (`2031-03-10`) is a calendar day, not a moment: no zone moves it, as
 * the `date` display shows it (web/src/widgets/display.tsx).
 */
import { fromAbsolute, parseDate, startOfMonth, toCalendarDate, toCalendarDateTime, toTime, toZoned, today, type CalendarDate } from '@internationalized/date';

export type { CalendarDate } from '@internationalized/date';

export const CALENDAR_MODES = ['month', 'week', 'day'] as const;
export type CalendarMode = (typeof CALENDAR_MODES)[number];

export const isMode = (v: unknown): v is CalendarMode => (CALENDAR_MODES as readonly unknown[]).includes(v);

const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** `YYYY-MM-DD`: the URL's `date`, a day cell's id. */
export const dayKey = (d: CalendarDate): string => d.toString();

/** The day a `YYYY-MM-DD` names; null for anything else (a hand-edited URL, 2031-02-30). */
export function parseDayKey(key: string | undefined): CalendarDate | null {
  if (!key || !DAY_ONLY.test(key)) return null;
  try {
    return parseDate(key);
  } catch {
    return null;
  }
}

/** Today in `timeZone`: in Pacific/Kiritimati it is tomorrow for most of the world's morning. */
export const todayIn = (timeZone: string): CalendarDate => today(timeZone);

/** The first instant of `day` in `timeZone`: its midnight, or 01:00 where a clock change skips midnight. */
export const startOfDayIn = (day: CalendarDate, timeZone: string): Date => toZoned(day, timeZone, 'compatible').toDate();

/** Whether a value is a calendar day (`YYYY-MM-DD`) rather than a moment. */
export const isDayOnly = (value: string): boolean => DAY_ONLY.test(value);

/**
 * The day `value` falls on in `timeZone`: an instant's day there (23:30 UTC is the next morning in
 * Auckland), a calendar day as it is; null for a value that is neither.
 */
export function dayOf(value: string, timeZone: string): CalendarDate | null {
  if (isDayOnly(value)) return parseDayKey(value);
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : toCalendarDate(fromAbsolute(t, timeZone));
}

export interface CalendarRange {
  /** first day shown */
  start: CalendarDate;
  /** the day after the last day shown (exclusive) */
  end: CalendarDate;
  /** the days shown, in weeks of seven (month, week) or one day */
  weeks: CalendarDate[][];
  /** the instants the range covers in the zone, `from` included, `to` excluded: what the API is asked for */
  from: Date;
  to: Date;
}

/**
 * The days a mode shows around `anchor`: a month as whole weeks (from the week holding its first
 * day to the one holding its last), a week starting on `firstDay` (0 Sunday … 6 Saturday), a day;
 * with the instants its first day starts and the day after its last starts in `timeZone`.
 */
export function rangeOf(mode: CalendarMode, anchor: CalendarDate, firstDay: number, timeZone: string): CalendarRange {
  // the library's startOfWeek would bring its table of every region's first day: the locale's is given
  const weekStart = (d: CalendarDate) => d.subtract({ days: (((dayAsUtcDate(d).getUTCDay() - firstDay) % 7) + 7) % 7 });
  const span = (start: CalendarDate, days: number): CalendarRange => {
    const list = Array.from({ length: days }, (_, i) => start.add({ days: i }));
    const weeks = days === 1 ? [list] : Array.from({ length: days / 7 }, (_, w) => list.slice(w * 7, w * 7 + 7));
    const end = start.add({ days });
    return { start, end, weeks, from: startOfDayIn(start, timeZone), to: startOfDayIn(end, timeZone) };
  };
  if (mode === 'day') return span(anchor, 1);
  if (mode === 'week') return span(weekStart(anchor), 7);
  const start = weekStart(startOfMonth(anchor));
  const afterLast = startOfMonth(anchor).add({ months: 1 });
  return span(start, Math.ceil(afterLast.compare(start) / 7) * 7);
}

/** The anchor of the previous (`step` -1) or next (+1) range: a month, a week or a day away. */
export function stepAnchor(mode: CalendarMode, anchor: CalendarDate, step: number): CalendarDate {
  // a month steps to the 1st, so stepping from the 31st never skips a shorter month
  if (mode === 'month') return startOfMonth(anchor).add({ months: step });
  return anchor.add({ days: step * (mode === 'week' ? 7 : 1) });
}

/**
 * `value` moved to `day` at the same wall-clock time in `timeZone` (09:00 stays 09:00 across a
 * daylight-saving change; a time the change skips on that day is read as the forms read it); a
 * calendar day becomes `day`. Null for a value that is neither.
 */
export function moveToDay(value: string, day: CalendarDate, timeZone: string): string | null {
  if (isDayOnly(value)) return parseDayKey(value) ? dayKey(day) : null;
  const t = Date.parse(value);
  if (Number.isNaN(t)) return null;
  const time = toTime(fromAbsolute(t, timeZone));
  return toZoned(toCalendarDateTime(day, time), timeZone, 'compatible').toDate().toISOString();
}

/** `value` moved by `days` days at the same wall-clock time in `timeZone` (a record's stop follows its start). */
export function shiftDays(value: string, days: number, timeZone: string): string | null {
  const day = dayOf(value, timeZone);
  return day ? moveToDay(value, day.add({ days }), timeZone) : null;
}

/** The days a record covers in `timeZone` from its start to its stop (its start day alone without a stop). */
export function daysOf(start: string, stop: string | null, timeZone: string): string[] {
  const first = dayOf(start, timeZone);
  if (!first) return [];
  const last = stop ? dayOf(stop, timeZone) : null;
  const n = last ? Math.min(Math.max(last.compare(first), 0), 366) : 0;
  return Array.from({ length: n + 1 }, (_, i) => dayKey(first.add({ days: i })));
}

/**
 * A day as the Date that Intl formats to it with `timeZone: 'UTC'`: a day label is a day, not a
 * moment, so it is formatted in UTC where no offset can move it (the `date` display does the same).
 */
export const dayAsUtcDate = (d: CalendarDate): Date => d.toDate('UTC');

/** The first day of the week of a locale (0 Sunday … 6 Saturday); Monday when unknown. */
export function localeFirstDay(locale: string): number {
  try {
    const l = new Intl.Locale(locale) as Intl.Locale & { getWeekInfo?: () => { firstDay: number }; weekInfo?: { firstDay: number } };
    const first = (l.getWeekInfo?.() ?? l.weekInfo)?.firstDay;
    return first === undefined ? 1 : first % 7;
  } catch {
    return 1;
  }
}
