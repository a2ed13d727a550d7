/**
 * Workload 14 (transfer): export and import of issue 29 §1 against a real server.
 * - export of 100,000 leads as CSV and as XLSX (References as names): time to the last byte and
 *   the server's peak RSS (the export holds one page, so RSS must not grow with the row count)
 * - import of 10,000 leads from CSV (References by name): the dry run, then the real import
 * The 100,000 leads are inserted straight into the tenant database (the bus would take minutes);
 * what is measured is the transfer, not the seeding.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import type { Bench } from '../lib/bench.ts';
import { ok } from '../lib/http.ts';
import { RssWatch } from '../lib/proc.ts';
import { login } from '../lib/seed.ts';
import { startFw, type FwServer } from '../lib/server.ts';
import { registerSortKey } from '../../src/kernel/data/collation.ts';

const EXPORT_ROWS = 100_000;
const IMPORT_ROWS = 10_000;

/** Rows inserted in one transaction of a separate connection: SQLite file or the tenant's PostgreSQL database. */
async function insertLeads(b: Bench, server: FwServer, org: string, count: number): Promise<void> {
  // the Prisma SQLite adapter's stamp format
  const now = b.ctx.pg ? new Date().toISOString() : new Date().toISOString().replace('Z', '+00:00');
  const row = (i: number) => [crypto.randomUUID(), now, now, `Bench lead ${String(i).padStart(6, '0')}`, `lead${i}@example.com`, i % 4 === 0 ? 'won' : 'new', i % 10_000, org];
  const cols = 'record_uuid, created_at_utc, updated_at_utc, revision, name, email, stage, expected_revenue, organization';
  if (!b.ctx.pg) {
    const { default: Database } = await import('better-sqlite3');
    const db = registerSortKey(new Database(path.join(server.dataDir, 'tenants', 'default.db'), { timeout: 10_000 }));
    try {
      const insert = db.prepare(`INSERT INTO crm_lead (${cols}) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?)`);
      db.transaction(() => { for (let i = 0; i < count; i++) insert.run(...row(i)); })();
    } finally {
      db.close();
    }
    return;
  }
  const { default: pg } = await import('pg');
  const url = new URL(b.ctx.pg.url);
  url.pathname = `/${server.env.PG_DATABASE_PREFIX}default`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    for (let i = 0; i < count; i += 1000) {
      const rows = Array.from({ length: Math.min(1000, count - i) }, (_, j) => row(i + j));
      const values = rows.map((_, k) => `($${k * 8 + 1}, $${k * 8 + 2}, $${k * 8 + 3}, 1, $${k * 8 + 4}, $${k * 8 + 5}, $${k * 8 + 6}, $${k * 8 + 7}, $${k * 8 + 8})`).join(', ');
      await client.query(`INSERT INTO crm_lead (${cols}) VALUES ${values}`, rows.flat());
    }
  } finally {
    await client.end();
  }
}

/** Streams an export to nowhere, counting bytes; the server's peak RSS over it. */
async function timedExport(server: FwServer, token: string, format: 'csv' | 'xlsx'): Promise<{ ms: number; bytes: number; peakMb: number; startMb: number; rows: string | null }> {
  const watch = new RssWatch(server.pid).start();
  const t0 = performance.now();
  const res = await fetch(`${server.base}/api/export/crm.lead`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ format, fields: ['name', 'email', 'stage', 'expected_revenue', 'organization'] }),
  });
  if (!res.ok || !res.body) throw new Error(`export ${format}: HTTP ${res.status} ${await res.text()}`);
  let bytes = 0;
  for await (const chunk of res.body) bytes += (chunk as Uint8Array).length;
  const ms = performance.now() - t0;
  return { ms, bytes, peakMb: watch.stop(), startMb: watch.startMb, rows: res.headers.get('x-export-rows') };
}

async function timedImport(server: FwServer, token: string, csv: Buffer, dryRun: boolean) {
  const watch = new RssWatch(server.pid).start();
  const t0 = performance.now();
  const res = await fetch(`${server.base}/api/import/crm.lead?dry_run=${dryRun}`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' }, body: new Uint8Array(csv),
  });
  const body = await res.json() as { created?: number; errors?: unknown[] };
  const ms = performance.now() - t0;
  if (!res.ok || body.errors?.length) throw new Error(`import (dry run ${dryRun}): HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return { ms, peakMb: watch.stop(), startMb: watch.startMb, created: body.created ?? 0 };
}

export async function transferWorkload(b: Bench): Promise<void> {
  const server = await startFw(b.ctx, 'transfer', { ACTIVE_DOMAINS: 'crm', EVENT_WORKER: 'false' });
  try {
    const token = await login(server.base, b.ctx);
    const me = await ok<{ organization: { id: string; name: string } }>(server.base, 'GET', '/api/auth/me', { token });
    b.log(`workload 14: inserting ${EXPORT_ROWS.toLocaleString('en-US')} leads`);
    await insertLeads(b, server, me.organization.id, EXPORT_ROWS);

    for (const format of ['csv', 'xlsx'] as const) {
      b.log(`workload 14: export of ${EXPORT_ROWS.toLocaleString('en-US')} leads as ${format}`);
      const r = await timedExport(server, token, format);
      if (r.rows !== String(EXPORT_ROWS)) throw new Error(`export ${format}: X-Export-Rows ${r.rows}, expected ${EXPORT_ROWS}`);
      b.rows.push({
        id: format === 'csv' ? '14a' : '14b', workload: `transfer: export 100,000 leads (${format.toUpperCase()})`, p50: r.ms, peakRssMb: r.peakMb,
        note: `${(r.bytes / 2 ** 20).toFixed(1)} MiB in ${(r.ms / 1000).toFixed(1)} s (${Math.round(EXPORT_ROWS / (r.ms / 1000)).toLocaleString('en-US')} rows/s); RSS ${r.startMb.toFixed(0)} → peak ${r.peakMb.toFixed(0)} MB`,
      });
    }

    const lines = ['Name,Email,Stage,Expected revenue,Organization'];
    for (let i = 0; i < IMPORT_ROWS; i++) lines.push(`Imported ${i},imported${i}@example.com,${i % 3 ? 'new' : 'qualified'},${i},${me.organization.name}`);
    const csv = Buffer.from(`${lines.join('\n')}\n`);
    for (const dryRun of [true, false]) {
      b.log(`workload 14: import of ${IMPORT_ROWS.toLocaleString('en-US')} leads${dryRun ? ' (dry run)' : ''}`);
      const r = await timedImport(server, token, csv, dryRun);
      if (r.created !== IMPORT_ROWS) throw new Error(`import: ${r.created} created, expected ${IMPORT_ROWS}`);
      b.rows.push({
        id: dryRun ? '14c' : '14d', workload: `transfer: import 10,000 leads${dryRun ? ' (dry run)' : ''}`, p50: r.ms, peakRssMb: r.peakMb,
        note: `${(r.ms / 1000).toFixed(1)} s (${Math.round(IMPORT_ROWS / (r.ms / 1000)).toLocaleString('en-US')} rows/s); RSS ${r.startMb.toFixed(0)} → peak ${r.peakMb.toFixed(0)} MB`,
      });
    }
  } finally {
    await server.stop();
  }
}
