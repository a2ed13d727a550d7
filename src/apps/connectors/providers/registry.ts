import { ConnectorNotFoundError } from '../errors.js';
import { CONNECTOR_CATEGORIES, type ConfigSchemaEntry, type ConnectorCategory, type ConnectorProvider } from './types.js';

/** The providers' public description, as GET /api/connectors/types lists it. */
export interface ProviderInfo {
  category: ConnectorCategory;
  provider_type: string;
  display_name: string;
  config_schema: ConfigSchemaEntry[];
  oauth: boolean;
}

const PROVIDER_TYPE_RE = /^[a-z][a-z0-9_.-]{0,63}$/;

/** Providers keyed by (category, provider_type); listing by category and a registered-check. */
export class ProviderRegistry {
  private readonly byKey = new Map<string, ConnectorProvider>();

  private static key(category: string, provider_type: string): string {
    return `${category}\u0000${provider_type}`;
  }

  /** Adds a provider; registering the same pair twice is refused unless `replace`. */
  register(provider: ConnectorProvider, opts: { replace?: boolean } = {}): void {
    if (!(CONNECTOR_CATEGORIES as readonly string[]).includes(provider.category)) {
      throw new TypeError(`connector provider ${provider.provider_type}: category "${provider.category}" is not one of ${CONNECTOR_CATEGORIES.join(', ')} (add it to CONNECTOR_CATEGORIES)`);
    }
    if (!PROVIDER_TYPE_RE.test(provider.provider_type)) {
      throw new TypeError(`connector provider type "${provider.provider_type}" must be lowercase letters, digits, _ . - (at most 64)`);
    }
    if (!provider.display_name) throw new TypeError(`connector provider ${provider.provider_type}: display_name is required`);
    const k = ProviderRegistry.key(provider.category, provider.provider_type);
    if (this.byKey.has(k) && !opts.replace) {
      throw new TypeError(`a ${provider.category} connector provider "${provider.provider_type}" is already registered`);
    }
    this.byKey.set(k, provider);
  }

  unregister(category: string, provider_type: string): boolean {
    return this.byKey.delete(ProviderRegistry.key(category, provider_type));
  }

  isRegistered(category: string, provider_type: string): boolean {
    return this.byKey.has(ProviderRegistry.key(category, provider_type));
  }

  find(category: string, provider_type: string): ConnectorProvider | undefined {
    return this.byKey.get(ProviderRegistry.key(category, provider_type));
  }

  /** The provider, or ConnectorNotFoundError. */
  get(category: string, provider_type: string): ConnectorProvider {
    const p = this.find(category, provider_type);
    if (!p) throw new ConnectorNotFoundError(category, provider_type);
    return p;
  }

  /** Every provider (of one category), sorted by category then provider_type. */
  list(category?: string): ConnectorProvider[] {
    return [...this.byKey.values()]
      .filter((p) => !category || p.category === category)
      .sort((a, b) => a.category.localeCompare(b.category) || a.provider_type.localeCompare(b.provider_type));
  }

  describe(category?: string): ProviderInfo[] {
    return this.list(category).map((p) => ({
      category: p.category,
      provider_type: p.provider_type,
      display_name: p.display_name,
      config_schema: [...(p.config_schema ?? [])],
      oauth: typeof p.exchange_oauth_code === 'function',
    }));
  }
}

/** The process-wide registry; the built-in providers are added when the connectors app loads. */
export const providers = new ProviderRegistry();
