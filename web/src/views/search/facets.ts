import type { SearchPlan } from '../../app/meta.ts';
import { fieldTerm, type ViewSearch } from '../../app/search-params.ts';
import { andWhere, domainToWhere, type Where } from '../../model/domain.ts';
import { nameSearchWhere, type ModelInfo, type Models } from '../../model/records.ts';

/**
 * A search field of the plan matching `text`: contains for text; a Reference by its target's
 * record name, or (`nameSearch`, a field chosen for the text) by the target's name search fields,
 * as its picker searches ("Search Country for: fr" finds France by its code).
 */
function fieldMatch(plan: SearchPlan, name: string, text: string, models: Models, nameSearch = false): Where | null {
  if (!plan.search_fields.some((sf) => sf.name === name)) return null;
  const f = plan.fields.find((x) => x.name === name);
  const target = f?.type === 'reference' && f.relation ? models.get(f.relation) : undefined;
  if (target && nameSearch && target.name_search_fields.length) return { [name]: { is: nameSearchWhere(target, text) } };
  if (target) return { [name]: { is: { [target.record_name]: { contains: text, mode: 'insensitive' } } } };
  return { [name]: { contains: text, mode: 'insensitive' } };
}

const or = (ws: Where[]): Where => (ws.length === 1 ? ws[0] : { OR: ws });

/**
 * The field facets of the URL by field, in the search view's order: each field's texts are ORed
 * (one facet, "Name: acme or bolt"), entries naming no search field of the plan are left out.
 */
export function fieldFacets(plan: SearchPlan, search: ViewSearch): Array<{ name: string; label: string; texts: string[]; entries: string[] }> {
  const terms = (search.field ?? []).map((e) => ({ e, t: fieldTerm(e) }));
  return plan.search_fields
    .map((sf) => {
      const mine = terms.filter((x) => x.t?.field === sf.name);
      return { name: sf.name, label: sf.string, texts: mine.map((x) => x.t!.text), entries: mine.map((x) => x.e) };
    })
    .filter((x) => x.texts.length > 0);
}

/**
 * The search state of the URL as a `where`: the typed text matches any search field (a
 * Reference by its target's record name), text searched in a chosen field matches that field,
 * active filters are ORed (Odoo's rule for filters of one group), and the parts are ANDed.
 */
export function searchWhere(plan: SearchPlan, search: ViewSearch, models: Models): Where {
  const parts: Where[] = [];
  const text = search.q?.trim();
  if (text && plan.search_fields.length) {
    parts.push(or(plan.search_fields.map((sf) => fieldMatch(plan, sf.name, text, models)!)));
  }
  for (const facet of fieldFacets(plan, search)) {
    parts.push(or(facet.texts.map((t) => fieldMatch(plan, facet.name, t, models, true)!)));
  }
  const active = plan.filters.filter((f) => search.filter?.includes(f.string));
  if (active.length) parts.push(or(active.map((f) => domainToWhere(f.domain as never))));
  return andWhere(parts);
}

/** Whether an action's own domain already says which records by `is_active` it shows. */
const domainNamesActive = (domain: unknown): boolean =>
  Array.isArray(domain) && domain.some((t) => Array.isArray(t) && t[0] === 'is_active');

/**
 * Archived records (is_active false) of an archivable model are left out unless the search asks
 * for them (`archived`, the "Archived" filter, which shows them instead), as Odoo does; an action
 * whose domain names is_active decides by itself.
 */
export function archivedWhere(m: ModelInfo | undefined, search: ViewSearch, actionDomain: unknown): Where | null {
  if (!m?.archivable || domainNamesActive(actionDomain)) return null;
  return { is_active: { eq: !search.archived } };
}
