import type { Env } from '../../kernel/env.js';
import { createLocalBackend } from './backends/local/index.js';
import type { StorageBackend } from './backends/types.js';
import { defaultStorageConnector, storageBackendOfConnector } from '../connectors/storage-backend.js';
import { storageSettings } from './settings.js';

export interface UploadTarget {
  backend: StorageBackend;
  connector_id: string | null;
  storage_backend: string;
}

const locals = new Map<string, StorageBackend>();
export function localBackend(env: Env): StorageBackend {
  const root = storageSettings(env.settings).STORAGE_LOCAL_ROOT;
  let b = locals.get(root);
  if (!b) {
    b = createLocalBackend({ root, backend_key: 'local' });
    locals.set(root, b);
  }
  return b;
}

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
