import type { SearchPlan } from '../../app/meta.ts';
import type { ViewSearch } from '../../app/search-params.ts';
import { andWhere, domainToWhere, type Where } from '../../model/domain.ts';
import type { Models } from '../../model/records.ts';

/**
 * The search state of the URL as a `where`: the typed text matches any search field (a
 * Reference by its target's record name), active filters are ORed (Odoo's rule for filters of
 * one group), and the two are ANDed.
 */
export function searchWhere(plan: SearchPlan, search: ViewSearch, models: Models): Where {
  const parts: Where[] = [];
  const text = search.q?.trim();
  if (text && plan.search_fields.length) {
    const or = plan.search_fields.map((sf) => {
      const f = plan.fields.find((x) => x.name === sf.name);
      const target = f?.type === 'reference' && f.relation ? models.get(f.relation) : undefined;
      if (target) return { [sf.name]: { is: { [target.record_name]: { contains: text, mode: 'insensitive' } } } };
      return { [sf.name]: { contains: text, mode: 'insensitive' } };
    });
    parts.push(or.length === 1 ? or[0] : { OR: or });
  }
  const active = plan.filters.filter((f) => search.filter?.includes(f.string));
  if (active.length) {
    const ws = active.map((f) => domainToWhere(f.domain as never));
    parts.push(ws.length === 1 ? ws[0] : { OR: ws });
  }
  return andWhere(parts);
}
