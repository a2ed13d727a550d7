import type { Env } from '../../kernel/env.js';
import type { Settings } from '../../kernel/settings.js';
import { createLocalBackend, type LocalBackend } from './backends/local/index.js';
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

/**
 * Routing rule 1: uploads go to the organization's active default storage connector, else to
 * the local filesystem. Documents remember where they went (connector_id), so changing the
 * default only affects later uploads.
 */
export async function uploadTarget(env: Env, organizationId: string | null): Promise<UploadTarget> {
  const connector = organizationId ? await defaultStorageConnector(env, organizationId) : null;
  if (!connector) return { backend: localBackend(env), connector_id: null, storage_backend: 'local' };
  return { backend: await storageBackendOfConnector(env, connector.id), connector_id: connector.id, storage_backend: connector.storage_backend };
}

/** Routing rule 2: reads and deletes use the connector that stored the object, else local. */
export async function backendFor(env: Env, connectorId: string | null): Promise<StorageBackend> {
  return connectorId ? storageBackendOfConnector(env, connectorId) : localBackend(env);
}
