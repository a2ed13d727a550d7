/**
 * The client's view of server errors: the token codes it refreshes on are the codes the server
 * raises, and field errors come from both shapes the server sends.
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationRequired, ExpiredTokenError, InvalidTokenError, ValidationError } from '../../../src/kernel/errors.ts';
import { formatBytes } from '../../../src/kernel/bytes.ts';
import { ApiError, sentence, TOKEN_CODES } from '../../../web/src/api/errors.ts';

describe('ApiError', () => {
  it('refreshes on exactly the codes the server uses for a token it no longer takes', () => {
    for (const err of [new ExpiredTokenError(), new InvalidTokenError(), new AuthenticationRequired()]) expect(TOKEN_CODES.has(err.code), err.code).toBe(true);
    expect(TOKEN_CODES.has('AUTHENTICATION_FAILED')).toBe(false); // a wrong password is not a token problem
  });

  it('reads field errors from details.errors[] (VALIDATION_FAILED) and from details.field (a hook error)', () => {
    const many = new ApiError('VALIDATION_FAILED', 'invalid', 422, { errors: [{ field: 'name', code: 'REQUIRED', message: 'name is required' }, { code: 'X' }] });
    expect(many.fieldErrors()).toEqual({ name: 'name is required' });
    const hook = new ValidationError('code must be a slug', { field: 'code' }, 'INVALID_SLUG');
    expect(new ApiError(hook.code, hook.message, hook.status, hook.details).fieldErrors()).toEqual({ code: 'Code must be a slug.' });
    expect(new ApiError('CONFLICT', 'x', 409).fieldErrors()).toEqual({});
  });

  it('says field problems in people\'s words: the label and reason the server sends, not the field key', () => {
    const err = new ApiError('VALIDATION_FAILED', '"expected_revenue": must be at least 0', 422, {
      errors: [{ field: 'expected_revenue', code: 'INVALID_TYPE', message: '"expected_revenue": must be at least 0', label: 'Expected revenue', reason: 'must be at least 0' }],
    });
    expect(err.fieldErrors()).toEqual({ expected_revenue: 'Must be at least 0.' });
    expect(err.problemSentences()).toEqual(['Expected revenue must be at least 0.']);
    expect(sentence('the file is larger than 25 MB, the most this server accepts')).toBe('The file is larger than 25 MB, the most this server accepts.');
  });
});

describe('formatBytes', () => {
  it('shows sizes as people read them, in binary multiples', () => {
    expect([formatBytes(1), formatBytes(20), formatBytes(1023), formatBytes(1024), formatBytes(20_000_000), formatBytes(26_214_400), formatBytes(5 * 1024 ** 3)])
      .toEqual(['1 byte', '20 bytes', '1023 bytes', '1 KB', '19.1 MB', '25 MB', '5 GB']);
  });
});

/** fw's catalogue in `locale`, as useT() gives it (French over English). */
const tOf = async (locale: 'en' | 'fr') => {
  const { createIntl } = await import('react-intl');
  const { en } = await import('../../../web/src/i18n/en.ts');
  const { fr } = await import('../../../web/src/i18n/fr.ts');
  const intl = createIntl({ locale, messages: locale === 'fr' ? { ...en, ...fr } : en });
  return Object.assign((id: string) => intl.formatMessage({ id }), { intl });
};

describe('field errors in the reader\'s language (fieldErrorsOf)', () => {
  const err = new ApiError('VALIDATION_FAILED', 'invalid', 422, {
    errors: [
      { field: 'name', code: 'REQUIRED', message: '"name" is required', label: 'Name', reason: 'is required' },
      { field: 'code3', code: 'TOO_LONG', message: '"code3": longer than 3 characters', label: 'Code', reason: 'longer than 3 characters' },
      { field: 'numeric', code: 'SOMETHING_NEW', message: '"numeric": odd', label: 'Numeric', reason: 'is odd' },
    ],
  });

  it('a French reader gets the catalogue\'s reason for a known problem code, and the server\'s English for an unknown one', async () => {
    const { fieldErrorsOf } = await import('../../../web/src/app/errors.ts');
    const fr = fieldErrorsOf(await tOf('fr') as never, err);
    expect(fr).toEqual({ name: 'Obligatoire.', code3: 'Trop long.', numeric: 'Odd.' });
  });

  it('an English reader gets the server\'s reasons', async () => {
    const { fieldErrorsOf } = await import('../../../web/src/app/errors.ts');
    expect(fieldErrorsOf(await tOf('en') as never, err)).toEqual({ name: 'Required.', code3: 'Longer than 3 characters.', numeric: 'Odd.' });
  });
});

