import { useIntl } from 'react-intl';

type Values = Record<string, string | number | null | undefined>;

/**
 * Messages of a part of the client loaded as its own chunk (a view type, a dialog, a menu), kept
 * out of the main catalogue (./en.ts), which is in the initial JavaScript: they load with the code
 * that shows them. A translation catalogue may carry the same ids (it wins); these are the English
 * defaults. Returns the part's `useT`, typed by its ids.
 */
export function chunkMessages<M extends Record<string, string>>(messages: M): () => (id: keyof M & string, values?: Values) => string {
  return function useChunkT() {
    const intl = useIntl();
    return (id, values) => intl.formatMessage({ id, defaultMessage: messages[id] }, values);
  };
}
