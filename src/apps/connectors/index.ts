import { defineApp } from '../../kernel/app.js';
import '../../server/types.js';
import { commands } from './commands.js';
import { hooks } from './hooks.js';
import manifest from './manifest.js';
import { registerBuiltinProviders } from './providers/builtin.js';
import { connectorRoutes } from './routes.js';
import { connectorFolders } from './services/folders.js';
import { connectorPolicy } from './services/network.js';
import { checkSecretKey } from './services/secrets.js';

export { ConnectionFailedError, ConnectorConfigError, ConnectorError, ConnectorNotFoundError, ConnectorNotSupportedError } from './errors.js';
export { providers, ProviderRegistry } from './providers/registry.js';
export type * from './providers/types.js';
export { storageBackendOfConnector } from './storage-backend.js';

registerBuiltinProviders();

export const app = defineApp({
  manifest,
  commands,
  hooks,
  routes: connectorRoutes,
  boot(kernel) {
    // a bad or public secret key stops the boot, not the first connector read
    checkSecretKey(kernel.settings);
    // and so does a bad CONNECTOR_PRIVATE_NETWORKS or CONNECTOR_LOCAL_ROOTS entry
    connectorPolicy(kernel.settings);
    connectorFolders(kernel.settings);
  },
});
