/**
 * Output validation with JSON Schema: issues point at the offending value with a JSON Pointer,
 * all errors are reported (once each), validators are compiled once per schema object, and
 * checkSchema rejects what cannot be a tool input_schema.
 */
import { describe, expect, it, vi } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { MAX_ISSUES, checkSchema, validateAgainst } from '../../../src/apps/ai/guards/output.ts';

const invoice = {
  type: 'object',
  properties: {
    customer: { type: 'string', minLength: 1 },
    currency: { enum: ['EUR', 'USD'] },
    status: { const: 'draft' },
    lines: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 }, price: { type: 'number' } },
        required: ['sku', 'qty'],
        additionalProperties: false,
      },
    },
  },
  required: ['customer', 'lines'],
  additionalProperties: false,
};

describe('validateAgainst', () => {
  it('returns [] for a valid value', () => {
    expect(validateAgainst(invoice, { customer: 'Globex', currency: 'EUR', lines: [{ sku: 'A1', qty: 2, price: 9.5 }] })).toEqual([]);
  });

  it('reports every issue (allErrors) with a JSON Pointer to the offending value', () => {
    const issues = validateAgainst(invoice, { currency: 'GBP', status: 'sent', extra: true, lines: [{ sku: 'A1', qty: 0 }, { qty: 'two' }] });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: '/customer', message: 'is required' },
        { path: '/extra', message: 'is not an allowed property' },
        { path: '/currency', message: 'must be one of "EUR", "USD"' },
        { path: '/status', message: 'must be "draft"' },
        { path: '/lines/0/qty', message: 'must be >= 1' },
        { path: '/lines/1/sku', message: 'is required' },
        { path: '/lines/1/qty', message: 'must be integer' },
      ]),
    );
    expect(issues).toHaveLength(7);
  });

  it('the root is the empty pointer; property names are escaped per RFC 6901', () => {
    expect(validateAgainst({ type: 'object' }, 'text')).toEqual([{ path: '', message: 'must be object' }]);
    expect(validateAgainst({ type: 'object', properties: { 'a/b~c': { type: 'string' } } }, { 'a/b~c': 1 })).toEqual([{ path: '/a~1b~0c', message: 'must be string' }]);
  });

  it('repeated identical issues (anyOf branches, allErrors) are reported once and capped', () => {
    const schema = { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'string', minLength: 1 }] } };
    const issues = validateAgainst(schema, Array.from({ length: 200 }, () => 1));
    expect(new Set(issues.map((i) => `${i.path} ${i.message}`)).size).toBe(issues.length);
    expect(issues.length).toBe(MAX_ISSUES);
  });

  it('compiles a validator once per schema object (WeakMap cache)', () => {
    const spy = vi.spyOn(Ajv2020.prototype, 'compile');
    const schema = { type: 'object', properties: { n: { type: 'number' } } };
    for (let i = 0; i < 5; i++) validateAgainst(schema, { n: i });
    checkSchema(schema);
    expect(spy).toHaveBeenCalledTimes(1);
    validateAgainst({ ...schema }, { n: 1 }); // a different object is compiled on its own
    expect(spy).toHaveBeenCalledTimes(2);
    spy.mockRestore();
  });

  it('two schemas may carry the same $id (ajv does not keep them registered)', () => {
    expect(validateAgainst({ $id: 'https://acme.example/tool', type: 'string' }, 'x')).toEqual([]);
    expect(validateAgainst({ $id: 'https://acme.example/tool', type: 'number' }, 1)).toEqual([]);
  });

  it('supports $defs/$ref, draft-07 schemas by $schema, and treats format as an annotation', () => {
    const withRef = { type: 'object', properties: { a: { $ref: '#/$defs/pos' } }, $defs: { pos: { type: 'integer', minimum: 1 } } };
    expect(validateAgainst(withRef, { a: 0 })).toEqual([{ path: '/a', message: 'must be >= 1' }]);
    const draft7 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }, { type: 'number' }] };
    expect(validateAgainst(draft7, ['a', 'b'])).toEqual([{ path: '/1', message: 'must be number' }]);
    expect(validateAgainst({ type: 'string', format: 'email' }, 'not an email')).toEqual([]);
  });

  it('throws when the schema itself is invalid (callers check schemas at boot)', () => {
    expect(() => validateAgainst({ type: 'objekt' }, {})).toThrow(/invalid JSON Schema/);
  });
});

describe('checkSchema', () => {
  it('returns null for valid schemas, including vendor keywords (strict: false)', () => {
    expect(checkSchema(invoice)).toBeNull();
    expect(checkSchema({ type: 'object', properties: { q: { type: 'string', 'x-ui-widget': 'textarea', examples: ['a'] } } })).toBeNull();
    expect(checkSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' })).toBeNull();
    expect(checkSchema({ $schema: 'http://json-schema.org/draft-06/schema#', type: 'object' })).toBeNull();
  });

  it('rejects a schema that violates the meta-schema, with the offending keyword', () => {
    expect(checkSchema({ type: 'objekt' })).toMatch(/^\/type must be one of/);
    expect(checkSchema({ type: 'object', required: 'name' })).toMatch(/\/required must be array/);
  });

  it('rejects unresolvable $refs and invalid regular expressions (found only by compiling)', () => {
    expect(checkSchema({ $ref: '#/$defs/missing' })).toMatch(/can't resolve reference/);
    expect(checkSchema({ type: 'string', pattern: '(' })).toMatch(/Invalid regular expression/);
  });

  it('rejects unsupported dialects and draft-07 tuple syntax in a 2020-12 schema', () => {
    expect(checkSchema({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' })).toMatch(/unsupported \$schema/);
    expect(checkSchema({ type: 'array', items: [{ type: 'string' }] })).toMatch(/\/items must be object,boolean/);
  });

  it('rejects non-objects', () => {
    expect(checkSchema([] as unknown as Record<string, unknown>)).toMatch(/must be a JSON object/);
    expect(checkSchema(null as unknown as Record<string, unknown>)).toMatch(/must be a JSON object/);
  });
});
