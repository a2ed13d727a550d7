import path from 'node:path';
import { BootError } from '../../kernel/errors.js';
import { defineSettings, type Settings } from '../../kernel/settings.js';

const table = defineSettings('storage', {
  STORAGE_LOCAL_ROOT: { kind: 'string', default: '', doc: 'Folder of the local backend; empty = `<DATA_DIR>/storage`. Created on first upload.' },
  STORAGE_MAX_FILE_SIZE_BYTES: { kind: 'int', default: '52428800', doc: 'Largest document version (50 MiB). Every upload, new document or new version, must stay within it and within STORAGE_MAX_UPLOAD_BYTES: the smaller of the two applies.' },
  STORAGE_MAX_UPLOAD_BYTES: { kind: 'int', default: String(25 * 1024 * 1024), doc: 'Largest single upload at the HTTP layer (25 MiB): binary (streamed, also without Content-Length) and base64 bodies of every storage upload route. An upload over the smaller of this and STORAGE_MAX_FILE_SIZE_BYTES is refused with 413 PAYLOAD_TOO_LARGE while it streams, and nothing is stored.' },
  STORAGE_TEMP_GRACE_SECONDS: { kind: 'int', default: '3600', doc: 'A local backend temp file (`.<name>.<hex>.fwtmp`, an upload being written) not written to for this long is the leftover of an upload whose process died (kill -9, power loss) and is removed, with the folders it leaves empty: at boot (STORAGE_LOCAL_ROOT, in the background) and, while a local backend writes, at most once an hour under its root. 0 = those not written to since the process started. An upload that stalls for longer than this loses its temp file and fails.' },
  STORAGE_DEFAULT_BACKEND_KIND: { kind: 'string', default: 'local', doc: 'Where uploads go when the organization has no active default storage connector: `local` (STORAGE_LOCAL_ROOT, one machine or a folder every instance shares) or `s3` (the STORAGE_S3_* bucket, for several instances). Documents remember where they were written, so changing it affects later uploads only. Any other value stops the boot.' },
  STORAGE_S3_BUCKET: { kind: 'string', default: '', doc: 'Bucket of the `s3` default backend (required with STORAGE_DEFAULT_BACKEND_KIND=s3).' },
  STORAGE_S3_REGION: { kind: 'string', default: '', doc: 'Region of the `s3` default backend (empty = the SDK default, `us-east-1`).' },
  STORAGE_S3_ENDPOINT: { kind: 'string', default: '', doc: 'Endpoint URL of an S3-compatible server for the `s3` default backend; empty = AWS.' },
  STORAGE_S3_ACCESS_KEY_ID: { kind: 'string', default: '', doc: 'Access key id of the `s3` default backend (required with STORAGE_DEFAULT_BACKEND_KIND=s3).' },
  STORAGE_S3_SECRET_ACCESS_KEY: { kind: 'string', default: '', doc: 'Secret access key of the `s3` default backend (required with STORAGE_DEFAULT_BACKEND_KIND=s3); never logged or returned.' },
  STORAGE_S3_FORCE_PATH_STYLE: { kind: 'string', default: '', doc: 'Path-style URLs (`endpoint/bucket/key`) for the `s3` default backend: `true` or `false`; empty = on when STORAGE_S3_ENDPOINT is set (most S3-compatible servers need them).' },
  STORAGE_S3_PREFIX: { kind: 'string', default: '', doc: 'Key prefix in the bucket of the `s3` default backend (`fw/`), so one bucket can hold other data too; keys already start with the tenant.' },
});

const KINDS = ['local', 's3'] as const;

export function storageSettings(settings: Settings) {
  const s = table(settings);
  if (s.STORAGE_TEMP_GRACE_SECONDS < 0) {
    throw new BootError(`STORAGE_TEMP_GRACE_SECONDS=${s.STORAGE_TEMP_GRACE_SECONDS} must be 0 or more`, undefined, 'STORAGE_SETTINGS_INVALID');
  }
  if (!(KINDS as readonly string[]).includes(s.STORAGE_DEFAULT_BACKEND_KIND)) {
    throw new BootError(`STORAGE_DEFAULT_BACKEND_KIND=${s.STORAGE_DEFAULT_BACKEND_KIND} is not one of ${KINDS.join(', ')}`, undefined, 'STORAGE_SETTINGS_INVALID');
  }
  if (s.STORAGE_DEFAULT_BACKEND_KIND === 's3') {
    const missing = (['STORAGE_S3_BUCKET', 'STORAGE_S3_ACCESS_KEY_ID', 'STORAGE_S3_SECRET_ACCESS_KEY'] as const).filter((k) => !s[k]);
    if (missing.length) throw new BootError(`STORAGE_DEFAULT_BACKEND_KIND=s3 needs ${missing.join(', ')}`, { missing }, 'STORAGE_SETTINGS_INVALID');
    if (!/^(|true|false)$/.test(s.STORAGE_S3_FORCE_PATH_STYLE)) {
      throw new BootError(`STORAGE_S3_FORCE_PATH_STYLE=${s.STORAGE_S3_FORCE_PATH_STYLE} must be true, false or empty`, undefined, 'STORAGE_SETTINGS_INVALID');
    }
    if (s.STORAGE_S3_ENDPOINT && !/^https?:\/\/[^/]/.test(s.STORAGE_S3_ENDPOINT)) {
      throw new BootError(`STORAGE_S3_ENDPOINT=${s.STORAGE_S3_ENDPOINT} is not an http(s) URL`, undefined, 'STORAGE_SETTINGS_INVALID');
    }
  }
  return { ...s, STORAGE_LOCAL_ROOT: s.STORAGE_LOCAL_ROOT ? path.resolve(s.STORAGE_LOCAL_ROOT) : path.join(settings.DATA_DIR, 'storage') };
}

/**
 * The most one upload may carry: the smaller of the HTTP limit of one upload and the size limit
 * of a document version, with the setting that sets it (named in the 413's details).
 */
export function uploadLimit(settings: Settings): { limit: number; setting: 'STORAGE_MAX_UPLOAD_BYTES' | 'STORAGE_MAX_FILE_SIZE_BYTES' } {
  const { STORAGE_MAX_UPLOAD_BYTES: upload, STORAGE_MAX_FILE_SIZE_BYTES: file } = storageSettings(settings);
  return upload <= file ? { limit: upload, setting: 'STORAGE_MAX_UPLOAD_BYTES' } : { limit: file, setting: 'STORAGE_MAX_FILE_SIZE_BYTES' };
}
