/**
 * The example CRM's leads through their stages (src/apps/crm.sales/index.ts): won however it
 * happens, a lead is closed (date, probability 1); moved back to an open stage it is reopened
 * (no closing date, no probability) unless the change sets them; lost keeps what it had.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { bootTestKernel, type TestKernel } from '../helpers/kernel.ts';

describe('a lead through its stages', () => {
  let tk: TestKernel;
  const sys = systemPrincipal('default');
  const update = (id: string, values: Record<string, unknown>) => tk.kernel.dispatch<Record<string, unknown>>('fw.update', { model: 'crm.lead', id, values }, sys);

  beforeAll(async () => {
    tk = await bootTestKernel({ settings: { ACTIVE_DOMAINS: 'crm' } });
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  it('won by a stage change is closed; moved back to an open stage it is reopened: no closing date, no probability', async () => {
    const lead = await tk.kernel.dispatch<{ id: string }>('fw.create', { model: 'crm.lead', values: { name: 'Reopened', probability: 0.4 } }, sys);
    expect(await update(lead.id, { stage: 'won' })).toMatchObject({ stage: 'won', probability: 1, closed_at: expect.any(String) });
    expect(await update(lead.id, { stage: 'new' })).toMatchObject({ stage: 'new', probability: null, closed_at: null });
  });

  it('reopening keeps what the same change sets, and a lost lead keeps its closing date', async () => {
    const lead = await tk.kernel.dispatch<{ id: string }>('fw.create', { model: 'crm.lead', values: { name: 'Kept' } }, sys);
    await update(lead.id, { stage: 'won' });
    expect(await update(lead.id, { stage: 'qualified', probability: 0.6 })).toMatchObject({ stage: 'qualified', probability: 0.6, closed_at: null });
    await update(lead.id, { stage: 'won' });
    const lost = await update(lead.id, { stage: 'lost' });
    expect(lost).toMatchObject({ stage: 'lost', closed_at: expect.any(String) });
    // an edit of another field of a won lead reopens nothing
    await update(lead.id, { stage: 'won' });
    expect(await update(lead.id, { notes: 'signed' })).toMatchObject({ stage: 'won', probability: 1, closed_at: expect.any(String) });
  });
});
