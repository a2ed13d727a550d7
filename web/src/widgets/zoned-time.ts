/**
 * A `datetime-local` input speaks wall-clock time without a zone; the API speaks UTC instants.
 * These convert between the two in the person's time zone (their `tz` preference, the
 * IntlProvider's `timeZone`), or the browser's when they chose none, so a form shows and takes
 * the same times the lists and the chatter show.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** The wall-clock parts of an instant in a zone. */
function wallClock(t: number, timeZone: string): { y: number; m: number; d: number; h: number; mi: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
  }).formatToParts(new Date(t));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { y: get('year'), m: get('month'), d: get('day'), h: get('hour'), mi: get('minute') };
}

/** `2026-03-29T02:30` for an ISO instant, in `timeZone` (the browser's when undefined); '' for no valid instant. */
export function toZonedInput(iso: string, timeZone?: string): string {
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return '';
  if (!timeZone) {
    const d = new Date(t);
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  }
  const w = wallClock(t, timeZone);
  return `${w.y}-${pad(w.m)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}`;
}

/**
 * The ISO instant a wall-clock `YYYY-MM-DDTHH:mm` names in `timeZone` (the browser's when
 * undefined); null for text that is no such time. A time a clock change repeats (02:30 on the night
 * summer time ends) is its first pass; one it skips (02:30 the night summer time starts) is read
 * with the offset from before the change, as browsers read their own zone.
 */
export function fromZonedInput(local: string, timeZone?: string): string | null {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)$/.exec(local);
  if (!m) return null;
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  if (!timeZone) {
    const t = new Date(y, mo - 1, d, h, mi).getTime();
    return Number.isNaN(t) ? null : new Date(t).toISOString();
  }
  const asUtc = Date.UTC(y, mo - 1, d, h, mi);
  const offsetAt = (t: number) => {
    const w = wallClock(t, timeZone);
    return Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi) - Math.floor(t / 60_000) * 60_000;
  };
  // the zone's offsets before and after the wanted time: a clock change lies between them at most
  const before = asUtc - offsetAt(asUtc - 12 * 3_600_000);
  const after = asUtc - offsetAt(asUtc + 12 * 3_600_000);
  // the earlier instant that shows this wall clock (a repeated hour: its first pass, as browsers
  // read their own zone); none for a skipped one: the offset from before the change
  const shows = [before, after].filter((c) => toZonedInput(new Date(c).toISOString(), timeZone) === local).sort((a, b) => a - b);
  const t = shows[0] ?? before;
  return new Date(t).toISOString();
}
