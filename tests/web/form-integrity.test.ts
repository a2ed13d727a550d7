/**
 * Forms never change what the person did not change. Generic over the repository: every window
 * action with a form view (every app of this repository active, AI and QA included) is opened on
 * a record whose References are filled; the test tabs through every control of the form and clicks
 * into and out of every Reference picker, then saves. Nothing may become dirty, and the record
 * read back through the API must equal the one before. Then the Reference picker's own rules:
 * picking keeps the picked record, Escape reverts, emptying the text and leaving clears.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/kernel/env.ts';
import { actionUrl, countGraphql, createLead, getRecord, modelNames, shot, startSignedIn, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: string;

beforeAll(async () => {
  ({ env, page, org } = await startSignedIn({ AI_ENABLED: 'true', ENABLE_QA_AUTOMATION: 'true' }));
  // one record of each model a person can make here, so that no writable form goes unchecked
  const created = await Promise.all([
    env.api('POST', '/api/data/storage.folder', { name: 'Integrity folder' }),
    env.api('POST', '/api/storage/documents', { filename: 'integrity.txt', content_b64: Buffer.from('integrity').toString('base64') }),
    env.api('POST', '/api/connectors', { name: 'Integrity hook', category: 'messaging', provider_type: 'webhook' }),
  ]);
  for (const r of created) expect(r.status, JSON.stringify(r.body)).toBe(201);
  await env.kernel.dispatch('qa.usecase.import', {
    usecase_key: 'integrity.orgs', name: 'Open the organizations', module: 'base', start_path: '/{{org}}/action-base.action_organizations',
    steps: [{ kind: 'assert', target: { candidates: [[{ by: 'testid', value: 'view-title' }]] }, assertion: { kind: 'visible' }, caption: 'The list is shown' }],
  }, systemPrincipal(env.kernel.settings.DEFAULT_TENANT));
});
afterAll(async () => { await env?.close(); });

interface PlanField { name: string; label: string; type: string; readonly: boolean | null; relation: string | null }
/** `writable`: the form can save (an update mutation and a field that is not read-only), as the client decides */
interface FormTarget { action: string; model: string; viewId: string; fields: PlanField[]; writable: boolean }

/** Every window action whose views include a form, with the form's plan fields. */
async function formTargets(): Promise<FormTarget[]> {
  const boot = await env.gql('query { presentationBootstrap { actions { key model_key views { type view_id } } models { key names { update } } } }');
  // as the client decides: the schema's mutations say which models can be updated at all
  const mutations = new Set(((await env.gql('query { __type(name: "Mutation") { fields { name } } }')).__type.fields as Array<{ name: string }>).map((f) => f.name));
  const updatable = new Set((boot.presentationBootstrap.models as Array<{ key: string; names: { update: string } }>).filter((m) => mutations.has(m.names.update)).map((m) => m.key));
  const targets: FormTarget[] = [];
  const seen = new Set<string>();
  for (const a of boot.presentationBootstrap.actions as Array<{ key: string; model_key: string | null; views: Array<{ type: string; view_id: string }> }>) {
    const form = a.views.find((v) => v.type === 'form');
    if (!form || !a.model_key || seen.has(form.view_id)) continue;
    seen.add(form.view_id);
    const plan = await env.gql(
      'query($v: String!) { presentationGetViewPlan(view_id: $v) { ... on FormPlan { fields { name label type readonly relation } } } }',
      { v: form.view_id },
    );
    targets.push({ action: a.key, model: a.model_key, viewId: form.view_id, fields: plan.presentationGetViewPlan.fields, writable: updatable.has(a.model_key) && plan.presentationGetViewPlan.fields.some((f: PlanField) => !f.readonly) });
  }
  return targets;
}

/** The first record of a model through GraphQL (its id), or null when it has none. */
async function firstId(model: string): Promise<string | null> {
  const n = await modelNames(env, model);
  const data = await env.gql(`query { rows: ${n.many}(limit: 1) { id } }`);
  return data.rows[0]?.id ?? null;
}

/**
 * A record of the model with every writable Reference of the form filled (with the first record
 * of the target model), so that a picker has a value to lose. A model nobody can create through
 * the API here keeps its first record as it is.
 */
