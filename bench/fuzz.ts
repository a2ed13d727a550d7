/**
 * `npx tsx bench/fuzz.ts [--count 10000] [--seed N] [--pg] [--batch 250] [--max-failures N]`
 *
 * The full run of the property-based fuzzer (tests/fuzz/): an in-process server (SQLite, or
 * PostgreSQL with --pg), requests derived from its OpenAPI document and GraphQL schema, every rule
 * of tests/fuzz/runner.ts checked. Prints requests sent, responses by status class, the 5xx count
 * (must be 0), the routes and root fields hit, the elapsed time and the seed; every failure with
 * its shrunk request. Exit 1 when anything failed.
 */
import { parseArgs } from 'node:util';
import { startFuzzServer } from '../tests/fuzz/harness.ts';
import { formatFailure, formatStats, runFuzz } from '../tests/fuzz/runner.ts';
import { deriveSpec } from '../tests/fuzz/spec.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '10000' },
    seed: { type: 'string' },
    pg: { type: 'boolean', default: false },
    batch: { type: 'string', default: '250' },
    'max-failures': { type: 'string', default: '50' },
    quiet: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log('npx tsx bench/fuzz.ts [--count 10000] [--seed N] [--pg] [--batch 250] [--max-failures 50] [--quiet]');
  process.exit(0);
}
const count = Number(values.count);
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
if (!Number.isInteger(count) || count < 1 || !Number.isInteger(seed)) {
  console.error('--count and --seed must be integers');
  process.exit(2);
}
const provider = values.pg ? 'postgresql' : 'sqlite';
const log = (msg: string) => { if (!values.quiet || msg.startsWith('FAILURE')) console.error(`[fuzz] ${msg}`); };

log(`starting an in-process server (${provider}), seed ${seed}, ${count} requests`);
const h = await startFuzzServer({ provider });
let exit = 0;
try {
  const spec = await deriveSpec(h);
  log(`derived ${spec.rest.length} REST operations and ${spec.gqlRoots.length} GraphQL root fields from the server`);
  const stats = await runFuzz(h, spec, { count, seed, batchSize: Number(values.batch), maxFailures: Number(values['max-failures']), log });
  console.log(formatStats(stats, provider));
  for (const f of stats.failures) console.log(`\n${formatFailure(f)}`);
  const missed = [...spec.rest.map((o) => o.id), ...spec.gqlRoots.map((r) => r.id)].filter((t) => !stats.targetsHit.has(t));
  if (missed.length) console.log(`\nnot hit: ${missed.join(', ')}`);
  const neverOk = [...spec.rest.map((o) => o.id), ...spec.gqlRoots.map((r) => r.id)].filter((t) => stats.targetsHit.has(t) && !stats.targetsOk.has(t));
  if (neverOk.length && !values.quiet) console.log(`\nhit but never answered with a success: ${neverOk.join(', ')}`);
  if (stats.failures.length || stats.serverErrors) exit = 1;
} catch (err) {
  console.error(err);
  exit = 1;
} finally {
  await h.close();
}
process.exit(exit);
