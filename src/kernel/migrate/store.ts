import fs from 'node:fs';
import path from 'node:path';
import { BadRequest } from '../errors.js';
import type { DbProvider } from '../generate/prisma-schema.js';
import type { ProjectLayout } from '../modules/loader.js';
import { diffDatamodels } from './schema-engine.js';
import { sha256Hex, type StoredMigration } from './runner.js';

/**
 * Stored migrations: `prisma/migrations/<provider>/<timestamp>_<app>_<slug>/` holding
 * `migration.sql` and `schema.prisma`, the full datamodel after it. The next migration is the
 * diff of the last snapshot against the current generated schema, so nothing needs a database.
 */
export const migrationsDir = (layout: ProjectLayout, provider: DbProvider): string =>
  path.join(layout.root, 'prisma', 'migrations', provider);

export function readStoredMigrations(layout: ProjectLayout, provider: DbProvider): StoredMigration[] {
  const dir = migrationsDir(layout, provider);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir)
    .filter((name) => fs.existsSync(path.join(dir, name, 'migration.sql')))
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: sha256Hex(sql) };
    });
}

function lastSnapshot(layout: ProjectLayout, provider: DbProvider): string | null {
  const names = readStoredMigrations(layout, provider).map((m) => m.name);
  const last = names.at(-1);
  if (!last) return null;
  return fs.readFileSync(path.join(migrationsDir(layout, provider), last, 'schema.prisma'), 'utf8');
}

const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '').slice(0, 60);

function timestamp(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export interface GeneratedMigration { provider: DbProvider; name: string; sql: string }

/**
 * Writes one migration per provider whose schema changed since the last recorded snapshot.
 * `schemas` are the current generated schema texts; returns what was written ([] = up to date).
 */
export async function generateMigration(
  layout: ProjectLayout,
  schemas: Record<DbProvider, string>,
  opts: { description: string; app: string; now?: Date },
): Promise<GeneratedMigration[]> {
  const label = slug(opts.description);
  if (!label) throw new BadRequest('a migration needs a description (-m "…")');
  const written: GeneratedMigration[] = [];
  for (const provider of Object.keys(schemas) as DbProvider[]) {
    const from = lastSnapshot(layout, provider);
    const sql = await diffDatamodels(provider, from, schemas[provider]);
    if (!sql.trim()) continue;
    const existing = readStoredMigrations(layout, provider).map((m) => m.name);
    let stamp = timestamp(opts.now ?? new Date());
    // names must sort after every existing one even if two are generated within a second
    // (jump past the latest one: stepping by 1 from a clock far behind it would loop for ages)
    const latest = existing.map((n) => n.slice(0, 14)).sort().at(-1);
    if (latest !== undefined && latest >= stamp) stamp = String(Number(latest) + 1);
    const name = `${stamp}_${slug(opts.app)}_${label}`;
    const dir = path.join(migrationsDir(layout, provider), name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'migration.sql'), `-- ${opts.description} (app ${opts.app})\n${sql.trimEnd()}\n`);
    fs.writeFileSync(path.join(dir, 'schema.prisma'), schemas[provider]);
    written.push({ provider, name, sql });
  }
  return written;
}
