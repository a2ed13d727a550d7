import path from 'node:path';
import { defineSettings, type Settings } from '../../kernel/settings.js';

const table = defineSettings('storage', {
  STORAGE_LOCAL_ROOT: { kind: 'string', default: '', doc: 'Folder of the local backend; empty = `<DATA_DIR>/storage`. Created on first upload.' },
  STORAGE_MAX_FILE_SIZE_BYTES: { kind: 'int', default: '52428800', doc: 'Largest stored version (50 MiB), whatever the entry point: streamed uploads are cut off and refused with 413 when they pass it.' },
  STORAGE_MAX_UPLOAD_BYTES: { kind: 'int', default: String(25 * 1024 * 1024), doc: 'Largest upload the HTTP layer holds in memory (base64 JSON and GraphQL multipart bodies). Streamed binary uploads are never buffered and only STORAGE_MAX_FILE_SIZE_BYTES applies to them.' },
  STORAGE_DEFAULT_BACKEND_KIND: { kind: 'string', default: 'local', doc: 'Backend used when the organization has no active default storage connector (only `local` is built in).' },
});

export function storageSettings(settings: Settings) {
  const s = table(settings);
  return { ...s, STORAGE_LOCAL_ROOT: s.STORAGE_LOCAL_ROOT ? path.resolve(s.STORAGE_LOCAL_ROOT) : path.join(settings.DATA_DIR, 'storage') };
}
