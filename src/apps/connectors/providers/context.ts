import type { Settings } from '../../../kernel/settings.js';
import { connectorFolders } from '../services/folders.js';
import { connectorPolicy } from '../services/network.js';
import type { ProviderContext } from './types.js';

/** A provider's context in a deployment: its settings, the tenant, and where the deployment lets connectors connect and keep files. */
export function providerContextOf(settings: Settings, tenant: string, connector_id?: string): ProviderContext {
  return { settings, tenant, ...(connector_id ? { connector_id } : {}), network: connectorPolicy(settings), folders: connectorFolders(settings) };
}
