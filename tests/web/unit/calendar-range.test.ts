/**
 * The calendar's date arithmetic (web/src/views/calendar/range.ts), in the person's time zone
 * whatever the process's (the browser's) is: a month shows whole weeks from the locale's first
 * day, and asks the API for the UTC instants its first and after-last days start at in that zone;
 * a record lies on the day its instant falls on there (23:30 UTC is the next day in Auckland), a
 * calendar day (`2031-03-10`) on that day in every zone; moving to another day keeps the wall-clock
 * time there, across a daylight-saving change too, and agrees with what a form's date-time input
 * reads (web/src/widgets/zoned-time.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dayAsUtcDate, dayKey, dayOf, daysOf, localeFirstDay, moveToDay, parseDayKey, rangeOf, shiftDays, startOfDayIn, stepAnchor, todayIn, type CalendarDate,
} from '../../../web/src/views/calendar/range.ts';
import { fromZonedInput, toZonedInput } from '../../../web/src/widgets/zoned-time.ts';

const day = (key: string): CalendarDate => parseDayKey(key)!;
const iso = (d: Date) => d.toISOString();
const weekday = (d: CalendarDate) => dayAsUtcDate(d).getUTCDay();

describe('calendar ranges', () => {
  it('a month is the whole weeks holding its days, starting on the first day of the week', () => {
    const monday = rangeOf('month', day('2031-03-10'), 1, 'UTC');
    expect([dayKey(monday.start), dayKey(monday.end)]).toEqual(['2031-02-24', '2031-04-07']);
    expect(monday.weeks).toHaveLength(6);
    expect(monday.weeks.every((w) => w.length === 7 && weekday(w[0]) === 1)).toBe(true);
    const sunday = rangeOf('month', day('2031-03-10'), 0, 'UTC');
    expect([dayKey(sunday.start), dayKey(sunday.end)]).toEqual(['2031-02-23', '2031-04-06']);
    // February 2026 starts on a Sunday and fills exactly four weeks
    expect(rangeOf('month', day('2026-02-14'), 0, 'UTC').weeks).toHaveLength(4);
    // a Saturday-first locale (Arabic, Egypt)
    const saturday = rangeOf('month', day('2031-03-10'), 6, 'UTC');
    expect([dayKey(saturday.start), weekday(saturday.weeks[0][6])]).toEqual(['2031-03-01', 5]);
  });

  it('a week is seven days from the first day of the week; a day is one', () => {
    const week = rangeOf('week', day('2031-03-12'), 0, 'UTC');
    expect(week.weeks[0].map(dayKey)).toEqual(['2031-03-09', '2031-03-10', '2031-03-11', '2031-03-12', '2031-03-13', '2031-03-14', '2031-03-15']);
    const one = rangeOf('day', day('2031-03-12'), 0, 'UTC');
    expect([dayKey(one.start), dayKey(one.end), one.weeks.flat().length]).toEqual(['2031-03-12', '2031-03-13', 1]);
  });

  it('the API is asked for the instants the first and the after-last days start at in the person\'s zone, whatever the offset on each', () => {
    // September 2031 in Auckland: +12 until the 28th, +13 after (daylight saving starts)
    const nz = rangeOf('month', day('2031-09-15'), 0, 'Pacific/Auckland');
    expect([dayKey(nz.start), dayKey(nz.end)]).toEqual(['2031-08-31', '2031-10-05']);
    expect([iso(nz.from), iso(nz.to)]).toEqual(['2031-08-30T12:00:00.000Z', '2031-10-04T11:00:00.000Z']);
    // the same days in Los Angeles (-7) and in UTC
    const la = rangeOf('month', day('2031-09-15'), 0, 'America/Los_Angeles');
    expect([iso(la.from), iso(la.to)]).toEqual(['2031-08-31T07:00:00.000Z', '2031-10-05T07:00:00.000Z']);
    const utc = rangeOf('month', day('2031-09-15'), 0, 'UTC');
    expect([iso(utc.from), iso(utc.to)]).toEqual(['2031-08-31T00:00:00.000Z', '2031-10-05T00:00:00.000Z']);
    // east of UTC+12: Kiritimati is +14, its Monday starts on Sunday 10:00 UTC
    const kiri = rangeOf('week', day('2031-03-12'), 1, 'Pacific/Kiritimati');
    expect([dayKey(kiri.start), iso(kiri.from), iso(kiri.to)]).toEqual(['2031-03-10', '2031-03-09T10:00:00.000Z', '2031-03-16T10:00:00.000Z']);
    // half-hour offsets: Kolkata is +5:30
    expect(iso(rangeOf('day', day('2031-03-12'), 1, 'Asia/Kolkata').from)).toBe('2031-03-11T18:30:00.000Z');
  });

  it('a day whose midnight a clock change skips starts at 01:00, and lasts 23 hours', () => {
    // Santiago moves from -4 to -3 at midnight on the first Sunday of September
    const sunday = rangeOf('day', day('2031-09-07'), 1, 'America/Santiago');
    expect([iso(sunday.from), iso(sunday.to)]).toEqual(['2031-09-07T04:00:00.000Z', '2031-09-08T03:00:00.000Z']);
    expect(toZonedInput(iso(sunday.from), 'America/Santiago')).toBe('2031-09-07T01:00');
    expect(iso(startOfDayIn(day('2031-09-06'), 'America/Santiago'))).toBe('2031-09-06T04:00:00.000Z');
  });

  it('previous and next step a month (to its 1st, never skipping a short month), a week or a day', () => {
    expect(dayKey(stepAnchor('month', day('2031-01-31'), 1))).toBe('2031-02-01');
    expect(dayKey(stepAnchor('month', day('2031-01-31'), -1))).toBe('2030-12-01');
    expect(dayKey(stepAnchor('week', day('2031-03-30'), 1))).toBe('2031-04-06');
    expect(dayKey(stepAnchor('day', day('2031-03-01'), -1))).toBe('2031-02-28');
    expect(dayKey(stepAnchor('day', day('2031-12-31'), 1))).toBe('2032-01-01');
  });

  it('a URL day is YYYY-MM-DD of a real day; anything else is no day', () => {
    expect(parseDayKey('2031-03-10')?.toString()).toBe('2031-03-10');
    expect(parseDayKey('2032-02-29')?.toString()).toBe('2032-02-29');
    for (const bad of ['2031-02-30', '2031-02-29', '2031-3-1', '2031-13-01', 'today', '', undefined]) expect(parseDayKey(bad), String(bad)).toBeNull();
  });

  it('today is the person\'s day: the zones either side of the date line are a day or more apart', () => {
    const now = new Date().toISOString();
    for (const zone of ['UTC', 'Pacific/Auckland', 'America/Los_Angeles']) expect(dayKey(todayIn(zone)), zone).toBe(dayKey(dayOf(now, zone)!));
    expect(todayIn('Pacific/Kiritimati').compare(todayIn('Pacific/Pago_Pago'))).toBeGreaterThanOrEqual(1);
  });
});

describe('where a record lies', () => {
  it('an instant lies on the day it falls on in the person\'s zone: 23:30 UTC is the next day in Auckland', () => {
    const late = '2031-03-10T23:30:00.000Z';
    expect(dayKey(dayOf(late, 'Pacific/Auckland')!)).toBe('2031-03-11');
    expect(dayKey(dayOf(late, 'Pacific/Kiritimati')!)).toBe('2031-03-11');
    expect(dayKey(dayOf(late, 'UTC')!)).toBe('2031-03-10');
    expect(dayKey(dayOf(late, 'America/Los_Angeles')!)).toBe('2031-03-10');
    // 10:30 UTC: already tomorrow at +14, still yesterday at -11
    expect(dayKey(dayOf('2031-03-10T10:30:00.000Z', 'Pacific/Kiritimati')!)).toBe('2031-03-11');
    expect(dayKey(dayOf('2031-03-10T10:30:00.000Z', 'Pacific/Pago_Pago')!)).toBe('2031-03-09');
    expect(dayOf('not a date', 'UTC')).toBeNull();
  });

  it('a calendar day (no time) lies on that day in every zone', () => {
    for (const zone of ['UTC', 'Pacific/Auckland', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/Los_Angeles']) {
      expect(dayKey(dayOf('2031-03-10', zone)!), zone).toBe('2031-03-10');
      expect(daysOf('2031-03-10', '2031-03-12', zone), zone).toEqual(['2031-03-10', '2031-03-11', '2031-03-12']);
    }
    expect(dayOf('2031-02-30', 'UTC')).toBeNull();
  });

  it('a record spans the days of the zone from its start to its stop; without a stop, its start day', () => {
    expect(daysOf('2031-03-10T09:00:00.000Z', null, 'UTC')).toEqual(['2031-03-10']);
    // 10:00 to 12:00 UTC the next day: 23:00 on the 10th to 01:00 on the 12th in Auckland
    expect(daysOf('2031-03-10T10:00:00.000Z', '2031-03-11T12:00:00.000Z', 'Pacific/Auckland')).toEqual(['2031-03-10', '2031-03-11', '2031-03-12']);
    expect(daysOf('2031-03-10T10:00:00.000Z', '2031-03-11T12:00:00.000Z', 'UTC')).toEqual(['2031-03-10', '2031-03-11']);
    // a stop before the start: the start day alone
    expect(daysOf('2031-03-10T09:00:00.000Z', '2031-03-09T09:00:00.000Z', 'UTC')).toEqual(['2031-03-10']);
    expect(daysOf('garbage', null, 'UTC')).toEqual([]);
  });
});

describe('moving a record to another day', () => {
  it('keeps the wall-clock time in the person\'s zone across a daylight-saving change, whichever way', () => {
    // Auckland: 09:00 NZST (+12) on Sep 25 to 09:00 NZDT (+13) on Sep 30
    expect(moveToDay('2031-09-24T21:00:00.000Z', day('2031-09-30'), 'Pacific/Auckland')).toBe('2031-09-29T20:00:00.000Z');
    // and back: 09:00 NZDT on Apr 3 to 09:00 NZST on Apr 8
    expect(moveToDay('2031-04-02T20:00:00.000Z', day('2031-04-08'), 'Pacific/Auckland')).toBe('2031-04-07T21:00:00.000Z');
    // Los Angeles: 09:00 PST on Mar 7 to 09:00 PDT on Mar 12
    expect(moveToDay('2031-03-07T17:00:00.000Z', day('2031-03-12'), 'America/Los_Angeles')).toBe('2031-03-12T16:00:00.000Z');
    // the same instant moved in UTC keeps its UTC time instead
    expect(moveToDay('2031-03-07T17:00:00.000Z', day('2031-03-12'), 'UTC')).toBe('2031-03-12T17:00:00.000Z');
    // across the date line: 23:30 UTC is 12:30 on the 11th in Auckland; moved to the 13th it stays 12:30
    expect(moveToDay('2031-03-10T23:30:00.000Z', day('2031-03-13'), 'Pacific/Auckland')).toBe('2031-03-12T23:30:00.000Z');
    expect(moveToDay('2031-03-10T10:30:00.000Z', day('2031-03-12'), 'Pacific/Kiritimati')).toBe('2031-03-11T10:30:00.000Z');
  });

  it('a time the clock change skips on the new day is read as a form reads it; a repeated one is its first pass', () => {
    // Paris: 02:30 on Mar 20; on Mar 30 02:30 does not exist (02:00 → 03:00): 03:30 CEST
    const skipped = moveToDay('2031-03-20T01:30:00.000Z', day('2031-03-30'), 'Europe/Paris');
    expect(skipped).toBe('2031-03-30T01:30:00.000Z');
    expect(skipped).toBe(fromZonedInput('2031-03-30T02:30', 'Europe/Paris'));
    // 02:30 on Oct 26 happens twice (03:00 → 02:00): the first, still CEST (+2)
    const repeated = moveToDay('2031-10-20T00:30:00.000Z', day('2031-10-26'), 'Europe/Paris');
    expect(repeated).toBe('2031-10-26T00:30:00.000Z');
    expect(repeated).toBe(fromZonedInput('2031-10-26T02:30', 'Europe/Paris'));
  });

  it('lands on the instant a form would write for that day and wall-clock time, in any zone', () => {
    const zones = ['UTC', 'Pacific/Auckland', 'Pacific/Kiritimati', 'Pacific/Chatham', 'America/Los_Angeles', 'America/Santiago', 'Europe/Paris', 'Asia/Kolkata', 'Australia/Lord_Howe'];
    fc.assert(fc.property(
      fc.integer({ min: Date.UTC(2030, 0, 1) / 60_000, max: Date.UTC(2032, 11, 31) / 60_000 }),
      fc.integer({ min: -400, max: 400 }),
      fc.constantFrom(...zones),
      (minute, shift, zone) => {
        const value = new Date(minute * 60_000).toISOString();
        const target = dayOf(value, zone)!.add({ days: shift });
        const wallTime = toZonedInput(value, zone).slice(11);
        expect(moveToDay(value, target, zone)).toBe(fromZonedInput(`${dayKey(target)}T${wallTime}`, zone));
        expect(dayKey(dayOf(moveToDay(value, target, zone)!, zone)!)).toBe(dayKey(target));
      },
    ), { numRuns: 400 });
  });

  it('a calendar day moves to the other day, unshifted by any zone', () => {
    for (const zone of ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      expect(moveToDay('2031-03-10', day('2031-03-12'), zone), zone).toBe('2031-03-12');
      expect(shiftDays('2031-03-10', -10, zone), zone).toBe('2031-02-28');
    }
    expect(moveToDay('2031-02-30', day('2031-03-12'), 'UTC')).toBeNull();
    expect(moveToDay('soon', day('2031-03-12'), 'UTC')).toBeNull();
  });

  it('a stop moves by as many days of the zone as its start, keeping its own wall-clock time', () => {
    // 18:00 PST on Mar 7 plus five days: 18:00 PDT on Mar 12
    expect(shiftDays('2031-03-08T02:00:00.000Z', 5, 'America/Los_Angeles')).toBe('2031-03-13T01:00:00.000Z');
    expect(shiftDays('2031-03-08T02:00:00.000Z', 5, 'UTC')).toBe('2031-03-13T02:00:00.000Z');
  });
});

describe('labels', () => {
  it('a day is labelled as the day it is, whatever zone formats it', () => {
    const label = new Intl.DateTimeFormat('en-US', { dateStyle: 'full', timeZone: 'UTC' }).format(dayAsUtcDate(day('2031-03-10')));
    expect(label).toBe('Monday, March 10, 2031');
  });

  it('the first day of the week is the locale\'s: Sunday in the US, Monday in France; Monday when unknown', () => {
    expect(localeFirstDay('en-US')).toBe(0);
    expect(localeFirstDay('fr-FR')).toBe(1);
    expect(localeFirstDay('not a locale!')).toBe(1);
  });
});
