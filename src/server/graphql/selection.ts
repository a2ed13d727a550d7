import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { canReadField, namesOf } from '../../kernel/access.js';
import type { Principal } from '../../kernel/env.js';
import type { ResolvedModel } from '../../kernel/registry/model.js';

/*
 * The columns a GraphQL selection needs, so a list of 50 organizations asking for `name` reads
 * those columns and not every field of the model. A reference needs its own column (the id of
 * the target), a One2Many only the parent's id, which is always read.
 */

type Fragments = Record<string, FragmentDefinitionNode>;

function collect(set: SelectionSetNode | undefined, fragments: Fragments, out: Set<string>, seen: Set<string>): void {
  for (const s of set?.selections ?? []) {
    if (s.kind === Kind.FIELD) out.add(s.name.value);
    else if (s.kind === Kind.INLINE_FRAGMENT) collect(s.selectionSet, fragments, out, seen);
    else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      collect(fragments[s.name.value]?.selectionSet, fragments, out, seen);
    }
  }
}

// one list per selection node: every item of a list shares its field nodes
const cache = new WeakMap<FieldNode, Map<string, string[]>>();

/** Stored, readable field names of `model` that the selection under `nodes` asks for. */
export function selectedFields(model: ResolvedModel, nodes: readonly FieldNode[], fragments: Fragments, principal: Principal): string[] {
  const key = `${model.key}|${principal.kind}|${namesOf(principal).join(',')}`;
  let byKey = cache.get(nodes[0]);
  const hit = byKey?.get(key);
  if (hit) return hit;
  const names = new Set<string>();
  for (const n of nodes) collect(n.selectionSet, fragments, names, new Set());
  const fields: string[] = [];
  for (const name of names) {
    const f = model.fields.get(name);
    if (f?.stored && !f.private && canReadField(model, f, principal)) fields.push(name);
  }
  if (!byKey) cache.set(nodes[0], (byKey = new Map()));
  byKey.set(key, fields);
  return fields;
}
