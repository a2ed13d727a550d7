import { ApiError } from '../api/errors.ts';
import { errorMessage } from '../app/errors.ts';
import { en, type MessageId } from '../i18n/en.ts';
import type { useT } from '../i18n/index.tsx';

/**
 * An assistant error as a sentence: the AI codes (BUDGET_EXCEEDED, AI_INJECTION_DETECTED, …) have
 * their own message in the catalogue (`ai.error.<CODE>`); anything else reads as the app's
 * other errors do (network, server error, forbidden, the server's message).
 */
export function aiErrorMessage(t: ReturnType<typeof useT>, err: unknown): string {
  if (err instanceof ApiError) {
    const id = `ai.error.${err.code}`;
    if (id in en) return t(id as MessageId);
  }
  return errorMessage(t, err);
}
