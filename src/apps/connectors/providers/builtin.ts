import { createLocalProvider } from './local/index.js';
import { providers } from './registry.js';
import { createS3Provider } from './s3/index.js';
import { createSmtpProvider } from './smtp/index.js';
import { createWebhookProvider } from './webhook/index.js';

/** Adds the built-in providers to the process registry (idempotent). */
export function registerBuiltinProviders(): void {
  for (const p of [createLocalProvider(), createS3Provider(), createSmtpProvider(), createWebhookProvider()]) {
    if (!providers.isRegistered(p.category, p.provider_type)) providers.register(p);
  }
}
