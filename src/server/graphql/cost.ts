/**
 * The GraphQL cost guard: an upper bound of how many values an operation can return, computed
 * from its document and variables before anything runs. graphql-armor's cost-limit weighs only
 * literal `first`/`last` arguments, reports a "Syntax Error" without a code and runs as a
 * validation rule, whose result yoga caches per document (so it cannot see variables).
 *
 * The model, per operation:
 * - every selected field counts 1 (a scalar, or the object itself) plus what it selects;
 * - a list field multiplies that by its size: the field's `limit`/`first` argument (literal,
 *   variable, the variable's default, else the schema default `defaultListSize`), capped at
 *   `maxListSize`; a connection's `first` sizes its `edges`; a list without a size argument
 *   (One2Many relations, command outputs) counts as `unsizedListSize`;
 * - nested lists multiply, aliases and fragment spreads add up (a fragment is weighed once per
 *   concrete type and memoised, so fragment "bombs" cost their expanded size without being
 *   expanded), `@skip`/`@include` are honoured;
 * - on an interface or union the most expensive concrete type counts (an object is one of them);
 * - introspection (`__schema`, `__type`) counts 0: bounded by the schema, governed by
 *   GRAPHQL_INTROSPECTION.
 * A refusal is a request error with no `data`: `extensions.code` QUERY_TOO_COSTLY, details
 * `{ cost, limit }`, HTTP 400, over HTTP (POST, GET), SSE and graphql-ws alike.
 */
import {
  getNamedType, GraphQLError, isAbstractType, isCompositeType, isListType, isNonNullType, Kind, valueFromASTUntyped,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLCompositeType, type GraphQLField, type GraphQLObjectType,
  type GraphQLOutputType, type GraphQLSchema, type OperationDefinitionNode, type SelectionNode, type SelectionSetNode, type ValueNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { refuseWhen } from './guard.js';
import { variablesKey } from './variables-key.js';

export interface CostLimits {
  /** Largest cost an operation may have. */
  maxCost: number;
  /** Size of a `limit`/`first` list whose argument is absent (API_DEFAULT_PAGE_SIZE). */
  defaultListSize: number;
  /** Largest size a `limit`/`first` list counts with (API_MAX_PAGE_SIZE: more is refused by the resolver). */
  maxListSize: number;
  /** Size of a list field that has no size argument. */
  unsizedListSize: number;
}

const SIZE_ARGS = ['limit', 'first'];

/** The cost of the operation `operationName` (or the only one) of `document`; 0 when there is none. */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | null | undefined,
  operationName: string | null | undefined, limits: Omit<CostLimits, 'maxCost'>): number {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  if (!operation) return 0;
  const root = operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  if (!root) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  // variables as sent, completed with the operation's defaults
  const vars: Record<string, unknown> = {};
  for (const def of operation.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    if (variables && Object.hasOwn(variables, name)) vars[name] = variables[name];
    else if (def.defaultValue) vars[name] = valueFromASTUntyped(def.defaultValue);
  }
  const valueOf = (node: ValueNode): unknown => valueFromASTUntyped(node, vars);
  const memo = new Map<string, number>();
  const inProgress = new Set<string>();

  const included = (node: SelectionNode): boolean => {
    for (const d of node.directives ?? []) {
      const flag = d.arguments?.find((a) => a.name.value === 'if');
      if (!flag) continue;
      if (d.name.value === 'skip' && valueOf(flag.value) === true) return false;
      if (d.name.value === 'include' && valueOf(flag.value) === false) return false;
    }
    return true;
  };

  const applies = (condition: string | undefined, type: GraphQLObjectType): boolean => {
    if (!condition || condition === type.name) return true;
    const t = schema.getType(condition);
    return !!t && isAbstractType(t) && schema.isSubType(t, type);
  };

  /** The size a list field counts with, from its own size argument (or `inherited`, a connection's). */
  const sizeOf = (node: FieldNode, def: GraphQLField<unknown, unknown>, inherited: number | undefined): number => {
    const arg = def.args.find((a) => SIZE_ARGS.includes(a.name));
    if (!arg) return inherited ?? limits.unsizedListSize;
    const given = node.arguments?.find((a) => a.name.value === arg.name);
    const v = given ? valueOf(given.value) : undefined;
    const n = typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : limits.defaultListSize;
    return Math.min(Math.max(n, 0), limits.maxListSize);
  };

  /** The connection size a non-list field hands down to its list children (`first` of `…Connection`). */
  const handedDown = (node: FieldNode, def: GraphQLField<unknown, unknown>): number | undefined =>
    def.args.some((a) => SIZE_ARGS.includes(a.name)) ? sizeOf(node, def, undefined) : undefined;

  const fieldCost = (node: FieldNode, parent: GraphQLObjectType, inherited: number | undefined): number => {
    const name = node.name.value;
    if (name === '__schema' || name === '__type') return 0;
    if (name === '__typename') return 1;
    const def = parent.getFields()[name];
    if (!def) return 0; // refused by validation anyway
    let type: GraphQLOutputType = def.type;
    let multiplier = 1;
    let outer = true;
    let passDown: number | undefined;
    for (;;) {
      if (isNonNullType(type)) type = type.ofType;
      else if (isListType(type)) {
        multiplier *= outer ? sizeOf(node, def, inherited) : limits.unsizedListSize;
        outer = false;
        type = type.ofType;
      } else break;
    }
    if (outer) passDown = handedDown(node, def);
    const named = getNamedType(type);
    const inner = node.selectionSet && isCompositeType(named) ? setCost(node.selectionSet, named, passDown) : 0;
    return multiplier * (1 + inner);
  };

  /** On an abstract type, the most expensive of its object types. */
  function setCost(set: SelectionSetNode, type: GraphQLCompositeType, inherited: number | undefined): number {
    if (!isAbstractType(type)) return objectSetCost(set, type, inherited);
    let max = 0;
    for (const t of schema.getPossibleTypes(type)) max = Math.max(max, objectSetCost(set, t, inherited));
    return max;
  }

  function objectSetCost(set: SelectionSetNode, type: GraphQLObjectType, inherited: number | undefined): number {
    let sum = 0;
    for (const s of set.selections) {
      if (!included(s)) continue;
      if (s.kind === Kind.FIELD) sum += fieldCost(s, type, inherited);
      else if (s.kind === Kind.INLINE_FRAGMENT) {
        if (applies(s.typeCondition?.name.value, type)) sum += objectSetCost(s.selectionSet, type, inherited);
      } else {
        const fragment = fragments.get(s.name.value);
        if (!fragment || !applies(fragment.typeCondition.name.value, type)) continue;
        const key = `${fragment.name.value}|${type.name}|${inherited ?? ''}`;
        let c = memo.get(key);
        if (c === undefined) {
          if (inProgress.has(key)) continue; // a fragment cycle: refused by validation
          inProgress.add(key);
          c = objectSetCost(fragment.selectionSet, type, inherited);
          inProgress.delete(key);
          memo.set(key, c);
        }
        sum += c;
      }
    }
    return sum;
  }

  return objectSetCost(operation.selectionSet, root, undefined);
}

