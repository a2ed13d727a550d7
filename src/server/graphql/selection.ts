import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import type { Registry } from '../../kernel/registry/registry.js';
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

// what decides field access, per principal object: a Reference resolver asks once per item
const principalKeys = new WeakMap<Principal, string>();
function principalKey(principal: Principal): string {
  let key = principalKeys.get(principal);
  if (key === undefined) principalKeys.set(principal, (key = `${principal.kind}|${namesOf(principal).join(',')}`));
  return key;
}

/** Stored, readable field names of `model` that the selection under `nodes` asks for. */
export function selectedFields(model: ResolvedModel, nodes: readonly FieldNode[], fragments: Fragments, principal: Principal): string[] {
  const key = `${model.key}|${principalKey(principal)}`;
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

/** The field nodes of a selection by response key (alias or name), in document order. */
function byResponseKey(set: SelectionSetNode | undefined, fragments: Fragments, out: Map<string, FieldNode[]>, seen: Set<string>): boolean {
  for (const s of set?.selections ?? []) {
    // @skip/@include depend on variables: such a selection is not looked ahead into
    if (s.directives?.length) return false;
    if (s.kind === Kind.FIELD) {
      const key = s.alias?.value ?? s.name.value;
      out.set(key, [...(out.get(key) ?? []), s]);
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      if (!byResponseKey(s.selectionSet, fragments, out, seen)) return false;
    } else if (!seen.has(s.name.value)) {
      seen.add(s.name.value);
      const fragment = fragments[s.name.value];
      if (fragment?.directives?.length || !byResponseKey(fragment?.selectionSet, fragments, out, seen)) return false;
    }
  }
  return true;
}

/** `{ x { id } }`: a Reference's resolver answers it from the id it holds, with no load. */
export function asksOnlyId(nodes: readonly FieldNode[]): boolean {
  const sel = nodes[0]?.selectionSet?.selections ?? [];
  return sel.length === 1 && sel[0].kind === Kind.FIELD && sel[0].name.value === 'id';
}

const references = new WeakMap<FieldNode, Map<string, Record<string, string[]>>>();

/**
 * The References a list's items will load, with the fields each load asks for: what the
 * Reference resolvers would each pass to `loaders.byId` (the same `selectedFields` of the same
 * field nodes), so the list's search can read them in its own statement and the resolvers answer
 * from the row (schema.ts, `keepJoined`). A Reference selected under two response keys, one
 * asking only for `id` (no load), or a selection with directives is left to its resolver.
 */
export function selectedReferences(registry: Registry, model: ResolvedModel, nodes: readonly FieldNode[], fragments: Fragments, principal: Principal): Record<string, string[]> {
  const key = `${model.key}|${principalKey(principal)}`;
  let byKey = references.get(nodes[0]);
  const hit = byKey?.get(key);
  if (hit) return hit;
  const keys = new Map<string, FieldNode[]>();
  let ok = true;
  for (const n of nodes) ok &&= byResponseKey(n.selectionSet, fragments, keys, new Set());
  const out: Record<string, string[]> = {};
  const perField = new Map<string, number>();
  for (const fieldNodes of keys.values()) perField.set(fieldNodes[0].name.value, (perField.get(fieldNodes[0].name.value) ?? 0) + 1);
  for (const fieldNodes of ok ? keys.values() : []) {
    const name = fieldNodes[0].name.value;
    const f = model.fields.get(name);
    if (f?.type !== 'reference' || !f.target || !registry.models.has(f.target) || perField.get(name) !== 1 || asksOnlyId(fieldNodes)) continue;
    if (!f.stored || f.private || !canReadField(model, f, principal)) continue;
    out[name] = selectedFields(registry.model(f.target), fieldNodes, fragments, principal);
  }
  if (!byKey) references.set(nodes[0], (byKey = new Map()));
  byKey.set(key, out);
  return out;
}
