import { chunkMessages } from '../../i18n/chunk-messages.ts';

/** The Columns popover's and header edges' messages, loaded with the list's chunk (../../i18n/chunk-messages.ts). */
export const columnsMessages = {
  'list.column.up': 'Move {label} up',
  'list.column.down': 'Move {label} down',
  'list.column.resize': 'Width of {label}',
  'list.columns.reset': 'Reset columns',
} as const;

export const useColumnsT = chunkMessages(columnsMessages);
