import { StorageError } from '../../../storage/backends/errors.js';
import { createS3Backend, type S3BackendOptions } from '../../../storage/backends/s3/index.js';
import type { StorageConnectorProvider } from '../types.js';
import { configBool, configText, configUrl, failure, requireConfig } from '../values.js';

/**
 * S3 and S3-compatible object stores. The connection test is a HeadBucket with the configured
 * credentials. Imports accept the bare keys or a `{ "s3": { … } }` wrapper.
 */
export function createS3Provider(): StorageConnectorProvider {
  const provider: StorageConnectorProvider = {
    category: 'storage',
    provider_type: 's3',
    display_name: 'S3-compatible object storage',
    storage_backend: 'object_store_a',
    config_schema: [
      { key: 'bucket', label: 'Bucket', required: true, secret: false },
      { key: 'region', label: 'Region', required: false, secret: false },
      { key: 'endpoint', label: 'Endpoint URL (S3-compatible servers)', required: false, secret: false },
      { key: 'access_key_id', label: 'Access key id', required: true, secret: false },
      { key: 'secret_access_key', label: 'Secret access key', required: true, secret: true },
      { key: 'force_path_style', label: 'Path-style URLs', required: false, secret: false },
      { key: 'prefix', label: 'Key prefix', required: false, secret: false },
    ],
    normalize_import_json(json) {
      const inner = json.s3;
      return inner && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : json;
    },
    from_config(config, ctx) {
      requireConfig(provider, config);
      const endpoint = configUrl(config, 'endpoint');
      const opts: S3BackendOptions = {
        backend_key: ctx.connector_id ? `s3:${ctx.connector_id}` : 's3',
        bucket: configText(config, 'bucket')!,
        region: configText(config, 'region'),
        endpoint,
        access_key_id: configText(config, 'access_key_id')!,
        secret_access_key: configText(config, 'secret_access_key')!,
        force_path_style: configBool(config, 'force_path_style', Boolean(endpoint)),
        prefix: configText(config, 'prefix'),
        network: ctx.network,
      };
      return {
        async test_connection() {
          const backend = createS3Backend(opts);
          try {
            await backend.checkBucket();
            return { success: true, message: `bucket "${opts.bucket}" is reachable`, message_id: 'connectors.test.s3_ok', message_values: { bucket: opts.bucket }, details: { bucket: opts.bucket, endpoint: endpoint ?? null, region: opts.region ?? null } };
          } catch (err) {
            if (err instanceof StorageError) return { success: false, message: err.message, details: { code: err.code, bucket: opts.bucket } };
            return failure(err);
          } finally {
            backend.destroy();
          }
        },
        as_storage_backend: () => createS3Backend(opts),
      };
    },
  };
  return provider;
}
