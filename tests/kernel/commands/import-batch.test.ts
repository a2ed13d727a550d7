/**
 * fw.import_batch (src/kernel/commands/import-batch.ts): one transaction per batch, a savepoint
 * per row, every refused row reported with its line, rolled back on a dry run or any refusal;
 * an internal command (no GraphQL field, refused over POST /api/command); its payload checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken } from '../../helpers/api.ts';
import { expectError, startTestServer, type TestServer } from '../../helpers/server.ts';
import type { Principal } from '../../../src/kernel/env.ts';

let ts: TestServer;
let token: string;
const system: Principal = { kind: 'system', user_id: null, tenant_id: 'default', role: 'admin' };
const batch = (payload: Record<string, unknown>) => ts.kernel.dispatch<Record<string, any>>('fw.import_batch', payload, system);
const names = async () => (await ts.request('GET', '/api/data/crm.lead?order=name%20asc', { token })).body.items.map((r: { name: string }) => r.name);

beforeAll(async () => {
  ts = await startTestServer();
  token = await adminToken(ts);
});
afterAll(async () => { await ts?.close(); });

describe('fw.import_batch', () => {
  it('a dry run reports every refused row by line and writes nothing', async () => {
    const r = await batch({ model: 'crm.lead', dry_run: true, rows: [
      { line: 2, values: { name: 'ok' } }, { line: 3, values: { name: 'bad', stage: 'sleeping' } }, { line: 4, values: {} },
    ] });
    expect(r).toMatchObject({ created: 1, updated: 0, committed: false });
    expect(r.errors.map((e: { line: number; code: string }) => [e.line, e.code])).toEqual([[3, 'INVALID_ENUM'], [4, 'REQUIRED']]);
    expect(await names()).toEqual([]);
  });

  it('a batch without refusals commits; one with a refusal rolls back whole', async () => {
    expect(await batch({ model: 'crm.lead', rows: [{ line: 2, values: { name: 'kept' } }] })).toMatchObject({ created: 1, committed: true });
    const r = await batch({ model: 'crm.lead', rows: [{ line: 2, values: { name: 'rolled back' } }, { line: 3, values: { name: 'x', stage: 'nope' } }] });
    expect(r).toMatchObject({ committed: false, errors: [expect.objectContaining({ line: 3 })] });
    expect(await names()).toEqual(['kept']);
  });

  it('a row with an id updates that record', async () => {
    const [lead] = (await ts.request('GET', '/api/data/crm.lead', { token })).body.items;
    expect(await batch({ model: 'crm.lead', rows: [{ line: 2, id: lead.id, values: { name: 'kept, renamed' } }] })).toMatchObject({ updated: 1, committed: true });
    expect(await names()).toEqual(['kept, renamed']);
  });

  it('a payload without a model, without a list of rows, with a malformed row or over 1000 rows is 400 INVALID_PAYLOAD', async () => {
    await expect(batch({ rows: [] })).rejects.toMatchObject({ code: 'INVALID_PAYLOAD', status: 400 });
    await expect(batch({ model: 'crm.lead', rows: 'x' })).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
    await expect(batch({ model: 'crm.lead', rows: [{ values: {} }] })).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
    await expect(batch({ model: 'crm.lead', rows: [{ line: 1, id: 5, values: {} }] })).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
    await expect(batch({ model: 'crm.lead', rows: Array.from({ length: 1001 }, (_, i) => ({ line: i, values: { name: 'x' } })) })).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
  });

  it('is internal: POST /api/command/fw.import_batch is 404 UNKNOWN_COMMAND', async () => {
    expectError(await ts.request('POST', '/api/command/fw.import_batch', { token, body: { model: 'crm.lead', rows: [] } }), 404, 'UNKNOWN_COMMAND');
  });
});
