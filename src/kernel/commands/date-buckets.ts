/**
 * Date granularities of `read_group` (`closed_at:month`, as Odoo's `create_date:month`): the
 * instant a datetime value falls into is replaced by the start of its day, ISO week (Monday),
 * month, quarter or year, in UTC. One list, read by read_group, the GraphQL `granularity`
 * argument and the view compiler (`interval="month"` on a graph or pivot field).
 */
export const GRANULARITIES = ['day', 'week', 'month', 'quarter', 'year'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const isGranularity = (g: unknown): g is Granularity => typeof g === 'string' && (GRANULARITIES as readonly string[]).includes(g);

const DAY = 86_400_000;

/** The start of the bucket `value` falls into, as an ISO 8601 instant (UTC); null stays null. */
export function bucketStart(value: unknown, granularity: Granularity): string | null {
  if (value === null || value === undefined) return null;
  const d = value instanceof Date ? value : new Date(String(value));
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (granularity) {
    case 'day': return new Date(Date.UTC(y, m, d.getUTCDate())).toISOString();
    case 'week': {
      // ISO weeks start on Monday: getUTCDay() is 0 on Sunday
      const day = Date.UTC(y, m, d.getUTCDate());
      return new Date(day - ((d.getUTCDay() + 6) % 7) * DAY).toISOString();
    }
    case 'month': return new Date(Date.UTC(y, m, 1)).toISOString();
    case 'quarter': return new Date(Date.UTC(y, m - (m % 3), 1)).toISOString();
    case 'year': return new Date(Date.UTC(y, 0, 1)).toISOString();
  }
}
