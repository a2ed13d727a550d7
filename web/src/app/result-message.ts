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
  if (typeof id === 'string' && id in intl.messages) {
    const vals = values && typeof values === 'object' && !Array.isArray(values) ? values as Record<string, string | number> : undefined;
    return intl.formatMessage({ id }, vals);
  }
  return typeof message === 'string' && message ? message : null;
}
