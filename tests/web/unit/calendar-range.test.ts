/**
 * The calendar's date arithmetic (web/src/views/calendar/range.ts), in the process's time zone as
 * the browser's: a month shows whole weeks from the locale's first day, stepping a month lands on
 * its 1st, and moving to another day keeps the time of day, across a daylight-saving change too.
 */
import { describe, expect, it } from 'vitest';
import { addDays, dayKey, daysOf, moveToDay, parseDayKey, rangeOf, stepAnchor } from '../../../web/src/views/calendar/range.ts';

const d = (y: number, m: number, day: number, h = 0, min = 0) => new Date(y, m - 1, day, h, min);

describe('calendar ranges', () => {
  it('a month is the whole weeks holding its days, starting on the first day of the week', () => {
    const monday = rangeOf('month', d(2031, 3, 10), 1);
    expect(dayKey(monday.start)).toBe('2031-02-24');
    expect(dayKey(monday.end)).toBe('2031-04-07');
    expect(monday.weeks).toHaveLength(6);
    expect(monday.weeks.every((w) => w.length === 7 && w[0].getDay() === 1)).toBe(true);
    const sunday = rangeOf('month', d(2031, 3, 10), 0);
    expect([dayKey(sunday.start), dayKey(sunday.end)]).toEqual(['2031-02-23', '2031-04-06']);
    // February 2026 starts on a Sunday and fills exactly four weeks
    expect(rangeOf('month', d(2026, 2, 14), 0).weeks).toHaveLength(4);
  });

  it('a week is seven days from the first day of the week; a day is one', () => {
    const week = rangeOf('week', d(2031, 3, 12, 15), 0);
    expect(week.weeks[0].map(dayKey)).toEqual(['2031-03-09', '2031-03-10', '2031-03-11', '2031-03-12', '2031-03-13', '2031-03-14', '2031-03-15']);
    const day = rangeOf('day', d(2031, 3, 12, 15), 0);
    expect([dayKey(day.start), dayKey(day.end), day.weeks.flat().length]).toEqual(['2031-03-12', '2031-03-13', 1]);
  });

  it('previous and next step a month (to its 1st, never skipping a short month), a week or a day', () => {
    expect(dayKey(stepAnchor('month', d(2031, 1, 31), 1))).toBe('2031-02-01');
    expect(dayKey(stepAnchor('month', d(2031, 1, 31), -1))).toBe('2030-12-01');
    expect(dayKey(stepAnchor('week', d(2031, 3, 30), 1))).toBe('2031-04-06');
    expect(dayKey(stepAnchor('day', d(2031, 3, 1), -1))).toBe('2031-02-28');
  });

  it('a URL day is YYYY-MM-DD of a real day; anything else is no day', () => {
    expect(parseDayKey('2031-03-10')?.getTime()).toBe(d(2031, 3, 10).getTime());
    for (const bad of ['2031-02-30', '2031-3-1', 'today', '', undefined]) expect(parseDayKey(bad)).toBeNull();
  });

  it('moving to another day keeps the local time of day, across a daylight-saving change too', () => {
    expect(moveToDay(d(2031, 3, 10, 14, 30), d(2031, 3, 12)).getTime()).toBe(d(2031, 3, 12, 14, 30).getTime());
    expect(moveToDay(d(2031, 3, 10, 14, 30), d(2031, 2, 27)).getTime()).toBe(d(2031, 2, 27, 14, 30).getTime());
    // the last Sunday of March (Europe) and the second of March (US) both lie between these days
    const moved = moveToDay(d(2031, 3, 1, 9, 0), d(2031, 4, 5));
    expect([moved.getHours(), moved.getMinutes(), dayKey(moved)]).toEqual([9, 0, '2031-04-05']);
    expect(dayKey(addDays(d(2031, 12, 31), 1))).toBe('2032-01-01');
  });

  it('a record spans the days from its start to its stop; without a stop, its start day', () => {
    expect(daysOf(d(2031, 3, 10, 9), null)).toEqual(['2031-03-10']);
    expect(daysOf(d(2031, 3, 10, 22), d(2031, 3, 12, 1))).toEqual(['2031-03-10', '2031-03-11', '2031-03-12']);
    expect(daysOf(d(2031, 3, 10, 9), d(2031, 3, 9))).toEqual(['2031-03-10']);
  });
});
