import type { Kysely } from 'kysely';

/**
 * What a migration's `data.ts` receives (docs/migrations.md): `db` runs in the migration's own
 * transaction, on the tenant's connection, so the data step and the SQL around it commit or roll
 * back together. Tables and columns are the database's (`crm_lead`, `organization`), not the
 * declarations' keys, and are untyped: a data step sees the tables as they are at that point of
 * the chain, which no generated type describes.
 */
export interface DataMigrationContext {
  db: Kysely<Record<string, Record<string, unknown>>>;
  provider: 'sqlite' | 'postgresql';
  /** `<app>/<folder>` of the migration running. */
  migration: string;
}

/** The default export of a migration's `data.ts`. */
export type DataMigration = (ctx: DataMigrationContext) => Promise<void>;
