/**
 * The text a request's variables are kept under by the per-document memos of the cost check
 * (./cost.ts) and the variable coercion (./jit.ts): their JSON, or null when it is longer than
 * `VARIABLES_KEY_MAX` characters. Variables are the caller's text, up to the body limit: a memo
 * keyed by them without a bound would keep whatever a caller sends (anonymous callers included,
 * as the cost check runs before anything else). Longer variables are weighed and coerced on
 * every request instead, which their size makes rare.
 *
 * Both plugins ask for the same variables object in one request: its key is worked out once.
 */
export const VARIABLES_KEY_MAX = 4096;

const keys = new WeakMap<object, string | null>();

export function variablesKey(variables: unknown): string | null {
  if (variables == null) return '';
  if (typeof variables !== 'object') return null;
  let key = keys.get(variables);
  if (key === undefined) {
    const json = JSON.stringify(variables);
    key = json.length > VARIABLES_KEY_MAX ? null : json;
    keys.set(variables, key);
  }
  return key;
}
