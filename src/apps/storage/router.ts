import type { Env } from '../../kernel/env.js';
import type { Settings } from '../../kernel/settings.js';
import { createLocalBackend, type LocalBackend } from './backends/local/index.js';
import { createS3Backend, type S3Backend } from './backends/s3/index.js';
import { StorageError } from './backends/errors.js';
import type { StorageBackend } from './backends/types.js';
import { defaultStorageConnector, storageBackendOfConnector } from '../connectors/storage-backend.js';
import { storageSettings } from './settings.js';

export interface UploadTarget {
  backend: StorageBackend;
  connector_id: string | null;
  storage_backend: string;
}

const locals = new Map<string, LocalBackend>();
/** The local backend of STORAGE_LOCAL_ROOT, one per root (and temp-file grace) in the process. */
export function localBackendOf(settings: Settings): LocalBackend {
  const { STORAGE_LOCAL_ROOT: root, STORAGE_TEMP_GRACE_SECONDS: grace } = storageSettings(settings);
  const id = `${root}\0${grace}`;
  let b = locals.get(id);
  if (!b) {
    b = createLocalBackend({ root, backend_key: 'local', temp_grace_seconds: grace });
    locals.set(id, b);
  }
  return b;
}
export const localBackend = (env: Env): StorageBackend => localBackendOf(env.settings);

/** What documents written to the `s3` default backend record as their `storage_backend` (as the S3 connector's do). */
export const SETTINGS_S3_BACKEND = 'object_store_a';

const s3s = new Map<string, S3Backend>();
/** The `s3` default backend of the STORAGE_S3_* settings, one client per bucket and endpoint in the process. */
function settingsS3Backend(s: ReturnType<typeof storageSettings>): S3Backend {
  if (!s.STORAGE_S3_BUCKET || !s.STORAGE_S3_ACCESS_KEY_ID || !s.STORAGE_S3_SECRET_ACCESS_KEY) {
    // a document written while the setting was on, read after it was turned off
    throw new StorageError({ backend_key: 's3:settings', key: '', operation: 'connect' },
      'this content is in the S3 bucket of the STORAGE_S3_* settings, which are not set on this server', 'STORAGE_NOT_CONFIGURED', 503);
  }
  const id = [s.STORAGE_S3_ENDPOINT, s.STORAGE_S3_BUCKET, s.STORAGE_S3_PREFIX, s.STORAGE_S3_ACCESS_KEY_ID].join('\0');
  let b = s3s.get(id);
  if (!b) {
    b = createS3Backend({
      backend_key: 's3:settings',
      bucket: s.STORAGE_S3_BUCKET,
      region: s.STORAGE_S3_REGION || undefined,
      endpoint: s.STORAGE_S3_ENDPOINT || undefined,
      access_key_id: s.STORAGE_S3_ACCESS_KEY_ID,
      secret_access_key: s.STORAGE_S3_SECRET_ACCESS_KEY,
      force_path_style: s.STORAGE_S3_FORCE_PATH_STYLE ? s.STORAGE_S3_FORCE_PATH_STYLE === 'true' : Boolean(s.STORAGE_S3_ENDPOINT),
      prefix: s.STORAGE_S3_PREFIX || undefined,
    });
    s3s.set(id, b);
  }
  return b;
}

/** The backend of uploads without a storage connector: STORAGE_DEFAULT_BACKEND_KIND. */
function settingsTarget(env: Env): UploadTarget {
  const s = storageSettings(env.settings);
  return s.STORAGE_DEFAULT_BACKEND_KIND === 's3'
    ? { backend: settingsS3Backend(s), connector_id: null, storage_backend: SETTINGS_S3_BACKEND }
    : { backend: localBackend(env), connector_id: null, storage_backend: 'local' };
}

/**
 * Routing rule 1: uploads go to the organization's active default storage connector, else to
 * the backend of the settings (STORAGE_DEFAULT_BACKEND_KIND: the local folder, or an S3 bucket
 * every instance shares). Documents remember where they went (connector_id, storage_backend),
 * so changing the default only affects later uploads.
 */
export async function uploadTarget(env: Env, organizationId: string | null): Promise<UploadTarget> {
  const connector = organizationId ? await defaultStorageConnector(env, organizationId) : null;
  if (!connector) return settingsTarget(env);
  return { backend: await storageBackendOfConnector(env, connector.id), connector_id: connector.id, storage_backend: connector.storage_backend };
}

/**
 * Routing rule 2: reads and deletes use the connector that stored the object, else the settings'
 * backend it was written to (`storage_backend`: `local`, or the S3 bucket of the settings).
 */
export async function backendFor(env: Env, connectorId: string | null, storageBackend: string): Promise<StorageBackend> {
  if (connectorId) return storageBackendOfConnector(env, connectorId);
  return storageBackend === SETTINGS_S3_BACKEND ? settingsS3Backend(storageSettings(env.settings)) : localBackend(env);
}