async function recordFor(t: FormTarget): Promise<string | null> {
  let id = await firstId(t.model);
  if (!id && t.model === 'crm.lead') id = (await createLead(env, { name: 'Integrity lead' })).id;
  // the AI administration's models start empty: one record each, as an administrator would make it
  const seeds: Record<string, () => Promise<Record<string, unknown>>> = {
    'ai.provider.config': async () => ({ provider: 'provider_a', base_url: 'http://127.0.0.1:9/v1', model: 'integrity-model' }),
    'ai.provider.routing': async () => ({ name: 'Integrity route', provider: 'provider_a' }),
    'ai.user.quota': async () => ({ user_id: (await env.api('GET', '/api/auth/me')).body.id, daily_usd: 1 }),
  };
  if (!id && seeds[t.model]) {
    const made = await env.api('POST', `/api/data/${t.model}`, await seeds[t.model]());
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    id = made.body.id as string;
  }
  if (!id) return null;
  const before = await getRecord(env, t.model, id);
  const fill: Record<string, string> = {};
  for (const f of t.fields) {
    if (f.type !== 'reference' || f.readonly || !f.relation || before[f.name]) continue;
    const target = await firstId(f.relation).catch(() => null);
    if (target) fill[f.name] = target;
  }
  if (Object.keys(fill).length) await env.api('PATCH', `/api/data/${t.model}/${id}`, fill); // refused fills leave the record as it was
  return id;
}

/** The record as the API returns it, without what a save may legitimately touch nothing of. */
const snapshot = async (model: string, id: string) => getRecord(env, model, id);

async function openForm(action: string, id: string): Promise<void> {
  await page.goto(actionUrl(org, action, id));
  await page.getByTestId('form-view').waitFor();
  // the values are in: the title is the record's name, not the loading placeholder
  await expect.poll(() => page.locator('.page-loading').count()).toBe(0);
}