describe('import row errors in the reader\'s language (rowErrorText)', () => {
  // as the server sends them (src/server/transfer/import.ts, docs/api.md#export-and-import)
  const errors: Array<{ code: string; message: string; values?: Record<string, string | number> }> = [
    { code: 'IMPORT_REFERENCE_NOT_FOUND', message: 'no Organization named "Initech"', values: { value: 'Initech', model: 'res.organization' } },
    { code: 'IMPORT_REFERENCE_AMBIGUOUS', message: '2 Organization records are named "Twin"; give the id instead', values: { value: 'Twin', model: 'res.organization', count: 2 } },
    { code: 'IMPORT_INVALID_VALUE', message: '"ten" is not a whole number', values: { value: 'ten', expected: 'integer' } },
    { code: 'IMPORT_DUPLICATE_KEY', message: '"a@x.test" is also on line 2', values: { value: 'a@x.test', first_line: 2 } },
    { code: 'IMPORT_KEY_AMBIGUOUS', message: '2 records have email "t@x.test"', values: { value: 't@x.test', count: 2 } },
    { code: 'REQUIRED', message: '"name" is required' },
    { code: 'UNIQUE_VIOLATION', message: 'duplicate value for email' },
    { code: 'SOME_HOOK_CODE', message: 'the stage cannot go back' },
  ];

  it('a French reader reads the import\'s codes with their values, then field problem and error codes, and the server\'s English for a code the catalogue lacks', async () => {
    const { rowErrorText } = await import('../../../web/src/app/errors.ts');
    const { transferMessages } = await import('../../../web/src/views/list/transfer-messages.ts');
    const t = await tOf('fr') as never;
    // (French keeps « » and a colon with their word by non-breaking spaces)
    expect(errors.map((e) => rowErrorText(t, e, transferMessages).replaceAll('\u00a0', ' '))).toEqual([
      'Aucun enregistrement ne s’appelle « Initech ».',
      '2 enregistrements s’appellent « Twin » : donnez plutôt l’identifiant.',
      '« ten » n’est pas un nombre entier.',
      '« a@x.test » figure aussi à la ligne 2.',
      '2 enregistrements ont « t@x.test » : impossible de savoir lequel mettre à jour.',
      'Obligatoire.',
      'Cette valeur est déjà prise par un autre enregistrement.',
      'The stage cannot go back.',
    ]);
  });

  it('an English reader reads the chunk\'s English for the import\'s codes (the catalogue lacks them) and the server\'s message otherwise', async () => {
    const { rowErrorText } = await import('../../../web/src/app/errors.ts');
    const { transferMessages } = await import('../../../web/src/views/list/transfer-messages.ts');
    const t = await tOf('en') as never;
    expect(errors.map((e) => rowErrorText(t, e, transferMessages)).slice(0, 3)).toEqual([
      'No record is named “Initech”.', '2 records are named “Twin”: give the id instead.', '“ten” is not a whole number.',
    ]);
    expect(rowErrorText(t, errors[5], transferMessages)).toBe('"name" is required.');
  });

  it('a row error without values (a server before them) keeps its message rather than a text with holes', async () => {
    const { rowErrorText } = await import('../../../web/src/app/errors.ts');
    const { transferMessages } = await import('../../../web/src/views/list/transfer-messages.ts');
    expect(rowErrorText(await tOf('fr') as never, { code: 'IMPORT_REFERENCE_NOT_FOUND', message: 'no Organization named "Initech"' }, transferMessages))
      .toBe('No Organization named "Initech".');
  });
});
