import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BootError } from './errors.js';
import type { Settings } from './settings.js';

/**
 * Keys generated once per data folder, for settings declared `generated` (JWT_SECRET_KEY,
 * CONNECTOR_SECRET_KEY) that the environment leaves unset: a fresh clone's `npm start` then signs
 * and encrypts with keys nobody else knows, and keeps them across restarts. They live in
 * `<DATA_DIR>/secrets.json` (mode 0600), next to the data they protect; a value set in the
 * environment always wins. Several server processes must share their keys through the
 * environment: each data folder generates its own.
 */
export const SECRETS_FILE = 'secrets.json';

export function secretsFile(dataDir: string): string {
  return path.join(dataDir, SECRETS_FILE);
}

function readSecrets(file: string): Record<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const invalid = () => new BootError(`${file} is not a JSON object of strings; fix or remove it (removing it makes new keys: sessions end, stored connector secrets become unreadable)`, undefined, 'SECRETS_FILE_INVALID');
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid();
  const secrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw invalid();
    secrets[name] = value;
  }
  return secrets;
}

/**
 * The generated value of `name` for this data folder, made (32 random bytes, base64url) and
 * written on first use. The file is replaced atomically (temp file, then rename) and is never
 * readable by group or others; its location is printed once (on stderr), when a key is added to
 * it, the way the seeded admin's generated password is.
 */
export function instanceSecret(dataDir: string, name: string): string {
  const file = secretsFile(dataDir);
  for (;;) {
    const existed = fs.existsSync(file);
    const secrets = readSecrets(file);
    const known = secrets[name];
    if (known) return known;
    secrets[name] = crypto.randomBytes(32).toString('base64url');
    fs.mkdirSync(dataDir, { recursive: true });
    const tmp = `${file}.${crypto.randomBytes(6).toString('hex')}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    if (existed) {
      fs.renameSync(tmp, file);
    } else {
      // the first key of a fresh folder: a hard link creates the file complete or not at all, so
      // of two processes starting together one writes it and the other reads that one's keys
      try {
        fs.linkSync(tmp, file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        continue;
      } finally {
        fs.rmSync(tmp, { force: true });
      }
    }
    // on stderr: stdout may be a protocol (`fw mcp`) or a command's answer (`fw migrate upgrade`)
    console.error(`[fw] generated ${name} into ${file} (mode 0600): keep it with the data; several server processes must share their keys through the environment instead`);
    return secrets[name];
  }
}

/**
 * Refuses a key that is public: the placeholder published in this repository (older releases
 * used it as the default). ALLOW_PUBLIC_DEV_KEYS=true lets a development setup keep it, never with
 * NODE_ENV=production. `code` is the BootError code of the key (INSECURE_JWT_KEY, …).
 */
export function refusePublicKey(settings: Pick<Settings, 'NODE_ENV' | 'ALLOW_PUBLIC_DEV_KEYS'>, name: string, value: string, placeholder: string, code: string): void {
  if (value !== placeholder) return;
  if (settings.ALLOW_PUBLIC_DEV_KEYS && settings.NODE_ENV !== 'production') return;
  const how = settings.NODE_ENV === 'production'
    ? 'set a secret key'
    : `unset it (a key is generated into DATA_DIR/${SECRETS_FILE}) or set a secret one; ALLOW_PUBLIC_DEV_KEYS=true accepts it for development`;
  throw new BootError(`${name} is the public placeholder published with fw: anyone could use it; ${how}`, undefined, code);
}
