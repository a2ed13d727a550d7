/**
 * `earlier-checksums.json` (src/kernel/migrate/chains.ts): a shipped migration rewritten by fw
 * lists the checksums of its earlier texts per engine, so a tenant that ran one is not refused
 * (the runner's side: runner-sqlite/postgres tests). A malformed list stops the chain's reading.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EARLIER_CHECKSUMS, readChain } from '../../../src/kernel/migrate/chains.ts';
import { tempDir } from '../../helpers/kernel.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('earlier checksums of a rewritten migration', () => {
  const root = tempDir('earlier');
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const folder = (files: Record<string, string>) => {
    const dir = path.join(root, 'prisma', 'migrations', 'shop', '20261201000000_initial');
    fs.mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries({ 'sqlite.sql': 'SELECT 1;\n', 'postgresql.sql': 'SELECT 1;\n', 'models.json': '[]\n', ...files })) fs.writeFileSync(path.join(dir, name), text);
  };

  it("storage's first migration, rewritten without connectors' if_loaded key, lists the text tenants ran before, per engine", () => {
    for (const provider of ['sqlite', 'postgresql'] as const) {
      const [initial] = readChain({ name: 'storage', root: ROOT }, provider);
      expect(initial!.earlier, provider).toHaveLength(1);
      expect(initial!.earlier![0]).not.toBe(initial!.checksum);
    }
  });

  it('each engine reads its own list; a migration without the file has none', () => {
    folder({ [EARLIER_CHECKSUMS]: JSON.stringify({ sqlite: ['a'.repeat(64)] }) });
    expect(readChain({ name: 'shop', root }, 'sqlite')[0]!.earlier).toEqual(['a'.repeat(64)]);
    expect(readChain({ name: 'shop', root }, 'postgresql')[0]!.earlier).toBeUndefined();
  });

  it('a list that is not of sha256 checksums stops reading the chain, naming the file and the engine', () => {
    folder({ [EARLIER_CHECKSUMS]: JSON.stringify({ postgresql: ['not-a-checksum'] }) });
    expect(() => readChain({ name: 'shop', root }, 'postgresql')).toThrow(/earlier-checksums\.json: "postgresql" must be a list of sha256 checksums/);
  });
});
