/**
 * The URL is the state of a view, so it can be shared and survives reload, back and forward:
 * `/:org_slug/action-:action_key[/:record_id|/new]?view=&q=&filter=&group_by=&order=&page=&limit=`.
 */
export interface ViewSearch {
  view?: string;
  q?: string;
  filter?: string[];
  group_by?: string;
  order?: string;
  page?: number;
  limit?: number;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const pos = (v: unknown) => {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

export function validateViewSearch(s: Record<string, unknown>): ViewSearch {
  const filter = Array.isArray(s.filter) ? s.filter.filter((x): x is string => typeof x === 'string') : str(s.filter) ? [s.filter as string] : undefined;
  return {
    view: str(s.view),
    q: str(s.q),
    filter: filter?.length ? filter : undefined,
    group_by: str(s.group_by),
    order: str(s.order),
    page: pos(s.page),
    limit: pos(s.limit),
  };
}

const ACTION_PREFIX = 'action-';
export const actionSegment = (key: string) => `${ACTION_PREFIX}${key}`;
export const actionKeyOf = (segment: string) => (segment.startsWith(ACTION_PREFIX) ? segment.slice(ACTION_PREFIX.length) : null);
