import crypto from 'node:crypto';
import { BootError } from '../../../kernel/errors.js';
import { refusePublicKey } from '../../../kernel/instance-secrets.js';
import type { Settings } from '../../../kernel/settings.js';
import { ConnectorConfigError } from '../errors.js';
import { connectorSettings, PLACEHOLDER_CONNECTOR_KEY } from '../settings.js';

/** What reads show instead of a secret value. */
export const MASK = '********';

const PREFIX = 'fwenc:v1:';
const AAD = Buffer.from('fw.connector.secret.v1');

const keys = new WeakMap<Settings, Buffer>();

/** The AES-256 key: SHA-256 of CONNECTOR_SECRET_KEY (any length ≥ 32 of text becomes 32 bytes). */
function keyOf(settings: Settings): Buffer {
  let k = keys.get(settings);
  if (!k) {
    k = crypto.createHash('sha256').update(connectorSettings(settings).CONNECTOR_SECRET_KEY, 'utf8').digest();
    keys.set(settings, k);
  }
  return k;
}

/** Boot-time check, like auth's JWT key: short keys never, the public placeholder only with ALLOW_PUBLIC_DEV_KEYS. */
export function checkSecretKey(settings: Settings): void {
  const raw = connectorSettings(settings).CONNECTOR_SECRET_KEY;
  refusePublicKey(settings, 'CONNECTOR_SECRET_KEY', raw, PLACEHOLDER_CONNECTOR_KEY, 'INSECURE_CONNECTOR_KEY');
  if (Buffer.byteLength(raw) < 32) throw new BootError('CONNECTOR_SECRET_KEY must be at least 32 bytes', undefined, 'INSECURE_CONNECTOR_KEY');
}

export const isCiphertext = (v: unknown): v is string => typeof v === 'string' && v.startsWith(PREFIX);

/** `fwenc:v1:<iv>:<tag>:<ciphertext>` (base64url), AES-256-GCM with a random 96-bit IV. */
export function encryptSecret(settings: Settings, plain: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', keyOf(settings), iv);
  cipher.setAAD(AAD);
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${PREFIX}${iv.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${ct.toString('base64url')}`;
}

export function decryptSecret(settings: Settings, token: string): string {
  const parts = isCiphertext(token) ? token.slice(PREFIX.length).split(':') : [];
  if (parts.length !== 3) throw new ConnectorConfigError('a stored connector secret is malformed');
  try {
    const [iv, tag, ct] = parts.map((p) => Buffer.from(p, 'base64url'));
    const decipher = crypto.createDecipheriv('aes-256-gcm', keyOf(settings), iv);
    decipher.setAAD(AAD);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
  } catch {
    throw new ConnectorConfigError('a stored connector secret cannot be decrypted (was CONNECTOR_SECRET_KEY changed?)');
  }
}
