import { defineModel, f } from '../../src/kernel/declare.js';

/**
 * A tenant's provider account. The key is write-only: `api_key` only ever holds a mask, the
 * encrypted key sits in the private `api_key_secret` (AES-256-GCM with the connectors' secret key).
 */
export default defineModel({
  key: 'ai.provider.config',
  description: 'AI provider configuration',
  record_name: 'provider',
  fields: {
    provider: f.char(64, { required: true, unique: true, description: 'Provider id (provider_a)' }),
    base_url: f.char(500, { description: 'OpenAI-compatible endpoint (…/v1)' }),
    model: f.char(100),
    api_key: f.text({ description: 'API key (write-only; reads show a mask)' }),
    api_key_secret: f.text({ private: true }),
    input_usd_per_mtok: f.float({ description: 'Price of 1M input tokens (USD); empty = the price table' }),
    output_usd_per_mtok: f.float({ description: 'Price of 1M output tokens (USD); empty = the price table' }),
    is_active: f.boolean({ default: true }),
  },
  access: { roles: { admin: 'crud' } },
});
