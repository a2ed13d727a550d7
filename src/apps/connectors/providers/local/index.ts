import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createLocalBackend } from '../../../storage/backends/local/index.js';
import { storageSettings } from '../../../storage/settings.js';
import type { StorageConnectorProvider } from '../types.js';
import { configText, failure } from '../values.js';

/**
 * The local filesystem as a storage connector: `root` (optional) defaults to the storage app's
 * STORAGE_LOCAL_ROOT, i.e. `<DATA_DIR>/storage`; in production another folder must lie inside it
 * or inside one of CONNECTOR_LOCAL_ROOTS (services/folders.ts).
 */
export function createLocalProvider(): StorageConnectorProvider {
  const provider: StorageConnectorProvider = {
    category: 'storage',
    provider_type: 'local',
    display_name: 'Local filesystem',
    storage_backend: 'local',
    config_schema: [{ key: 'root', label: 'Root folder (empty = STORAGE_LOCAL_ROOT)', required: false, secret: false }],
    from_config(config, ctx) {
      const configured = configText(config, 'root');
      // a folder outside what the operator allows is refused before anything touches the disk
      const root = configured ? ctx.folders.check(configured) : storageSettings(ctx.settings).STORAGE_LOCAL_ROOT;
      const backend_key = ctx.connector_id ? `local:${ctx.connector_id}` : 'local';
      return {
        async test_connection() {
          // the root is created on first upload anyway; the test proves it can be written
          const probe = path.join(root, `.fw-probe-${crypto.randomBytes(6).toString('hex')}`);
          try {
            await fsp.mkdir(root, { recursive: true });
            await fsp.writeFile(probe, 'ok');
            await fsp.unlink(probe);
            return { success: true, message: `folder ${root} is writable`, message_id: 'connectors.test.local_ok', message_values: { root }, details: { root } };
          } catch (err) {
            return failure(err);
          }
        },
        as_storage_backend: () => createLocalBackend({ root, backend_key, temp_grace_seconds: storageSettings(ctx.settings).STORAGE_TEMP_GRACE_SECONDS }),
      };
    },
  };
  return provider;
}
