import { once, type EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import { CsvError, parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify';
import ExcelJS from 'exceljs';
import { BadRequest, FwError } from '../../kernel/errors.js';
import { checkZipSize } from './zip-guard.js';

/**
 * The two spreadsheet formats of export and import: CSV (csv-parse / csv-stringify) and XLSX
 * (ExcelJS, whose streaming writer keeps only the current row). Everything here is about cells;
 * what a cell means for a field is ./cells.ts.
 */
export type TransferFormat = 'csv' | 'xlsx';
export const FORMATS: readonly TransferFormat[] = ['csv', 'xlsx'];
export const CONTENT_TYPES: Record<TransferFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export type Cell = string | number | boolean | Date | null;

/** One data row of a file, with the line (CSV) or sheet row (XLSX) it starts on, counted from 1. */
export interface TableRow { line: number; cells: Cell[] }
export interface Table { format: TransferFormat; headers: string[]; rows: TableRow[] }

const invalidFile = (message: string, details?: Record<string, unknown>) => new BadRequest(message, details, 'IMPORT_INVALID_FILE');

/** An XLSX file is a ZIP archive (`PK\x03\x04`); anything else is read as CSV text. */
export function detectFormat(buf: Buffer): TransferFormat {
  return buf.length >= 4 && buf[0] === 0x50 && buf[1] === 0x4b && buf[2] === 0x03 && buf[3] === 0x04 ? 'xlsx' : 'csv';
}

/**
 * The header and data rows of an uploaded file. More than `maxRows` data rows is refused (413
 * IMPORT_TOO_MANY_ROWS) rather than half imported; a file that is neither valid UTF-8 CSV nor
 * a readable workbook is 400 IMPORT_INVALID_FILE; one without a header row is 400 IMPORT_EMPTY_FILE.
 * A workbook that unzips to more than `maxUnzipped` bytes is refused before ExcelJS inflates
 * it (413 IMPORT_TOO_LARGE_UNZIPPED, ./zip-guard.ts).
 */
export async function readTable(buf: Buffer, maxRows: number, maxUnzipped = Number.MAX_SAFE_INTEGER): Promise<Table> {
  const format = detectFormat(buf);
  if (format === 'xlsx') await checkZipSize(buf, maxUnzipped);
  const table = format === 'xlsx' ? await readXlsx(buf) : readCsv(buf);
  const headers = table.headers.map((h) => h.trim());
  if (!headers.some(Boolean)) throw new BadRequest('the file has no header row (the first row names the columns)', undefined, 'IMPORT_EMPTY_FILE');
  if (table.rows.length > maxRows) {
    throw new FwError('IMPORT_TOO_MANY_ROWS', 413, `the file has ${table.rows.length} rows; at most ${maxRows} are imported at once (IMPORT_MAX_ROWS)`,
      { rows: table.rows.length, max: maxRows });
  }
  return { format, headers, rows: table.rows };
}

/** The separator of the header line: Excel writes `;` in locales whose decimal mark is a comma. */
function delimiterOf(text: string): string {
  const first = text.slice(0, text.search(/\r?\n|$/));
  const counts = [',', ';', '\t'].map((d) => [d, first.split(d).length] as const);
  return counts.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}

function readCsv(buf: Buffer): { headers: string[]; rows: TableRow[] } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    throw invalidFile('the file is neither an XLSX workbook nor UTF-8 CSV text');
  }
  if (text.includes('\u0000')) throw invalidFile('the file is neither an XLSX workbook nor UTF-8 CSV text (it holds NUL characters)');
  // one kind of line break: csv-parse counts a CRLF inside a quoted cell as two lines, which
  // would put every later row's line number one off
  text = text.replace(/\r\n/g, '\n');
  // the line each record ends on (csv-parse counts lines as it reads); it starts that many lines
  // earlier as its quoted cells hold line breaks
  const ends: number[] = [];
  let records: string[][];
  try {
    records = parse(text, {
      bom: true, delimiter: delimiterOf(text.replace(/^\uFEFF/, '')), relax_column_count: true, skip_empty_lines: true,
      on_record: (record: string[], ctx: { lines: number }) => {
        ends.push(ctx.lines);
        return record;
      },
    });
  } catch (err) {
    if (err instanceof CsvError) throw invalidFile(`the CSV cannot be read: ${err.message}`, { line: err.lines });
    throw err;
  }
  const breaks = (record: string[]) => record.reduce((n, c) => n + (c.match(/\n/g)?.length ?? 0), 0);
  const withLines = records.map((record, i) => ({ record, line: ends[i] - breaks(record) }));
  const [head, ...rest] = withLines;
  return {
    headers: head?.record ?? [],
    rows: rest.filter((r) => r.record.some((c) => c.trim() !== '')).map((r) => ({ line: r.line, cells: r.record })),
  };
}