describe('forms change nothing the person did not change', () => {
  it('tabbing through every form of every view, and in and out of every picker, leaves it clean and saves nothing new', async () => {
    const targets = await formTargets();
    // every app's forms are found (base, storage, connectors, crm, qa…): not a vacuous loop
    expect(targets.length).toBeGreaterThanOrEqual(8);
    const checked: string[] = [];
    const withReferences: string[] = [];
    const noRecord: FormTarget[] = [];
    for (const t of targets) {
      const id = await recordFor(t);
      if (!id) { noRecord.push(t); continue; }
      const before = await snapshot(t.model, id);
      await openForm(t.action, id);
      const form = page.getByTestId('form-view');
      // Tab from the first control through every focusable element of the form
      const stops = await form.locator('input, select, textarea, button, [tabindex]:not([tabindex="-1"])').count();
      const first = form.locator('input:not([type=hidden]), select, textarea').first();
      if (await first.count()) await first.focus();
      for (let i = 0; i < stops; i++) await page.keyboard.press('Tab');
      // into and out of every picker: a click, then Escape, then a click elsewhere
      const pickers = t.fields.filter((f) => f.type === 'reference' && !f.readonly);
      for (const f of pickers) {
        const input = form.getByTestId(`input-${f.name}`);
        if (!(await input.count()) || !(await input.isEditable())) continue;
        await input.click();
        await page.keyboard.press('Escape');
        await input.click();
        await page.getByTestId('form-title').click();
      }
      if (pickers.length) withReferences.push(t.model);
      expect(await page.getByTestId('dirty-mark').count(), `${t.viewId} became dirty without any edit`).toBe(0);
      const save = page.getByTestId('form-save');
      if (await save.count()) {
        await save.click();
        await expect.poll(() => page.getByTestId('toast-info').last().textContent()).toContain('Saved.');
      }
      const after = await snapshot(t.model, id);
      expect(after, `${t.viewId}: the saved record differs from the one before`).toEqual(before);
      checked.push(t.viewId);
    }
    // the forms with References (leads, organizations, users…) were among those checked, and
    // the only forms left unchecked are of models nobody can write (QA runs are made by replays)
    expect(withReferences).toEqual(expect.arrayContaining(['crm.lead', 'res.organization', 'res.user', 'storage.document']));
    expect(noRecord.filter((t) => t.writable).map((t) => t.viewId)).toEqual([]);
    expect(checked.length).toBeGreaterThanOrEqual(8);
  });

  it('a new record\'s form, tabbed through untouched, stays clean', async () => {
    let checked = 0;
    for (const t of await formTargets()) {
      if (!t.writable) continue;
      await page.goto(actionUrl(org, t.action, 'new'));
      const form = page.getByTestId('form-view');
      await form.waitFor();
      if (!(await page.getByTestId('form-save').count())) continue; // nobody may create it here
      const stops = await form.locator('input, select, textarea, button, [tabindex]:not([tabindex="-1"])').count();
      const first = form.locator('input:not([type=hidden]), select, textarea').first();
      if (await first.count()) await first.focus();
      for (let i = 0; i < stops; i++) await page.keyboard.press('Tab');
      expect(await page.getByTestId('dirty-mark').count(), `the new ${t.model} form became dirty without any edit`).toBe(0);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(4);
  });
});

describe('the Reference picker', () => {
  let countries: Record<string, string>;
  beforeAll(async () => {
    const n = await modelNames(env, 'res.country');
    const data = await env.gql(`query { rows: ${n.many}(where: { code: { in: ["FR", "DE", "ES"] } }) { id code } }`);
    countries = Object.fromEntries((data.rows as Array<{ id: string; code: string }>).map((r) => [r.code, r.id]));
  });
  const leadWithCountry = async (name: string) => createLead(env, { name, country: countries.FR });
  const country = () => page.getByTestId('input-country');

  it('picking another record through typing keeps the picked record on save', async () => {
    const lead = await leadWithCountry('Picker typing');
    await openForm('crm.action_leads', lead.id);
    await expect.poll(() => country().inputValue()).toBe('France');
    await country().fill('Germ');
    await page.getByRole('option', { name: 'Germany' }).click();
    await expect.poll(() => country().inputValue()).toBe('Germany');
    await page.getByTestId('form-title').click(); // leave the field
    await expect.poll(() => country().inputValue()).toBe('Germany');
    await shot(page, 'form-picker-picked', { dark: true });
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await getRecord(env, 'crm.lead', lead.id)).country).toBe(countries.DE);
  });

  it('typing without picking, then leaving or pressing Escape, keeps the value', async () => {
    const lead = await leadWithCountry('Picker abandoned');
    await openForm('crm.action_leads', lead.id);
    await expect.poll(() => country().inputValue()).toBe('France');
    await country().fill('Spa');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await page.getByTestId('form-title').click();
    await expect.poll(() => country().inputValue()).toBe('France');
    await country().fill('Spa');
    await page.getByRole('option', { name: 'Spain' }).waitFor();
    await page.keyboard.press('Tab');
    await expect.poll(() => country().inputValue()).toBe('France');
    expect(await page.getByTestId('dirty-mark').count()).toBe(0);
    // the person sees that the text was not taken, until they come back to the field
    const note = page.getByTestId('reference-not-taken-country');
    await expect.poll(() => note.textContent()).toBe('"Spa" was not applied: choose one of the records offered.');
    await shot(page, 'form-picker-not-taken', { dark: true });
    await country().focus();
    await expect.poll(() => note.count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByTestId('form-save').click();
    await expect.poll(() => page.getByTestId('toast-info').last().textContent()).toContain('Saved.');
    expect((await getRecord(env, 'crm.lead', lead.id)).country).toBe(countries.FR);
  });

  it('typed text that names exactly one offered record is taken on Tab, on leaving and on Enter', async () => {
    const lead = await leadWithCountry('Picker exact');
    await openForm('crm.action_leads', lead.id);
    await expect.poll(() => country().inputValue()).toBe('France');
    // Tab: the case and surrounding spaces aside, "germany" is Germany
    await country().fill(' germany ');
    await page.getByRole('option', { name: 'Germany' }).waitFor();
    await page.keyboard.press('Tab');
    await expect.poll(() => country().inputValue()).toBe('Germany');
    await page.getByTestId('dirty-mark').waitFor();
    expect(await page.getByTestId('reference-not-taken-country').count()).toBe(0);
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await getRecord(env, 'crm.lead', lead.id)).country).toBe(countries.DE);
    await expect.poll(() => page.getByTestId('dirty-mark').count()).toBe(0);
    // leaving by a click elsewhere
    await country().fill('Spain');
    await page.getByRole('option', { name: 'Spain' }).waitFor();
    await page.getByTestId('form-title').click();
    await expect.poll(() => country().inputValue()).toBe('Spain');
    await page.getByTestId('dirty-mark').waitFor();
    // Enter, no option highlighted: taken, and the form is not submitted by it
    const saves = countGraphql(page, 'mutation Update');
    await country().fill('FRANCE');
    await page.getByRole('option', { name: 'France' }).waitFor();
    await page.keyboard.press('Enter');
    await expect.poll(() => country().inputValue()).toBe('France');
    await page.getByTestId('form-title').click();
    await expect.poll(() => country().inputValue()).toBe('France');
    expect(saves.count).toBe(0);
    saves.stop();
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await getRecord(env, 'crm.lead', lead.id)).country).toBe(countries.FR);
  });

  it('emptying the text and leaving the field clears the value (an explicit clear), and Save stores null', async () => {
    const lead = await leadWithCountry('Picker cleared');
    await openForm('crm.action_leads', lead.id);
    await expect.poll(() => country().inputValue()).toBe('France');
    await country().fill('');
    await page.getByTestId('form-title').click();
    await expect.poll(() => country().inputValue()).toBe('');
    await page.getByTestId('dirty-mark').waitFor();
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await getRecord(env, 'crm.lead', lead.id)).country).toBeNull();
  });

  it('choosing through the ▾ button picks from all records; choosing the same one changes nothing', async () => {
    const lead = await leadWithCountry('Picker button');
    await openForm('crm.action_leads', lead.id);
    await expect.poll(() => country().inputValue()).toBe('France');
    await page.getByRole('button', { name: 'Search Country' }).click();
    await page.getByRole('option').first().waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => country().inputValue()).toBe('France');
    expect(await page.getByTestId('dirty-mark').count()).toBe(0);
  });
});
