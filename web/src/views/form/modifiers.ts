/**
 * View modifiers in the form: the render plan carries `invisible`, `readonly` and `required` as
 * expression trees the server parsed from the view (src/apps/presentation/views/modifiers.ts has
 * the language); this evaluates them against the form's current values, live. Nothing is
 * `eval`ed: the tree only holds constants, field names, comparisons, `in`, `not`, `and`, `or`.
 */
export type Expr =
  | { const: unknown }
  | { field: string }
  | { op: string; args: Expr[] };

export type ModifierName = 'invisible' | 'readonly' | 'required';
export type Modifiers = Partial<Record<ModifierName, Expr>>;

/** Python-like truth: null, false, 0, '' and [] are false. */
export const truthy = (v: unknown): boolean => !(v === null || v === undefined || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0));

/**
 * The value of a tree. A Reference held as a record ({ id, … }) counts as its id; comparing
 * values of different kinds is false rather than an error.
 */
export function evaluate(e: Expr, values: Record<string, unknown>): unknown {
  if ('const' in e) return e.const;
  if ('field' in e) {
    const v = values[e.field];
    return v && typeof v === 'object' && !Array.isArray(v) && 'id' in v ? (v as { id: unknown }).id : v ?? null;
  }
  const [x, y] = e.args;
  switch (e.op) {
    case 'and': return e.args.every((a) => truthy(evaluate(a, values)));
    case 'or': return e.args.some((a) => truthy(evaluate(a, values)));
    case 'not': return !truthy(evaluate(x, values));
    case 'in':
    case 'not in': {
      const list = evaluate(y, values);
      const v = evaluate(x, values);
      const found = Array.isArray(list) && list.some((item) => item === v);
      return e.op === 'in' ? found : !found;
    }
    default: {
      const a = evaluate(x, values);
      const b = evaluate(y, values);
      if (e.op === '==') return a === b;
      if (e.op === '!=') return a !== b;
      if (a === null || b === null || typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
      const [p, q] = [a as number | string, b as number | string];
      return e.op === '<' ? p < q : e.op === '<=' ? p <= q : e.op === '>' ? p > q : e.op === '>=' ? p >= q : false;
    }
  }
}

/** Reads a plan's `modifiers` JSON, keeping only well-formed entries. */
export function modifiersOf(v: unknown): Modifiers {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
  const out: Modifiers = {};
  const given = new Map(Object.entries(v));
  for (const k of ['invisible', 'readonly', 'required'] as const) {
    const e: unknown = given.get(k);
    if (isExpr(e)) out[k] = e;
  }
  return out;
}

/** A well-formed tree: a constant, a field, or an operator over trees. */
function isExpr(e: unknown): e is Expr {
  if (!e || typeof e !== 'object' || Array.isArray(e)) return false;
  if ('const' in e) return true;
  if ('field' in e) return typeof e.field === 'string';
  return 'op' in e && typeof e.op === 'string' && 'args' in e && Array.isArray(e.args) && e.args.every(isExpr);
}

/** Whether modifier `name` holds for these values (false when the plan has none). */
export const holds = (m: Modifiers, name: ModifierName, values: Record<string, unknown>): boolean =>
  !!m[name] && truthy(evaluate(m[name]!, values));

/** Every field some modifier of the plan reads: the form watches exactly these. */
export function watchedFields(all: readonly Modifiers[]): string[] {
  const out = new Set<string>();
  const walk = (e: Expr) => {
    if ('field' in e) out.add(e.field);
    if ('args' in e) e.args.forEach(walk);
  };
  for (const m of all) for (const e of Object.values(m)) if (e) walk(e);
  return [...out];
}
