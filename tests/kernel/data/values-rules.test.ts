/**
 * Rules of src/kernel/data/values.ts that values-coerce.test.ts leaves open: a required field
 * whose value was refused is reported once (its own problem, not a second REQUIRED), a required
 * field left out of a create is reported with its message, an Integer's `min` above zero binds
 * writes, and a JSON value with undefined members (an in-process command can pass one) is taken
 * rather than failing the NUL check.
 */
import { describe, expect, it } from 'vitest';
import { coerceScalar, toWriteData } from '../../../src/kernel/data/values.ts';
import { defineModel, f } from '../../../src/kernel/declare.ts';
import { ValidationError } from '../../../src/kernel/errors.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import { fixtureApp } from '../../helpers/kernel.ts';

const registry = createRegistry([fixtureApp('fixture_vr', {
  models: [defineModel({
    key: 'vr.thing',
    description: 'Thing',
    fields: {
      name: f.char(5, { required: true }),
      level: f.integer({ required: true, min: 5, max: 9 }),
      data: f.json(),
    },
  })],
})]);
const thing = registry.model('vr.thing');

function refused(values: Record<string, unknown>, mode: 'create' | 'update'): ValidationError {
  try {
    toWriteData(thing, values, mode);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('the write should be refused');
}

describe('problems of a create', () => {
  it('a required field with a value of the wrong type is reported once, as INVALID_TYPE', () => {
    const err = refused({ name: 5, level: 6 }, 'create');
    expect({ status: err.status, code: err.code, message: err.message }).toEqual({
      status: 422, code: 'VALIDATION_FAILED', message: '"name": expected text, got number',
    });
    expect(err.details).toEqual({ model: 'vr.thing', errors: [{ field: 'name', code: 'INVALID_TYPE', message: '"name": expected text, got number', label: 'Name', reason: 'must be text' }] });
  });

  it('required fields left out are each reported as REQUIRED with their message, label and reason', () => {
    const err = refused({}, 'create');
    expect(err.message).toBe('"name" is required; "level" is required');
    expect(err.details).toEqual({
      model: 'vr.thing',
      errors: [
        { field: 'name', code: 'REQUIRED', message: '"name" is required', label: 'Name', reason: 'is required' },
        { field: 'level', code: 'REQUIRED', message: '"level" is required', label: 'Level', reason: 'is required' },
      ],
    });
  });
});

describe('Integer bounds', () => {
  it('a min above zero refuses a smaller value written, and binds no filter', () => {
    expect(() => coerceScalar(thing.fields.get('level')!, 4)).toThrow('must be at least 5');
    expect(coerceScalar(thing.fields.get('level')!, 5)).toBe(5);
    expect(coerceScalar(thing.fields.get('level')!, 4, 'filter')).toBe(4);
    const err = refused({ level: 4 }, 'update');
    expect(err.details).toEqual({ model: 'vr.thing', errors: [{ field: 'level', code: 'INVALID_TYPE', message: '"level": must be at least 5', label: 'Level', reason: 'must be at least 5' }] });
  });
});

describe('JSON values', () => {
  it('undefined members, in an object or a list, are taken as they are', () => {
    const value = { a: undefined, list: [1, undefined, 'x'], nested: { b: undefined } };
    expect(coerceScalar(thing.fields.get('data')!, value)).toBe(value);
    expect(toWriteData(thing, { data: value }, 'update')).toEqual({ data: value });
  });
});
