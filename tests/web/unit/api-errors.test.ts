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

describe('field errors in the reader\'s language (fieldErrorsOf)', () => {
  const tOf = async (locale: 'en' | 'fr') => {
    const { createIntl } = await import('react-intl');
    const { en } = await import('../../../web/src/i18n/en.ts');
    const { fr } = await import('../../../web/src/i18n/fr.ts');
    const intl = createIntl({ locale, messages: locale === 'fr' ? { ...en, ...fr } : en });
    return Object.assign((id: string) => intl.formatMessage({ id }), { intl });
  };
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
