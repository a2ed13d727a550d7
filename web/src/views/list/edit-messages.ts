import { chunkMessages } from '../../i18n/chunk-messages.ts';

/** An editable list's messages, loaded with the list's chunk (../../i18n/chunk-messages.ts). */
export const editMessages = {
  'list.edit.new_line': 'New line',
  'list.edit.cell': '{label} of {name}',
  'list.edit.conflict': '{name} changed elsewhere since the list was read. Reload to see it (what you typed is lost), or press Escape.',
  'list.edit.open': 'Open {name}',
  'list.edit.open_key': 'Open the form (Shift+Enter on the row)',
  'list.edit.open_column': 'Open the form',
  'list.edit.add': 'Add a line',
} as const;

export const useEditT = chunkMessages(editMessages);
