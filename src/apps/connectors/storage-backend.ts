import crypto from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Env } from '../../kernel/env.js';
import type { StorageBackend } from '../storage/backends/types.js';
import { providerContext } from './commands.js';
import { ConnectorNotSupportedError } from './errors.js';
import { providers } from './providers/registry.js';
import type { StorageConnectorProvider } from './providers/types.js';
import { assembleConfig, connectorRow } from './services/config.js';

/**
 * Backends are kept per (tenant, connector, config): building an S3 client per request would
 * cost a TLS handshake each time. A changed config hashes differently, so edits apply at once.
 */
const cache = new LRUCache<string, StorageBackend>({ max: 128 });

/**
 * The storage backend of a storage connector, for the storage app's routing (server use: runs
 * as the system principal, with the decrypted config). Not gated on `is_enabled`: documents
 * written through a connector stay readable after it is deactivated.
 */
export async function storageBackendOfConnector(env: Env, connectorId: string): Promise<StorageBackend> {
  const sys = env.sudo();
  const row = await connectorRow(sys, connectorId);
  if (row.category !== 'storage') {
    throw new ConnectorNotSupportedError(`connector ${connectorId} is a ${String(row.category)} connector, not a storage connector`, { id: connectorId });
  }
  const provider = providers.get('storage', String(row.provider_type));
  const config = await assembleConfig(sys, row, { reveal: true });
  const key = `${env.tenant}:${String(row.record_uuid)}:${crypto.createHash('sha256').update(JSON.stringify([provider.provider_type, config])).digest('hex')}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const instance = provider.from_config(config, providerContext(sys, row));
  if (typeof instance.as_storage_backend !== 'function') {
    throw new ConnectorNotSupportedError(`${provider.display_name} does not provide a storage backend`, { provider_type: provider.provider_type });
  }
  const backend = instance.as_storage_backend();
  cache.set(key, backend);
  return backend;
}

/**
 * Routing rule 1's lookup: the organization's enabled default storage connector and the spec's
 * `storage_backend` value its provider records on documents.
 */
export async function defaultStorageConnector(env: Env, organizationId: string): Promise<{ id: string; storage_backend: string } | null> {
  const r = await env.sudo().dispatch<{ items: Array<Record<string, unknown>> }>('fw.search', {
    model: 'ir.connector',
    domain: [['category', '=', 'storage'], ['organization_id', '=', organizationId], ['is_default', '=', true], ['is_enabled', '=', true]],
    limit: 1,
    fields: ['provider_type'],
  });
  const c = r.items[0];
  if (!c) return null;
  const provider = providers.get('storage', String(c.provider_type)) as Partial<StorageConnectorProvider>;
  return { id: c.id as string, storage_backend: provider.storage_backend ?? 'object_store_b' };
}
