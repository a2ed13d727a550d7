/**
 * The calendar's date arithmetic, in the browser's time zone (a person's days start at their
 * midnight): which days a month, week or day shows, stepping between ranges, and moving a record
 * to another day at the same time of day. Pure functions, so they are tested without a browser.
 */
export const CALENDAR_MODES = ['month', 'week', 'day'] as const;
export type CalendarMode = (typeof CALENDAR_MODES)[number];

export const isMode = (v: unknown): v is CalendarMode => (CALENDAR_MODES as readonly unknown[]).includes(v);

/** Local midnight of the day `d` falls on. */
export const startOfDay = (d: Date): Date => new Date(d.getFullYear(), d.getMonth(), d.getDate());

/** `d` plus `n` calendar days, same wall-clock time (a DST change does not shift it by an hour). */
export function addDays(d: Date, n: number): Date {
  const x = new Date(d);
  x.setDate(x.getDate() + n);
  return x;
}

/** `YYYY-MM-DD` of the local day: the URL's `date` and a day cell's id. */
export const dayKey = (d: Date): string =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/** The local midnight a `YYYY-MM-DD` names; null for anything else (a hand-edited URL). */
export function parseDayKey(key: string | undefined): Date | null {
  const m = key ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(key) : null;
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return dayKey(d) === key ? d : null;
}

export interface CalendarRange {
  /** first day shown, local midnight */
  start: Date;
  /** the midnight after the last day shown (exclusive) */
  end: Date;
  /** the days shown, in weeks of seven (month, week) or one day */
  weeks: Date[][];
}

/**
 * The days a mode shows around `anchor`: a month as whole weeks (from the week holding its first
 * day to the one holding its last), a week starting on `firstDay` (0 Sunday … 6 Saturday), a day.
 */
export function rangeOf(mode: CalendarMode, anchor: Date, firstDay = 1): CalendarRange {
  const day = startOfDay(anchor);
  const weekStart = (d: Date) => addDays(d, -((d.getDay() - firstDay + 7) % 7));
  if (mode === 'day') return { start: day, end: addDays(day, 1), weeks: [[day]] };
  if (mode === 'week') {
    const start = weekStart(day);
    const week = Array.from({ length: 7 }, (_, i) => addDays(start, i));
    return { start, end: addDays(start, 7), weeks: [week] };
  }
  const first = new Date(day.getFullYear(), day.getMonth(), 1);
  const last = new Date(day.getFullYear(), day.getMonth() + 1, 0);
  const start = weekStart(first);
  const weeks: Date[][] = [];
  for (let w = start; w <= last; w = addDays(w, 7)) weeks.push(Array.from({ length: 7 }, (_, i) => addDays(w, i)));
  return { start, end: addDays(start, weeks.length * 7), weeks };
}

/** The anchor of the previous (`step` -1) or next (+1) range: a month, a week or a day away. */
export function stepAnchor(mode: CalendarMode, anchor: Date, step: number): Date {
  if (mode === 'month') {
    // the 1st, so stepping from the 31st never skips a shorter month
    return new Date(anchor.getFullYear(), anchor.getMonth() + step, 1);
  }
  return addDays(startOfDay(anchor), step * (mode === 'week' ? 7 : 1));
}

/** Whole local days from `from`'s day to `to`'s day. */
export const daysBetween = (from: Date, to: Date): number =>
  Math.round((startOfDay(to).getTime() - startOfDay(from).getTime()) / 86_400_000);

/** `when` moved to the day `day` at the same local time of day. */
export const moveToDay = (when: Date, day: Date): Date => addDays(when, daysBetween(when, day));

/** The local days a record covers from its start to its stop (its start day alone without a stop). */
export function daysOf(start: Date, stop: Date | null): string[] {
  const n = stop && stop > start ? Math.min(daysBetween(start, stop), 366) : 0;
  return Array.from({ length: n + 1 }, (_, i) => dayKey(addDays(startOfDay(start), i)));
}

/** The first day of the week of the browser's locale (0 Sunday … 6 Saturday); Monday when unknown. */
export function localeFirstDay(locale: string): number {
  try {
    const l = new Intl.Locale(locale) as Intl.Locale & { getWeekInfo?: () => { firstDay: number }; weekInfo?: { firstDay: number } };
    const first = (l.getWeekInfo?.() ?? l.weekInfo)?.firstDay;
    return first === undefined ? 1 : first % 7;
  } catch {
    return 1;
  }
}