/** A cell's value as ExcelJS reads it, reduced to a plain value (formulas give their result). */
function xlsxValue(v: ExcelJS.CellValue): Cell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof Date) return v;
  if ('richText' in v) return v.richText.map((p) => p.text).join('');
  if ('result' in v) return xlsxValue((v.result ?? null) as ExcelJS.CellValue);
  if ('text' in v) return typeof v.text === 'string' ? v.text : xlsxValue(v.text as ExcelJS.CellValue);
  if ('error' in v) return null;
  return null;
}

async function readXlsx(buf: Buffer): Promise<{ headers: string[]; rows: TableRow[] }> {
  const wb = new ExcelJS.Workbook();
  try {
    // ExcelJS declares an ArrayBuffer (it reads one through JSZip): the bytes copied into one
    await wb.xlsx.load(new Uint8Array(buf).buffer);
  } catch (err) {
    throw invalidFile(`the XLSX workbook cannot be read: ${(err as Error).message}`);
  }
  const sheet = wb.worksheets[0];
  if (!sheet) return { headers: [], rows: [] };
  const width = sheet.columnCount;
  const cellsOf = (row: ExcelJS.Row): Cell[] => Array.from({ length: width }, (_, i) => xlsxValue(row.getCell(i + 1).value));
  const headers = cellsOf(sheet.getRow(1)).map((c) => (c === null ? '' : String(c)));
  const rows: TableRow[] = [];
  sheet.eachRow((row, n) => {
    if (n === 1) return;
    const cells = cellsOf(row);
    if (cells.some((c) => c !== null && c !== '')) rows.push({ line: n, cells });
  });
  return { headers, rows };
}

/**
 * Resolves when `stream` drains, or when `out` (the response) closes: a client that went away
 * never drains it, and the writer then finds `out.destroyed` and stops.
 */
function drained(stream: EventEmitter, out: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      out.off('close', done);
      resolve();
    };
    stream.once('drain', done);
    out.once('close', done);
  });
}

/** Writes rows to a stream, waiting when the reader is slower than the database. */
export interface SheetWriter {
  row(cells: Cell[]): Promise<void>;
  end(): Promise<void>;
}

/** A header column: its label, and whether its cells are date-times (XLSX formats them as such). */
export interface Column { header: string; datetime?: boolean }

/**
 * A text cell that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, carriage
 * return first: CSV injection) gets a leading apostrophe, which spreadsheets hide; import
 * takes it off again (`unneutralise`), so a file round-trips. XLSX cells are typed, never formulas.
 */
const FORMULA = /^[=+\-@\t\r]/;
export const neutralise = (s: string): string => (FORMULA.test(s) ? `'${s}` : s);
export const unneutralise = (s: string): string => (s.startsWith("'") && FORMULA.test(s.slice(1)) ? s.slice(1) : s);

function csvText(c: Cell): string {
  if (c === null) return '';
  if (c instanceof Date) return c.toISOString();
  if (typeof c === 'string') return neutralise(c);
  return String(c);
}

export async function csvWriter(out: Writable, columns: Column[]): Promise<SheetWriter> {
  // a BOM, so Excel opens the UTF-8 text as UTF-8
  const s = stringify({ bom: true, record_delimiter: '\r\n' });
  s.pipe(out);
  const write = async (cells: string[]) => {
    if (!s.write(cells)) await drained(s, out);
  };
  await write(columns.map((c) => neutralise(c.header)));
  return {
    async row(cells) {
      if (out.destroyed) throw new Error('the client went away');
      await write(cells.map(csvText));
    },
    async end() {
      s.end();
      await once(out, 'finish');
    },
  };
}

export function xlsxWriter(out: Writable, columns: Column[], sheetName: string): SheetWriter {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  // a sheet name may not hold []:*?/\ and is at most 31 characters
  const ws = wb.addWorksheet(sheetName.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31) || 'Sheet1');
  ws.columns = columns.map((c, i) => ({
    header: c.header, key: String(i), width: Math.min(60, Math.max(10, c.header.length + 2)),
    ...(c.datetime ? { style: { numFmt: 'yyyy-mm-dd hh:mm:ss' } } : {}),
  }));
  return {
    async row(cells) {
      if (out.destroyed) throw new Error('the client went away');
      ws.addRow(cells).commit();
      // the zip stream buffers what the client has not read yet: wait for it, page by page
      if (out.writableNeedDrain) await drained(out, out);
    },
    async end() {
      ws.commit();
      await wb.commit();
    },
  };
}
