/**
 * The GraphQL depth guard: how many fields deep an operation's selection goes, checked before it
 * executes or subscribes (with the cost guard, `cost.ts`). It replaces graphql-armor's
 * max-depth, whose refusal read "Syntax Error: …" without a code and with HTTP 200.
 *
 * The depth of an operation is the number of fields on its longest path: `{ a { b { c } } }` is
 * 3. Inline fragments and fragment spreads add no level of their own (their fields do),
 * `@skip`/`@include` are honoured (with the variables sent), and introspection (`__schema`,
 * `__type`) counts 0, so a schema explorer's introspection query always passes (it is governed
 * by GRAPHQL_INTROSPECTION). A refusal is a request error with no `data`: `extensions.code`
 * QUERY_TOO_DEEP, details `{ depth, limit }`, HTTP 400, over HTTP (POST, GET), SSE and graphql-ws.
 */
import {
  BREAK, GraphQLError, Kind, valueFromASTUntyped, visit,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionNode,
  type SelectionSetNode, type ValueNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { refuseWhen } from './guard.js';

export const QUERY_TOO_DEEP = 'QUERY_TOO_DEEP';

export interface DepthResult {
  depth: number;
  /** The response keys (aliases or names) down to the deepest field. */
  path: string[];
  /** The deepest field (for the error's location). */
  node: FieldNode | null;
}

const NONE: DepthResult = { depth: 0, path: [], node: null };

/** The depth of the operation `operationName` (or the only one) of `document`; 0 when there is none. */
export function operationDepth(document: DocumentNode, variables: Record<string, unknown> | null | undefined,
  operationName: string | null | undefined): DepthResult {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  if (!operation) return NONE;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const vars: Record<string, unknown> = {};
  for (const def of operation.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    if (variables && Object.hasOwn(variables, name)) vars[name] = variables[name];
    else if (def.defaultValue) vars[name] = valueFromASTUntyped(def.defaultValue);
  }
  const valueOf = (node: ValueNode): unknown => valueFromASTUntyped(node, vars);
  const included = (node: SelectionNode): boolean => {
    for (const d of node.directives ?? []) {
      const flag = d.arguments?.find((a) => a.name.value === 'if');
      if (!flag) continue;
      if (d.name.value === 'skip' && valueOf(flag.value) === true) return false;
      if (d.name.value === 'include' && valueOf(flag.value) === false) return false;
    }
    return true;
  };
  // a fragment's depth does not depend on where it is spread: weighed once
  const memo = new Map<string, DepthResult>();
  const inProgress = new Set<string>();

  function setDepth(set: SelectionSetNode): DepthResult {
    let best = NONE;
    for (const s of set.selections) {
      if (!included(s)) continue;
      let r: DepthResult;
      if (s.kind === Kind.FIELD) r = fieldDepth(s);
      else if (s.kind === Kind.INLINE_FRAGMENT) r = setDepth(s.selectionSet);
      else {
        const name = s.name.value;
        const fragment = fragments.get(name);
        if (!fragment || inProgress.has(name)) continue; // unknown or cyclic: refused by validation
        let m = memo.get(name);
        if (!m) {
          inProgress.add(name);
          m = setDepth(fragment.selectionSet);
          inProgress.delete(name);
          memo.set(name, m);
        }
        r = m;
      }
      if (r.depth > best.depth) best = r;
    }
    return best;
  }

  function fieldDepth(field: FieldNode): DepthResult {
    const name = field.name.value;
    if (name === '__schema' || name === '__type') return NONE;
    const key = field.alias?.value ?? name;
    const inner = field.selectionSet ? setDepth(field.selectionSet) : NONE;
    return { depth: 1 + inner.depth, path: [key, ...inner.path], node: inner.node ?? field };
  }

  return setDepth(operation.selectionSet);
}

function depthError(found: DepthResult, limit: number): GraphQLError {
  return new GraphQLError(`query depth ${found.depth} exceeds the limit of ${limit} (GRAPHQL_MAX_DEPTH) at ${found.path.join('.')}: select fewer nested fields`, {
    nodes: found.node ?? undefined,
    extensions: { code: QUERY_TOO_DEEP, details: { depth: found.depth, limit }, http: { status: 400 } },
  });
}

/**
 * Checks every operation before it executes or subscribes (after validation, when the variables
 * are known); an operation deeper than `maxDepth` ends with the depth error and nothing runs.
 * Put it before the cost guard: a deep query is then refused for its depth, the clearer reason.
 */
export function depthLimit(maxDepth: number): Plugin {
  // a document without @skip/@include has the same depth whatever its variables: weighed once
  // per operation (yoga's parse cache hands out the same document for the same text)
  const fixed = new WeakMap<DocumentNode, Map<string, DepthResult> | null>();
  const check = (args: { document: DocumentNode; variableValues?: unknown; operationName?: string | null }) => {
    let byOperation = fixed.get(args.document);
    if (byOperation === undefined) fixed.set(args.document, (byOperation = hasConditions(args.document) ? null : new Map()));
    let found = byOperation?.get(args.operationName ?? '');
    if (!found) {
      found = operationDepth(args.document, args.variableValues as Record<string, unknown> | undefined, args.operationName);
      byOperation?.set(args.operationName ?? '', found);
    }
    return found.depth > maxDepth ? depthError(found, maxDepth) : null;
  };
  return refuseWhen(check);
}

/** Whether any selection of `document` carries a directive (@skip/@include may depend on variables). */
function hasConditions(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Directive(node) {
      if (node.name.value === 'skip' || node.name.value === 'include') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}
