import fs from 'node:fs';
import path from 'node:path';
import type { DbProvider } from '../generate/prisma-schema.js';
import { sha256Hex, type StoredMigration } from './runner.js';

/**
 * The single shared migration chain of releases before per-app chains
 * (`prisma/legacy-migrations/<provider>/<timestamp>_<app>_<slug>/migration.sql`, each with a
 * snapshot of the whole schema). Frozen: nothing is ever added to it. Only a tenant made by such
 * a release runs what it lacks of it, once, before moving to the per-app chains (upgrade.ts).
 */
export const legacyMigrationsDir = (fwRoot: string, provider: DbProvider): string =>
  path.join(fwRoot, 'prisma', 'legacy-migrations', provider);

export function readLegacyChain(fwRoot: string, provider: DbProvider): StoredMigration[] {
  const dir = legacyMigrationsDir(fwRoot, provider);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir)
    .filter((name) => fs.existsSync(path.join(dir, name, 'migration.sql')))
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: sha256Hex(sql) };
    });
}
