import type { HookContext, HookDecl } from '../../kernel/app.js';
import { ValidationError } from '../../kernel/errors.js';

/** What a saved search may hold: the URL state of a view's search (web/src/app/search-params.ts). */
const TEXT_KEYS = new Set(['q', 'group_by', 'order', 'view']);
const LIST_KEYS = new Set(['field', 'filter']);
const MAX_ENTRIES = 50;
const MAX_TEXT = 500;

const invalid = (message: string) => new ValidationError(message, { field: 'search' }, 'INVALID_SAVED_SEARCH');

/**
 * `ir.filter.search` is replayed into a view's URL by every client: an object of the search's
 * known keys only (text, lists of text, `archived`), so a saved filter cannot carry anything a
 * view does not understand, and a stored typo is refused when written rather than ignored later.
 */
export function checkSavedSearch(search: unknown): void {
  if (typeof search !== 'object' || search === null || Array.isArray(search)) throw invalid('search must be an object');
  for (const [key, value] of Object.entries(search)) {
    if (value === null || value === undefined) continue;
    if (TEXT_KEYS.has(key)) {
      if (typeof value !== 'string' || value.length > MAX_TEXT) throw invalid(`a saved search holds text of at most ${MAX_TEXT} characters (search.${key})`);
    } else if (LIST_KEYS.has(key)) {
      if (!Array.isArray(value) || value.length > MAX_ENTRIES || value.some((v) => typeof v !== 'string' || v.length > MAX_TEXT)) {
        throw invalid(`a saved search holds lists of at most ${MAX_ENTRIES} texts of at most ${MAX_TEXT} characters (search.${key})`);
      }
    } else if (key === 'archived') {
      if (typeof value !== 'boolean') throw invalid('search.archived must be true or false');
    } else {
      throw invalid(`search.${key} is not part of a search (q, field, filter, archived, group_by, order, view)`);
    }
  }
}

/** A new default of a person's action replaces their previous one: one search opens the action. */
async function oneDefault(ctx: HookContext): Promise<void> {
  const after = ctx.after;
  if (!after?.is_default) return;
  const others = await ctx.env.dispatch<{ items: Array<{ id: string }> }>('fw.search', {
    model: 'ir.filter',
    domain: [['user', '=', after.user], ['action_key', '=', after.action_key], ['is_default', '=', true], ['record_uuid', '!=', after.id]],
    fields: ['id'],
  });
  for (const o of others.items) await ctx.env.dispatch('fw.update', { model: 'ir.filter', id: o.id, values: { is_default: false } });
}

export const filterHooks: HookDecl[] = [
  { point: 'pre.ir.filter.create', handler: (ctx) => checkSavedSearch(ctx.payload.search) },
  { point: 'pre.ir.filter.update', handler: (ctx) => { if ('search' in ctx.payload) checkSavedSearch(ctx.payload.search); } },
  { point: 'post.ir.filter.create', handler: oneDefault },
  { point: 'post.ir.filter.update', handler: oneDefault },
];
