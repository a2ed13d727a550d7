/**
 * A form's date-time input in the person's time zone (web/src/widgets/zoned-time.ts): an instant
 * is shown as the wall-clock time of their zone, and what they type is read in that zone, across
 * summer-time changes; without a zone, the browser's (as before).
 */
import { describe, expect, it } from 'vitest';
import { fromZonedInput, toZonedInput } from '../../../web/src/widgets/zoned-time.ts';

describe('date-time inputs in the person\'s time zone', () => {
  it('shows an instant as the wall clock of the zone', () => {
    expect(toZonedInput('2026-03-01T12:00:00.000Z', 'Europe/Paris')).toBe('2026-03-01T13:00');
    expect(toZonedInput('2026-07-01T12:00:00.000Z', 'Europe/Paris')).toBe('2026-07-01T14:00');
    expect(toZonedInput('2026-07-01T12:00:00.000Z', 'America/New_York')).toBe('2026-07-01T08:00');
    expect(toZonedInput('2026-07-01T12:00:00.000Z', 'Pacific/Auckland')).toBe('2026-07-02T00:00');
    expect(toZonedInput('not a date', 'Europe/Paris')).toBe('');
  });

  it('reads what is typed in the zone, summer and winter, and round-trips', () => {
    expect(fromZonedInput('2026-03-01T13:00', 'Europe/Paris')).toBe('2026-03-01T12:00:00.000Z');
    expect(fromZonedInput('2026-07-01T14:00', 'Europe/Paris')).toBe('2026-07-01T12:00:00.000Z');
    expect(fromZonedInput('2026-07-02T00:00', 'Pacific/Auckland')).toBe('2026-07-01T12:00:00.000Z');
    for (const iso of ['2026-03-29T00:59:00.000Z', '2026-03-29T01:00:00.000Z', '2026-10-24T23:30:00.000Z', '2026-10-25T02:30:00.000Z']) {
      expect(fromZonedInput(toZonedInput(iso, 'Europe/Paris'), 'Europe/Paris'), iso).toBe(iso);
    }
  });

  it('a time the clock change repeats (02:30 in Paris on 25 October 2026, twice) is its first pass', () => {
    expect(toZonedInput('2026-10-25T00:30:00.000Z', 'Europe/Paris')).toBe('2026-10-25T02:30');
    expect(toZonedInput('2026-10-25T01:30:00.000Z', 'Europe/Paris')).toBe('2026-10-25T02:30');
    expect(fromZonedInput('2026-10-25T02:30', 'Europe/Paris')).toBe('2026-10-25T00:30:00.000Z');
  });

  it('a time the clock change skips (02:30 in Paris on 29 March 2026) is a real instant, not an error', () => {
    const iso = fromZonedInput('2026-03-29T02:30', 'Europe/Paris');
    expect(iso).not.toBeNull();
    expect(['2026-03-29T00:30:00.000Z', '2026-03-29T01:30:00.000Z']).toContain(iso);
  });

  it('without a zone it is the browser\'s, and text that is no time is null', () => {
    const iso = fromZonedInput('2026-03-01T13:00');
    expect(toZonedInput(iso!)).toBe('2026-03-01T13:00');
    expect(fromZonedInput('13:00 tomorrow', 'Europe/Paris')).toBeNull();
  });
});
