/**
 * The key the cost check and the variable coercion keep their per-document memos under
 * (src/server/graphql/variables-key.ts): the variables' JSON, none for variables longer than
 * 4 KiB (a caller's text must not grow a memo without bound), worked out once per request.
 */
import { describe, expect, it } from 'vitest';
import { VARIABLES_KEY_MAX, variablesKey } from '../../src/server/graphql/variables-key.ts';

describe('variablesKey', () => {
  it('is the JSON of the variables; no variables is the empty key', () => {
    expect(variablesKey({ limit: 20, where: { name: { contains: 'a' } } })).toBe('{"limit":20,"where":{"name":{"contains":"a"}}}');
    expect(variablesKey(undefined)).toBe('');
    expect(variablesKey(null)).toBe('');
    expect(variablesKey({})).toBe('{}');
  });

  it('is null for variables whose JSON is longer than 4 KiB, so nothing keeps them', () => {
    expect(VARIABLES_KEY_MAX).toBe(4096);
    const at = { s: 'x'.repeat(VARIABLES_KEY_MAX - '{"s":""}'.length) };
    expect(variablesKey(at)).toHaveLength(VARIABLES_KEY_MAX);
    expect(variablesKey({ s: `${at.s}x` })).toBeNull();
  });

  it('equal variables sent as other objects get the same key; other values, another', () => {
    expect(variablesKey({ a: [1, 2] })).toBe(variablesKey({ a: [1, 2] }));
    expect(variablesKey({ a: [1, 2] })).not.toBe(variablesKey({ a: [2, 1] }));
  });

  it('a value that is not an object is not kept', () => {
    expect(variablesKey('{"a":1}')).toBeNull();
    expect(variablesKey(3)).toBeNull();
  });
});
