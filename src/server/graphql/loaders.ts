import DataLoader from 'dataloader';
import type { Principal } from '../../kernel/env.js';
import { isRecordId } from '../../kernel/data/values.js';
import type { Kernel } from '../../kernel/kernel.js';

type Rec = Record<string, unknown>;

export interface Loaders {
  /** Records by id; one fw.search per model (and field list) per tick, however many parents ask. */
  byId(model: string, fields?: string[]): DataLoader<string, Rec | null>;
  /** Children of many parents through one fw.search on the inverse reference. */
  children(model: string, inverse: string, fields?: string[]): DataLoader<string, Rec[]>;
}

/**
 * Per-request batching: relations resolve through the command bus (so record rules apply to
 * them too) with a constant number of queries per relation, whatever the page size.
 */
export function createLoaders(kernel: Kernel, principal: Principal): Loaders {
  const byId = new Map<string, DataLoader<string, Rec | null>>();
  const children = new Map<string, DataLoader<string, Rec[]>>();
  const search = (model: string, domain: unknown[], fields: string[] | undefined) =>
    kernel.dispatch<{ items: Rec[] }>('fw.search', { model, domain, fields }, principal).then((r) => r.items);
  return {
    byId(model, fields) {
      const key = `${model}|${fields?.join(',') ?? '*'}`;
      let l = byId.get(key);
      if (!l) {
        l = new DataLoader(async (ids) => {
          // an id that is no UUID names no record: null, as a missing one, instead of a refused
          // filter that would fail every id loaded in the same tick
          const wellFormed = ids.filter(isRecordId).map((i) => i.toLowerCase());
          const rows = wellFormed.length ? await search(model, [['record_uuid', 'in', wellFormed]], fields) : [];
          const map = new Map(rows.map((r) => [r.id as string, r]));
          return ids.map((id) => map.get(id.toLowerCase()) ?? null);
        });
        byId.set(key, l);
      }
      return l;
    },
    children(model, inverse, fields) {
      // the inverse column groups the children, so it is always read
      const cols = fields && !fields.includes(inverse) ? [...fields, inverse] : fields;
      const key = `${model}:${inverse}|${cols?.join(',') ?? '*'}`;
      let l = children.get(key);
      if (!l) {
        l = new DataLoader(async (parents) => {
          const rows = await search(model, [[inverse, 'in', [...parents]]], cols);
          const byParent = new Map<unknown, Rec[]>();
          for (const r of rows) byParent.set(r[inverse], [...(byParent.get(r[inverse]) ?? []), r]);
          return parents.map((p) => byParent.get(p) ?? []);
        });
        children.set(key, l);
      }
      return l;
    },
  };
}
