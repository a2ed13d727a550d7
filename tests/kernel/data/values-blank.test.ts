/**
 * A required Char or Text field refuses blank text (empty or only whitespace) on create and on
 * update with the same error as a missing value (422 VALIDATION_FAILED, the field's problem coded
 * REQUIRED): over the command bus on a real SQLite database (crm.lead's required `name`), and
 * through toWriteData for Text and for `allow_empty`, which no loaded model declares. A field
 * declaring `allow_empty` takes blank text (not null); an optional field takes it as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBlankRequired, toWriteData } from '../../../src/kernel/data/values.ts';
import { defineModel, f } from '../../../src/kernel/declare.ts';
import { ValidationError } from '../../../src/kernel/errors.ts';
import { createRegistry } from '../../../src/kernel/kernel.ts';
import { adminPrincipal, bootTestKernel, errorCodes, expectFwError, fixtureApp, type TestKernel } from '../../helpers/kernel.ts';

const T = 'blank';
const admin = adminPrincipal(T);

describe('blank text in a required Char (SQLite, command bus)', () => {
  let tk: TestKernel;
  const run = <R = Record<string, unknown>>(command: string, payload: Record<string, unknown>) => tk.kernel.dispatch<R>(command, payload, admin);
  const create = (values: Record<string, unknown>) => run('fw.create', { model: 'crm.lead', values });

  beforeAll(async () => {
    tk = await bootTestKernel();
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('a missing required field and an empty one are refused alike: 422 VALIDATION_FAILED, REQUIRED naming the field', async () => {
    const missing = await expectFwError(create({ email: 'a@x.test' }), 422, 'VALIDATION_FAILED');
    const empty = await expectFwError(create({ name: '', email: 'a@x.test' }), 422, 'VALIDATION_FAILED');
    expect(errorCodes(missing)).toEqual({ name: 'REQUIRED' });
    expect(errorCodes(empty)).toEqual({ name: 'REQUIRED' });
    expect(empty.details).toMatchObject({ model: 'crm.lead', errors: [{ field: 'name', reason: 'is required' }] });
  });

  it('whitespace only (spaces, tabs, newlines) is blank too', async () => {
    for (const name of ['   ', '\t', ' \n ']) {
      const err = await expectFwError(create({ name }), 422, 'VALIDATION_FAILED');
      expect(errorCodes(err)).toEqual({ name: 'REQUIRED' });
    }
  });

  it('an update to blank text is refused and the record keeps its value', async () => {
    const rec = await create({ name: 'Kept' });
    for (const name of ['', '  ']) {
      const err = await expectFwError(run('fw.update', { model: 'crm.lead', id: rec.id, values: { name } }), 422, 'VALIDATION_FAILED');
      expect(errorCodes(err)).toEqual({ name: 'REQUIRED' });
    }
    expect(await run('fw.read_one', { model: 'crm.lead', id: rec.id })).toMatchObject({ name: 'Kept' });
  });

  it('text with content among spaces is stored as written (not trimmed); an optional Char takes blank text', async () => {
    const rec = await create({ name: ' a ', email: '' });
    expect(rec).toMatchObject({ name: ' a ', email: '' });
  });
});

describe('blank text rules in toWriteData (Text, allow_empty)', () => {
  const registry = createRegistry([fixtureApp('fixture_blank', {
    models: [defineModel({
      key: 'blank.note',
      description: 'Note',
      fields: {
        title: f.char(50, { required: true }),
        body: f.text({ required: true }),
        code: f.char(10, { required: true, allow_empty: true }),
        memo: f.text({ required: true, allow_empty: true }),
        remark: f.text(),
      },
    })],
  })]);
  const note = registry.model('blank.note');
  const problems = (values: Record<string, unknown>, mode: 'create' | 'update') => {
    try {
      toWriteData(note, values, mode);
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      return errorCodes(err as ValidationError);
    }
    return {};
  };

  it('a required Text refuses blank text on create and update', () => {
    expect(problems({ title: 't', body: ' \n', code: 'c', memo: 'm' }, 'create')).toEqual({ body: 'REQUIRED' });
    expect(problems({ body: '' }, 'update')).toEqual({ body: 'REQUIRED' });
  });

  it('allow_empty takes blank text in Char and Text, but still refuses null', () => {
    expect(toWriteData(note, { title: 't', body: 'b', code: '', memo: '  ' }, 'create')).toMatchObject({ code: '', memo: '  ' });
    expect(problems({ code: null, memo: null }, 'update')).toEqual({ code: 'REQUIRED', memo: 'REQUIRED' });
  });

  it('an optional Text takes blank text', () => {
    expect(toWriteData(note, { remark: '' }, 'update')).toEqual({ remark: '' });
  });

  it('isBlankRequired: only text types, only required ones without allow_empty, only blank strings', () => {
    const field = (n: string) => note.fields.get(n)!;
    expect(isBlankRequired(field('title'), ' ')).toBe(true);
    expect(isBlankRequired(field('title'), ' x ')).toBe(false);
    expect(isBlankRequired(field('code'), '')).toBe(false);
    expect(isBlankRequired(field('remark'), '')).toBe(false);
    expect(isBlankRequired(field('revision'), 0)).toBe(false);
  });
});
