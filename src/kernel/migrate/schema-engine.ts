import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DiffParams, SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';

export type DbProvider = 'sqlite' | 'postgresql';

const WASM_ENTRY = '@prisma/schema-engine-wasm/schema_engine_bg';

let enginePromise: Promise<SchemaEngine> | undefined;

/**
 * One engine serves every diff in the process: instantiating the 5 MB wasm is the expensive part,
 * and wasm-bindgen keeps the instance in module state, so it must only be set once.
 */
function getEngine(): Promise<SchemaEngine> {
  enginePromise ??= createEngine().catch((error: unknown) => {
    // A failed start (e.g. missing wasm file) should not poison every later call.
    enginePromise = undefined;
    throw error;
  });
  return enginePromise;
}

async function createEngine(): Promise<SchemaEngine> {
  // Node 20 cannot import the package's default entry (it imports the .wasm as an ES module),
  // so load the JS glue and instantiate the sibling .wasm ourselves.
  const bg = await import('@prisma/schema-engine-wasm/schema_engine_bg');
  const entryFile = createRequire(import.meta.url).resolve(WASM_ENTRY);
  const bytes = await readFile(join(dirname(entryFile), 'schema_engine_bg.wasm'));
  const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': bg });
  bg.__wbg_set_wasm(instance.exports);
  const start = instance.exports.__wbindgen_start;
  if (typeof start === 'function') start();

  // SchemaEngine.new always calls connect() on the factory, and with a PostgreSQL adapter it
  // immediately queries the server version. A datamodel-to-datamodel diff never uses the
  // connection and takes its SQL dialect from each datamodel's datasource, so an in-memory
  // SQLite connection satisfies the constructor for both providers without touching a database.
  // imported here, not at load: the kernel imports this module (through chains.ts) on every boot
  // and every upgrade, which never diff
  const { PrismaBetterSqlite3 } = await import('@prisma/adapter-better-sqlite3');
  const { bindMigrationAwareSqlAdapterFactory } = await import('@prisma/driver-adapter-utils');
  const factory = bindMigrationAwareSqlAdapterFactory(new PrismaBetterSqlite3({ url: ':memory:' }));
  try {
    // The engine only emits INFO tracing lines here; failures reach us as rejected promises.
    return await bg.SchemaEngine.new({ datamodels: undefined }, () => {}, factory);
  } catch (error) {
    // Adapter failures surface as "External error id#N"; the real error sits in the registry.
    const id = /External error id#(\d+)/.exec(errorMessage(error))?.[1];
    const original = id === undefined ? undefined : factory.errorRegistry.consumeError(Number(id))?.error;
    throw new Error(`Prisma schema engine failed to start: ${errorMessage(original ?? error)}`, {
      cause: original ?? error,
    });
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The provider a schema's datasource block declares, or undefined if none can be found. */
function declaredProvider(datamodel: string): string | undefined {
  return /\bdatasource\s+\w+\s*\{[^}]*?\bprovider\s*=\s*"([^"]*)"/.exec(datamodel)?.[1];
}

/**
 * The engine would happily diff a PostgreSQL datamodel when the caller expects SQLite SQL (the
 * dialect follows the datamodel), so a mismatch is refused here rather than stored as a migration
 * for the wrong database.
 */
function assertProvider(provider: DbProvider, datamodel: string, side: 'from' | 'to'): void {
  const declared = declaredProvider(datamodel);
  // Without a recognisable datasource the engine's own validation error is the better message.
  if (declared !== undefined && declared !== provider) {
    throw new Error(`The '${side}' datamodel declares provider "${declared}", expected "${provider}"`);
  }
}

/** True when the script holds nothing but comments and blank lines ("-- This is an empty migration."). */
function isEmptyScript(script: string): boolean {
  return script.split('\n').every((line) => line.trim() === '' || line.trim().startsWith('--'));
}

/** The engine appends a Rust span trace ("   0: schema_engine_wasm::...") that means nothing to users. */
function stripSpanTrace(message: string): string {
  return message.replace(/\n\s*0: schema_engine[\s\S]*$/, '').trimEnd();
}

/** SQL script turning datamodel `from` (null = empty database) into `to`; '' when nothing changes. Pure: touches no real database. */
export async function diffDatamodels(provider: DbProvider, from: string | null, to: string): Promise<string> {
  if (from !== null) assertProvider(provider, from, 'from');
  assertProvider(provider, to, 'to');

  const engine = await getEngine();
  // File names appear in the engine's validation errors, so they tell which side is invalid.
  const params: DiffParams = {
    from: from === null ? { tag: 'empty' } : { tag: 'schemaDatamodel', files: [{ path: 'from.prisma', content: from }] },
    to: { tag: 'schemaDatamodel', files: [{ path: 'to.prisma', content: to }] },
    script: true,
    exitCode: null,
    filters: { externalTables: [], externalEnums: [] },
  };
  let stdout: string | null;
  try {
    ({ stdout } = await engine.diff(params));
  } catch (error) {
    throw new Error(stripSpanTrace(errorMessage(error)), { cause: error });
  }
  return stdout === null || isEmptyScript(stdout) ? '' : stdout;
}
