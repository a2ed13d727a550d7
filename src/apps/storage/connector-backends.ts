import type { Env } from '../../kernel/env.js';
import type { StorageBackend } from './backends/types.js';

type Rec = Record<string, unknown>;

/** The organization's active default storage connector, if the connectors app is active and has one. */
export async function defaultStorageConnector(env: Env, organizationId: string): Promise<{ id: string; storage_backend: string } | null> {
  if (!env.registry.models.has('ir.connector')) return null;
  const r = await env.sudo().dispatch<{ items: Rec[] }>('fw.search', {
    model: 'ir.connector',
    domain: [['category', '=', 'storage'], ['organization_id', '=', organizationId], ['is_default', '=', true], ['is_enabled', '=', true]],
    limit: 1,
    fields: ['provider_type'],
  });
  const c = r.items[0];
  return c ? { id: c.id as string, storage_backend: backendKind(c.provider_type as string) } : null;
}

/** The spec's storage_backend values for a provider type. */
export function backendKind(providerType: string): string {
  if (providerType === 'local') return 'local';
  if (providerType === 's3') return 'object_store_a';
  return 'object_store_b';
}

/** The backend of a storage connector, built from its assembled config by its provider. */
export async function connectorBackend(env: Env, connectorId: string): Promise<StorageBackend> {
  const { storageBackendOfConnector } = await import('../connectors/storage-backend.js');
  return storageBackendOfConnector(env, connectorId);
}
