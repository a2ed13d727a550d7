import { defineSettings } from '../../kernel/settings.js';

/** The publicly known development key (once the default): refused unless ALLOW_PUBLIC_DEV_KEYS. */
export const PLACEHOLDER_CONNECTOR_KEY = 'fw-insecure-connector-secret-key-change-me';

export const connectorSettings = defineSettings('connectors', {
  CONNECTOR_SECRET_KEY: { kind: 'string', default: '', generated: true, doc: 'Key material for encrypting connector secrets at rest (AES-256-GCM; the key is the SHA-256 of this text), at least 32 bytes. Unset = a random key generated once into `<DATA_DIR>/secrets.json`. The public placeholder stops the boot (unless ALLOW_PUBLIC_DEV_KEYS). Changing it makes stored secrets undecryptable.' },
  CONNECTOR_OAUTH_STATE_TTL_SECONDS: { kind: 'int', default: '600', doc: 'Lifetime of the single-use OAuth `state` nonce issued by ir.connector.oauth_start.' },
  CONNECTOR_OAUTH_REDIRECT_BASE_URL: { kind: 'string', default: '', doc: 'Public base URL of this server, used to build the OAuth redirect URI (`<base>/api/connectors/oauth/callback/<provider_type>`); empty = a relative path.' },
  CONNECTOR_PRIVATE_NETWORKS: { kind: 'list', default: '', doc: 'With NODE_ENV=production, connectors (webhook URLs, S3 endpoints, SMTP hosts) reach public addresses only; this lists the loopback, private or link-local networks they may reach too, comma-separated: `10.0.0.0/8`, `192.168.1.5` (one address), `fd00::/8`. Checked on the addresses a connection is opened to, after DNS. Outside production every address is allowed. A bad entry stops the boot (CONNECTOR_SETTINGS_INVALID).' },
  CONNECTOR_LOCAL_ROOTS: { kind: 'list', default: '', doc: 'With NODE_ENV=production, the folder of a local storage connector must be STORAGE_LOCAL_ROOT or a folder inside it, or inside one of the folders listed here, comma-separated absolute paths (`/srv/archive,/mnt/nas`). A tenant administrator cannot make the server write, or probe, elsewhere on its disks. Outside production any folder is allowed. A relative entry stops the boot (CONNECTOR_SETTINGS_INVALID).' },
  CONNECTOR_TEST_TIMEOUT_MS: { kind: 'int', default: '15000', doc: 'A provider connection test (or OAuth code exchange) taking longer fails with a timeout.' },
});
