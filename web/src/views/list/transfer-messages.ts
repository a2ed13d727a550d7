import { chunkMessages } from '../../i18n/chunk-messages.ts';

/**
 * The export and import dialogs' messages, kept out of the main catalogue (web/src/i18n/en.ts):
 * that one is in the initial JavaScript, these load with the dialogs' chunk. A translation
 * catalogue may still carry the same ids (it wins); these are the English defaults.
 */
export const transferMessages = {
  'export.title': 'Export {model}',
  'export.format': 'Format',
  'export.xlsx': 'Excel (XLSX)',
  'export.records': 'Records',
  'export.selected': '{count, plural, one {The selected record} other {The # selected records}}',
  'export.all': '{count, plural, one {The matching record} other {All {count, number} matching records}}',
  'export.columns': 'Columns',
  'export.visible': '{count, plural, one {The visible column} other {The # visible columns}}',
  'export.choose': 'Choose columns',
  'export.run': 'Export',
  'export.progress_label': 'Export progress',
  'export.progress_rows': '{rows, number} of {total, number} records',
  'export.progress_bytes': '{kb, number} kB received',
  'export.done': '{count, plural, one {Exported # record.} other {Exported {count, number} records.}}',
  'import.title': 'Import {model}',
  'import.choose': 'Choose a CSV or Excel file',
  'import.other_file': 'Choose another file',
  'import.file': '{name}: {rows, plural, one {# row} other {{rows, number} rows}}',
  'import.hint': 'The first row names the columns. Each column is matched to a field by its name or label; check the matches, test, then import.',
  'import.mapping': 'Columns of the file and the fields they fill',
  'import.column': 'Column',
  'import.sample': 'First row',
  'import.field': 'Field',
  'import.field_for': 'Field for column {column}',
  'import.untitled': 'Column {n}',
  'import.skip': 'Do not import',
  'import.key': 'Update existing records whose',
  'import.key_none': 'None: every row is a new record (unless it has an ID)',
  'import.missing': 'Required fields no column fills: {fields}.',
  'import.uploading': 'Sending the file',
  'import.test': 'Test',
  'import.run': 'Import',
  'import.dry_summary': 'Test: {created, plural, one {# record would be created} other {# records would be created}}, {updated, plural, one {# updated} other {# updated}}; {errors, plural, =0 {no problem found.} one {# problem to fix first:} other {# problems to fix first:}}',
  'import.failed_summary': 'The import stopped: {written, plural, one {# record was written} other {# records were written}} before it; {errors, plural, one {# problem:} other {# problems:}}',
  'import.errors': 'Problems, by line of the file',
  'import.line': 'Line',
  'import.problem': 'Problem',
  'import.done': 'Imported: {created, plural, one {# record created} other {# records created}}, {updated, plural, one {# updated} other {# updated}}.',
  // a row error by its code, with the server's `values` (docs/api.md#export-and-import); web/src/app/errors.ts rowErrorText
  'import.error.IMPORT_INVALID_VALUE': '“{value}” is not {expected, select, integer {a whole number} float {a number} boolean {yes or no (true, false, 1, 0, yes, no)} datetime {a date (write 2026-03-31 or 2026-03-31T14:00:00Z)} json {JSON} other {a value this field takes}}.',
  'import.error.IMPORT_REFERENCE_NOT_FOUND': 'No record is named “{value}”.',
  'import.error.IMPORT_REFERENCE_AMBIGUOUS': '{count, number} records are named “{value}”: give the id instead.',
  'import.error.IMPORT_DUPLICATE_KEY': '“{value}” is also on line {first_line}.',
  'import.error.IMPORT_KEY_AMBIGUOUS': '{count, number} records have “{value}”: it cannot tell which one to update.',
} as const;

export type TransferMessageId = keyof typeof transferMessages;

/** `useT` for these ids: the catalogue's text when it has one, else the English default here. */
export const useTransferT = chunkMessages(transferMessages);
