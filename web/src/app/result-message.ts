import type { IntlShape } from 'react-intl';

/** What a command answers that people read: English `message`, and its id and values when it has one. */
export interface ResultMessage { message?: unknown; message_id?: unknown; message_values?: unknown }

/**
 * A command result's text in the reader's language (docs/decisions.md, "Command result
 * messages"): its `message_id` formatted with `message_values` when the catalogue has that id
 * (fw's, or the messages of the app whose extension is loaded), else the server's English
 * `message`; null when the result says nothing.
 */
export function resultMessage(intl: IntlShape, result: ResultMessage | null | undefined): string | null {
  if (!result) return null;
  const { message, message_id: id, message_values: values } = result;
  const vals = values && typeof values === 'object' && !Array.isArray(values) ? values as Record<string, string | number> : undefined;
  return (typeof id === 'string' ? knownMessage(intl, id, vals) : null) ?? (typeof message === 'string' && message ? message : null);
}

/**
 * `id` formatted when the catalogue in use has it, else null: the server's English (or another
 * fallback) stands where the language has no text. Every "translate this id if we can" goes here.
 */
export function knownMessage(intl: IntlShape, id: string, values?: Record<string, string | number>): string | null {
  return id in intl.messages ? intl.formatMessage({ id }, values) : null;
}
