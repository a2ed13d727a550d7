import { ValidationError } from '../../../kernel/errors.js';

/** Where a refused construct sits in the imported script (1-based line and column) and its source text. */
export interface ImportErrorDetails {
  line: number;
  column: number;
  text: string;
  /** The `checkStep` problems when the construct parsed but made an invalid step. */
  errors?: unknown;
  [key: string]: unknown;
}

/**
 * A script `fw e2e import` will not turn into steps: a construct that is not a recorded browser
 * action, a syntax error, or a step `checkStep` rejects. A ValidationError (422) with code
 * QA_IMPORT_UNSUPPORTED; the message starts with `line N:` and `details` say where.
 */
export class ImportUnsupported extends ValidationError {
  declare readonly details: ImportErrorDetails;
  constructor(message: string, details: ImportErrorDetails) {
    super(message, details, 'QA_IMPORT_UNSUPPORTED');
  }
}
