import type { Settings } from '../../../kernel/settings.js';
import type { StorageBackend } from '../../storage/backends/types.js';
import type { FolderPolicy } from '../services/folders.js';
import type { OutboundPolicy } from '../services/network.js';

/**
 * Connector categories. The `ir.connector.category` enum is built from this list
 * (schema/connectors/ir.connector.ts), so a new category is added here.
 */
export const CONNECTOR_CATEGORIES = ['storage', 'email', 'messaging'] as const;
export type ConnectorCategory = (typeof CONNECTOR_CATEGORIES)[number];

/** One entry of a provider's config schema: pre-populates params; `secret` ones are encrypted at rest. */
export interface ConfigSchemaEntry {
  key: string;
  label: string;
  required: boolean;
  secret: boolean;
}

/**
 * The spec's connection test result. `message` is English (API callers, logs, the connector's
 * stored `status_message`); `message_id` and `message_values`, when the text is one of the app's
 * own, let a client say it in the reader's language (the connectors app's web messages carry
 * each id; docs/decisions.md, "Command result messages").
 */
export interface ConnectionTestResult {
  success: boolean;
  message: string;
  message_id?: string;
  message_values?: Record<string, string | number>;
  details?: Record<string, unknown>;
}

/** The assembled config: params un-flattened into nested objects (leaf values are text). */
export type ConnectorConfig = Record<string, unknown>;

/** What a provider may need besides its config when it is built. */
export interface ProviderContext {
  settings: Settings;
  tenant: string;
  /** record_uuid of the ir.connector being built, when there is one. */
  connector_id?: string;
  /**
   * Where the deployment lets connectors connect (services/network.ts, CONNECTOR_PRIVATE_NETWORKS).
   * A provider opens every outbound connection through it: `network.fetch` for HTTP (a webhook,
   * an OAuth token exchange), `network.lookup` or `network.resolve` for a socket of its own (SMTP),
   * so a tenant administrator's URL cannot reach the server's loopback or private network.
   */
  network: OutboundPolicy;
  /** Where a provider may keep files on the server's disks (services/folders.ts, CONNECTOR_LOCAL_ROOTS): `folders.check(path)` before using one. */
  folders: FolderPolicy;
}

/** A provider built from one connector's config. */
export interface ConnectorInstance {
  test_connection(): Promise<ConnectionTestResult>;
  /** Required for providers of category `storage`. */
  as_storage_backend?(): StorageBackend;
  /** Releases sockets and clients (optional). */
  close?(): void | Promise<void>;
}

export interface StorageConnectorInstance extends ConnectorInstance {
  as_storage_backend(): StorageBackend;
}

/**
 * The spec's connector provider contract. Providers live in a registry keyed by
 * (category, provider_type) (see ./registry.ts).
 */
export interface ConnectorProvider<I extends ConnectorInstance = ConnectorInstance> {
  readonly category: ConnectorCategory;
  /** Unique within the category. */
  readonly provider_type: string;
  readonly display_name: string;
  readonly config_schema?: readonly ConfigSchemaEntry[];
  /** Builds the provider from the assembled config; throws ConnectorConfigError on missing or invalid config. */
  from_config(config: ConnectorConfig, ctx: ProviderContext): I;
  /** OAuth code exchange; returns flat key/value pairs stored as params (default: none). */
  exchange_oauth_code?(code: string, config: ConnectorConfig, ctx: ProviderContext & { redirect_uri: string }): Promise<Record<string, string>>;
  /** Where ir.connector.oauth_start sends the browser (optional). */
  oauth_authorize_url?(config: ConnectorConfig, params: { state: string; redirect_uri: string }): string;
  /** Unwraps a provider-specific import wrapper (default: identity). */
  normalize_import_json?(json: Record<string, unknown>): Record<string, unknown>;
}

export type StorageConnectorProvider = ConnectorProvider<StorageConnectorInstance> & {
  readonly category: 'storage';
  /** The spec's `storage_backend` value recorded on documents this provider stores. */
  readonly storage_backend: 'local' | 'cloud_drive' | 'object_store_a' | 'object_store_b' | 'object_store_c';
};
