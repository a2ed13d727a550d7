import { accessToken } from './client.ts';
import { ApiError, fromResponse, NETWORK_ERROR } from './errors.ts';
import { fetchWithToken, uploadFile } from './files.ts';
import { organizationHeaders } from './organization.ts';

/**
 * Export and import (the server's /api/export and /api/import routes, docs/api.md): binary
 * transfers, so REST like uploads and downloads, never GraphQL.
 */
export type TransferFormat = 'csv' | 'xlsx';
export interface TransferField { name: string; label: string; source_label: string; type: string; required: boolean; relation: string | null }
export interface ColumnMatch { index: number; header: string; field: string | null }
export interface Inspection { format: TransferFormat; rows: number; columns: ColumnMatch[]; sample: string[][]; fields: TransferField[]; key: string | null }
/** `values`: what the import's own codes' messages embed (docs/api.md#export-and-import), for a translation */
export interface RowError { line: number; code: string; message: string; field?: string; column?: string; values?: Record<string, string | number> }
export interface ImportReport { dry_run: boolean; rows: number; created: number; updated: number; errors: RowError[]; committed: boolean }

export interface ExportRequest {
  format: TransferFormat;
  fields: string[];
  /** the list's GraphQL `where` */
  where?: Record<string, unknown>;
  ids?: string[];
  order?: string;
}

/** How far an export has come: rows written of the total (CSV), or bytes when rows cannot be counted (XLSX, compressed). */
export interface ExportProgress { rows: number | null; total: number; bytes: number }

async function jsonOf<T>(res: Response): Promise<T> {
  if (!res.ok) throw await fromResponse(res);
  return (await res.json()) as T;
}

export async function exportFields(model: string): Promise<TransferField[]> {
  return (await jsonOf<{ fields: TransferField[] }>(await fetchWithToken(`/api/export/${encodeURIComponent(model)}/fields`))).fields;
}

/**
 * Counts the records of a CSV stream as it arrives: line breaks outside quotes (a quote inside
 * a cell is doubled, so parity tells whether a break is inside one). The header is not a record.
 */
function csvCounter() {
  let quoted = false;
  let breaks = 0;
  return {
    add(chunk: Uint8Array) {
      for (const b of chunk) {
        if (b === 0x22) quoted = !quoted;
        else if (b === 0x0a && !quoted) breaks += 1;
      }
      return Math.max(0, breaks - 1);
    },
  };
}

/** Streams an export, reporting progress, and hands the browser the file. */
export async function exportRecords(model: string, req: ExportRequest, onProgress: (p: ExportProgress) => void, signal?: AbortSignal): Promise<void> {
  const token = await accessToken();
  let res: Response;
  try {
    res = await fetch(`/api/export/${encodeURIComponent(model)}`, {
      method: 'POST', signal,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...organizationHeaders() },
      body: JSON.stringify(req),
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError(NETWORK_ERROR, String(err), 0);
  }
  if (!res.ok || !res.body) throw await fromResponse(res);
  const total = Number(res.headers.get('x-export-rows') ?? 0);
  const counter = req.format === 'csv' ? csvCounter() : null;
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let bytes = 0;
  const reader = res.body.getReader();
  onProgress({ rows: counter ? 0 : null, total, bytes });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    bytes += value.length;
    onProgress({ rows: counter ? counter.add(value) : null, total, bytes });
  }
  const name = /filename\*=UTF-8''([^;]+)/i.exec(res.headers.get('content-disposition') ?? '')?.[1];
  const url = URL.createObjectURL(new Blob(parts, { type: res.headers.get('content-type') ?? 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name ? decodeURIComponent(name) : `${model}.${req.format}`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const importPath = (model: string) => `/api/import/${encodeURIComponent(model)}`;

export async function inspectImport(model: string, file: File, onProgress?: (f: number) => void): Promise<Inspection> {
  return uploadFile<Inspection>(`${importPath(model)}/inspect`, file, {}, onProgress);
}

/** A dry run (`dryRun`) or the real import; a real run that stops answers IMPORT_FAILED with the report in its details. */
export async function runImport(model: string, file: File, mapping: Array<string | null>, key: string | null, dryRun: boolean, onProgress?: (f: number) => void): Promise<ImportReport> {
  return uploadFile<ImportReport>(importPath(model), file, { mapping: JSON.stringify(mapping), key: key ?? undefined, dry_run: String(dryRun) }, onProgress);
}