export const QUERY_TOO_COSTLY = 'QUERY_TOO_COSTLY';

function costError(cost: number, limit: number): GraphQLError {
  return new GraphQLError(`query cost ${cost} exceeds the limit of ${limit} (GRAPHQL_MAX_COST): ask for smaller pages (limit/first), fewer aliases or less nesting`, {
    extensions: { code: QUERY_TOO_COSTLY, details: { cost, limit }, http: { status: 400 } },
  });
}

/**
 * Checks every operation before it executes or subscribes (after validation, when the variables
 * are known); an operation over the limit ends with the cost error and nothing runs.
 */
export function costLimit(limits: CostLimits): Plugin {
  // yoga parses a document once and hands the same object to every request that sends it: its
  // cost for the same operation and variables is the same number, weighed once (schema-bound)
  const memo = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, number>>>();
  const check = (args: { schema: GraphQLSchema; document: DocumentNode; variableValues?: unknown; operationName?: string | null }) => {
    let bySchema = memo.get(args.schema);
    if (!bySchema) memo.set(args.schema, (bySchema = new WeakMap()));
    let byDoc = bySchema.get(args.document);
    if (!byDoc) bySchema.set(args.document, (byDoc = new Map()));
    // variables too long to keep (./variables-key.ts) are weighed every time
    const variables = variablesKey(args.variableValues);
    const key = variables === null ? null : `${args.operationName ?? ''}\u0000${variables}`;
    let cost = key === null ? undefined : byDoc.get(key);
    if (cost === undefined) {
      cost = operationCost(args.schema, args.document, args.variableValues as Record<string, unknown> | undefined, args.operationName, limits);
      // a document sent with ever new variables keeps a bounded memo
      if (byDoc.size >= MEMO_PER_DOCUMENT) byDoc.clear();
      if (key !== null) byDoc.set(key, cost);
    }
    return cost > limits.maxCost ? costError(cost, limits.maxCost) : null;
  };
  return refuseWhen(check);
}

const MEMO_PER_DOCUMENT = 64;
