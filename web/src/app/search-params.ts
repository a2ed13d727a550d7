/**
 * The URL is the state of a view, so it can be shared and survives reload, back and forward:
 * `/:org_slug/action-:action_key[/:record_id|/new]?view=&q=&field=&filter=&archived=&group_by=&order=&page=&limit=&mode=&date=`.
 * A form opened from a list keeps the list's search, so it can step through the same records.
 */
export interface ViewSearch {
  view?: string;
  q?: string;
  /** text searched in one field of the search view: `<field>:<text>` each ("Search Name for: acme") */
  field?: string[];
  filter?: string[];
  /** an archivable model's archived records (is_active false) instead of its active ones */
  archived?: boolean;
  group_by?: string;
  order?: string;
  page?: number;
  limit?: number;
  /** a calendar's range (month, week, day) and a day in it (`YYYY-MM-DD`; today when absent) */
  mode?: string;
  date?: string;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const pos = (v: unknown) => {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

const strings = (v: unknown) => {
  const list = Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : str(v) ? [v as string] : [];
  return list.length ? list : undefined;
};

/** `<field>:<text>` of a field facet; null when the entry is not one (a hand-edited URL). */
export function fieldTerm(entry: string): { field: string; text: string } | null {
  const i = entry.indexOf(':');
  return i > 0 && i < entry.length - 1 ? { field: entry.slice(0, i), text: entry.slice(i + 1) } : null;
}

/**
 * The part of a view's search a form opened from it keeps: which view it was (the breadcrumb
 * returns there) and what selects and orders its records (the form's pager steps through them).
 */
export const listScope = (s: ViewSearch, order?: string | null): ViewSearch => ({
  view: s.view, q: s.q, field: s.field, filter: s.filter, archived: s.archived, order: s.order ?? order ?? undefined,
  mode: s.mode, date: s.date,
});

export function validateViewSearch(s: Record<string, unknown>): ViewSearch {
  return {
    view: str(s.view),
    q: str(s.q),
    field: strings(s.field)?.filter((x) => fieldTerm(x)),
    filter: strings(s.filter),
    archived: s.archived === true || s.archived === 'true' || s.archived === '1' || s.archived === 1 ? true : undefined,
    group_by: str(s.group_by),
    order: str(s.order),
    page: pos(s.page),
    limit: pos(s.limit),
    mode: str(s.mode),
    date: str(s.date),
  };
}

const ACTION_PREFIX = 'action-';
export const actionSegment = (key: string) => `${ACTION_PREFIX}${key}`;
export const actionKeyOf = (segment: string) => (segment.startsWith(ACTION_PREFIX) ? segment.slice(ACTION_PREFIX.length) : null);
