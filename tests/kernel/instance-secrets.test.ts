/**
 * A fresh data folder signs and encrypts with keys of its own: JWT_SECRET_KEY and
 * CONNECTOR_SECRET_KEY, when the environment leaves them unset, are generated once into
 * `<DATA_DIR>/secrets.json` (mode 0600, location printed) and read back on later boots; a key set
 * in the environment wins; a damaged file stops the boot instead of being replaced.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { authServices } from '../../src/apps/auth/index.ts';
import { connectorSettings } from '../../src/apps/connectors/settings.ts';
import { authSettings } from '../../src/apps/auth/settings.ts';
import { Kernel } from '../../src/kernel/kernel.ts';
import { loadSettings } from '../../src/kernel/settings.ts';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-secrets-'));
  dirs.push(d);
  return d;
};

/** A boot as `fw serve` does it with nothing set but the data folder. */
const boot = (dataDir: string, env: Record<string, string> = {}) => Kernel.boot({
  settings: loadSettings({ DATA_DIR: dataDir, ACTIVE_MODULES: 'base,auth,connectors', LOG_LEVEL: 'silent', ...env }),
  worker: false,
  log: () => {},
});

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `instanceSecret(dir, name)` in a process of its own; resolves with the key it returned. */
const keyInChild = (dir: string, name: string): Promise<string> => new Promise((resolve, reject) => {
  const code = `import('./src/kernel/instance-secrets.ts').then((m) => process.stdout.write(m.instanceSecret(${JSON.stringify(dir)}, ${JSON.stringify(name)})))`;
  execFile(process.execPath, ['--import', 'tsx', '-e', code], { cwd: ROOT }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
});

describe('generated keys', () => {
  it('processes starting together on a fresh data folder all get the key that is in the file, and leave no temp file', async () => {
    const dir = tempDir();
    const keys = await Promise.all([1, 2, 3, 4].map(() => keyInChild(dir, 'JWT_SECRET_KEY')));
    const stored = (JSON.parse(fs.readFileSync(path.join(dir, 'secrets.json'), 'utf8')) as Record<string, string>).JWT_SECRET_KEY;
    expect(new Set(keys)).toEqual(new Set([stored]));
    expect(fs.readdirSync(dir)).toEqual(['secrets.json']);
  });

  it('with no key in the environment, both keys are generated once into DATA_DIR/secrets.json (mode 0600), the location printed, and reused by the next boot', async () => {
    const dir = tempDir();
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    const first = await boot(dir);
    const file = path.join(dir, 'secrets.json');
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
    expect(Object.keys(stored).sort()).toEqual(['CONNECTOR_SECRET_KEY', 'JWT_SECRET_KEY']);
    for (const v of Object.values(stored)) expect(Buffer.byteLength(v)).toBeGreaterThanOrEqual(32);
    expect(stored.JWT_SECRET_KEY).not.toBe(stored.CONNECTOR_SECRET_KEY);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(authSettings(first.settings).JWT_SECRET_KEY).toBe(stored.JWT_SECRET_KEY);
    expect(connectorSettings(first.settings).CONNECTOR_SECRET_KEY).toBe(stored.CONNECTOR_SECRET_KEY);
    const lines = printed.mock.calls.map((c) => String(c[0])).filter((l) => l.includes(file));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('JWT_SECRET_KEY');
    const token = await (await authServices(first)).sessions.jwt.encode({ sub: 'u', tenant_id: 'default', role: 'admin', sid: 's' });
    await first.close();

    printed.mockClear();
    const second = await boot(dir);
    try {
      // the same keys: a token of the first boot still verifies, and nothing is generated or printed
      expect((await (await authServices(second)).sessions.jwt.decode(token)).sub).toBe('u');
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(stored);
      expect(printed.mock.calls.filter((c) => String(c[0]).includes(file))).toHaveLength(0);
    } finally {
      await second.close();
    }
  });

  it('a key set in the environment wins over the generated one, and is not written to the file', async () => {
    const dir = tempDir();
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const key = 'an-operator-chosen-key-of-40-characters!';
    const kernel = await boot(dir, { JWT_SECRET_KEY: key });
    try {
      expect(authSettings(kernel.settings).JWT_SECRET_KEY).toBe(key);
      const stored = JSON.parse(fs.readFileSync(path.join(dir, 'secrets.json'), 'utf8')) as Record<string, string>;
      expect(Object.keys(stored)).toEqual(['CONNECTOR_SECRET_KEY']);
    } finally {
      await kernel.close();
    }
  });

  it('a secrets.json that is not a JSON object of strings stops the boot with SECRETS_FILE_INVALID and is left as it is', async () => {
    const dir = tempDir();
    for (const text of ['not json', '[]', '{"JWT_SECRET_KEY": 42}']) {
      fs.writeFileSync(path.join(dir, 'secrets.json'), text);
      await expect(boot(dir)).rejects.toMatchObject({ code: 'SECRETS_FILE_INVALID' });
      expect(fs.readFileSync(path.join(dir, 'secrets.json'), 'utf8')).toBe(text);
    }
  });
});
