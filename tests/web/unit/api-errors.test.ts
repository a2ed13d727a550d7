/**
 * The client's view of server errors: the token codes it refreshes on are the codes the server
 * raises, and field errors come from both shapes the server sends.
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationRequired, ExpiredTokenError, InvalidTokenError, ValidationError } from '../../../src/kernel/errors.ts';
import { ApiError, TOKEN_CODES } from '../../../web/src/api/errors.ts';

describe('ApiError', () => {
  it('refreshes on exactly the codes the server uses for a token it no longer takes', () => {
    for (const err of [new ExpiredTokenError(), new InvalidTokenError(), new AuthenticationRequired()]) expect(TOKEN_CODES.has(err.code), err.code).toBe(true);
    expect(TOKEN_CODES.has('AUTHENTICATION_FAILED')).toBe(false); // a wrong password is not a token problem
  });

  it('reads field errors from details.errors[] (VALIDATION_FAILED) and from details.field (a hook error)', () => {
    const many = new ApiError('VALIDATION_FAILED', 'invalid', 422, { errors: [{ field: 'name', code: 'REQUIRED', message: 'name is required' }, { code: 'X' }] });
    expect(many.fieldErrors()).toEqual({ name: 'name is required' });
    const hook = new ValidationError('code must be a slug', { field: 'code' }, 'INVALID_SLUG');
    expect(new ApiError(hook.code, hook.message, hook.status, hook.details).fieldErrors()).toEqual({ code: 'code must be a slug' });
    expect(new ApiError('CONFLICT', 'x', 409).fieldErrors()).toEqual({});
  });
});
