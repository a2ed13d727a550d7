import { chunkMessages } from '../../i18n/chunk-messages.ts';

/** The pivot view's messages, loaded with its chunk (../../i18n/chunk-messages.ts). */
export const pivotMessages = {
  'pivot.download': 'Download CSV',
  'pivot.expand': 'Expand {label}',
  'pivot.collapse': 'Collapse {label}',
  'pivot.caption': '{measures} by {rows} and {cols}',
} as const;

export const usePivotT = chunkMessages(pivotMessages);
