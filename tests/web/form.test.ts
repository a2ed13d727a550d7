/**
 * The form view: open a record, edit and save; create one; field errors from the API's error
 * envelope are shown next to their field; leaving a dirty form asks first; a save against a
 * record changed elsewhere asks to reload or overwrite; header buttons run their command, a
 * `special=file_upload` one with the chosen file, and a cancelled file chooser runs nothing.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineHook } from '../../src/public/app.ts';
import { ValidationError } from '../../src/public/errors.ts';
import { fixtureApp } from '../helpers/kernel.ts';
import {
  actionUrl, adminOrg, countGraphql, createLead, getRecord, login, patchRecord, shot, startWeb, toastText, type WebEnv,
} from './helpers/browser.ts';

/**
 * A team's hooks that refuse a save with an error on a field the form has no input for: one the
 * lead's form leaves out (`source`, not even a field of the model), and a One2Many (the users of
 * an organization), as a hook requiring lines would.
 */
const refusals = fixtureApp('formcheck', {
  depends: ['crm.sales'],
  hooks: [
    defineHook('pre.crm.lead.update', (ctx) => {
      if (ctx.payload.email === 'refused@blocked.example') throw new ValidationError('give the source of a lead from this address', { field: 'source' }, 'SOURCE_REQUIRED');
    }),
    defineHook('pre.res.organization.update', (ctx) => {
      if (typeof ctx.payload.name === 'string' && ctx.payload.name.startsWith('Needs people')) throw new ValidationError('an organization needs a second user', { field: 'users' }, 'TOO_FEW_USERS');
    }),
  ],
});

let env: WebEnv;
let page: Page;
beforeAll(async () => {
  env = await startWeb({}, { apps: [refusals] });
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

const path = (p: Page) => new URL(p.url()).pathname;
const leadUrl = (id?: string) => actionUrl('default', 'crm.action_leads', id);
/** The text of the latest toast of a tone (without its dismiss button). */

/** Opens a lead's form and waits until its values are in the inputs. */
async function openLead(id: string, name: string): Promise<void> {
  await page.goto(leadUrl(id));
  await page.getByTestId('form-view').waitFor();
  await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe(name);
}

describe('form view', () => {
  it('opens a lead from the list, edits it and saves', async () => {
    const lead = await createLead(env, { name: 'Form edit', expected_revenue: 100 });
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list', q: 'Form edit' }));
    await page.getByTestId('list-row').first().click();
    await expect.poll(() => path(page)).toBe(`/default/action-crm.action_leads/${lead.id}`);
    await expect.poll(() => page.getByTestId('form-title').textContent()).toBe('Form edit');
    expect(await page.getByTestId('dirty-mark').count()).toBe(0);
    await page.getByTestId('input-name').fill('Form edited');
    await page.getByTestId('input-expected_revenue').fill('2500');
    await page.getByTestId('dirty-mark').waitFor();
    await page.getByTestId('form-save').click();
    await expect.poll(() => toastText(page, 'info')).toBe('Saved.');
    await expect.poll(() => page.getByTestId('dirty-mark').count()).toBe(0);
    const saved = await getRecord(env, 'crm.lead', lead.id);
    expect(saved).toMatchObject({ name: 'Form edited', expected_revenue: 2500, revision: 2 });
    await expect.poll(() => page.getByTestId('form-title').textContent()).toBe('Form edited');
  });

  it('creates a record with New: the URL becomes the new record\'s', async () => {
    await page.goto(actionUrl('default', 'crm.action_leads', undefined, { view: 'list' }));
    await page.getByTestId('new-record').click();
    await expect.poll(() => path(page)).toBe('/default/action-crm.action_leads/new');
    await page.getByTestId('input-name').fill('Brand new lead');
    await page.getByTestId('input-email').fill('buyer@example.com');
    await page.getByTestId('form-save').click();
    await expect.poll(() => toastText(page, 'info')).toBe('Created.');
    await expect.poll(() => path(page)).toMatch(/^\/default\/action-crm\.action_leads\/[0-9a-f-]{36}$/);
    const id = path(page).split('/').pop()!;
    expect(await getRecord(env, 'crm.lead', id)).toMatchObject({ name: 'Brand new lead', email: 'buyer@example.com', stage: 'new' });
    await expect.poll(() => page.getByTestId('form-title').textContent()).toBe('Brand new lead');
  });

  it('a new record shows the model\'s defaults, and left untouched they are what the server stores', async () => {
    await page.goto(actionUrl('default', 'base.action_organizations', 'new'));
    await page.getByTestId('form-view').waitFor();
    // res.organization.is_active defaults to true: the box is ticked before anyone touches it
    await expect.poll(() => page.getByTestId('input-is_active').isChecked()).toBe(true);
    expect(await page.getByTestId('dirty-mark').count()).toBe(0);
    await shot(page, 'form-new-defaults', { dark: true });
    await page.getByTestId('input-name').fill('Defaults Org');
    await page.getByTestId('input-code').fill('defaults-org');
    const creates = countGraphql(page, 'mutation Create');
    await page.getByTestId('form-save').click();
    await expect.poll(() => toastText(page, 'info')).toBe('Created.');
    const id = path(page).split('/').pop()!;
    expect(await getRecord(env, 'res.organization', id)).toMatchObject({ name: 'Defaults Org', is_active: true });
    // untouched defaults are left to the server: only what the person typed is sent
    expect(creates.count).toBe(1);
    expect(Object.keys(JSON.parse(creates.bodies[0]).variables.input).sort()).toEqual(['code', 'name']);
    creates.stop();
    // a lead: the statusbar starts at the stage default, the revenue at its default 0
    await page.goto(leadUrl('new'));
    await page.getByTestId('form-view').waitFor();
    await expect.poll(() => page.locator('.statusbar [aria-current="step"]').textContent()).toBe('New'); // the value's label
    expect(await page.getByTestId('input-expected_revenue').inputValue()).toBe('0');
  });

  it('a required field left empty is flagged next to the field, and nothing is sent', async () => {
    await page.goto(leadUrl('new'));
    await page.getByTestId('input-email').fill('nobody@example.com');
    const creates = countGraphql(page, 'mutation Create');
    await page.getByTestId('form-save').click();
    const err = page.getByTestId('error-name');
    await expect.poll(() => err.textContent()).toMatch(/^Name\b.*required/i); // names the field (wording is the client's)
    expect(await page.getByTestId('input-name').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('input-name').getAttribute('aria-describedby')).toBe(await err.getAttribute('id'));
    // the error sits inside the field's own row
    expect(await page.getByTestId('field-name').getByTestId('error-name').count()).toBe(1);
    expect(creates.count).toBe(0);
    creates.stop();
  });

  it('a field error of the API envelope (VALIDATION_FAILED details.errors) is shown next to its field', async () => {
    await page.goto(leadUrl('new'));
    await page.getByTestId('input-name').fill('x'.repeat(201)); // char(200): the server answers TOO_LONG
    await page.getByTestId('form-save').click();
    const err = page.getByTestId('field-name').getByTestId('error-name');
    await expect.poll(() => err.textContent()).toBe('Longer than 200 characters.'); // the reason beside the label, not the field key
    expect(await page.getByTestId('input-name').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => toastText(page, 'error')).toBe('Some fields need attention.');
    expect(path(page)).toBe('/default/action-crm.action_leads/new');
  });

  it('a hook\'s field error (details.field, e.g. INVALID_PROBABILITY) is shown next to its field', async () => {
    await page.goto(leadUrl('new'));
    await page.getByTestId('input-name').fill('Too likely');
    await page.getByTestId('input-probability').fill('3');
    await page.getByTestId('form-save').click();
    await expect.poll(() => page.getByTestId('field-probability').getByTestId('error-probability').textContent()).toBe('Probability must lie between 0 and 1.');
  });

  it('an error on a field the form does not show is said in the notice, and never holds back the next Save', async () => {
    const lead = await createLead(env, { name: 'Unshown refusal' });
    await openLead(lead.id, 'Unshown refusal');
    await page.getByTestId('input-email').fill('refused@blocked.example');
    await page.getByTestId('form-save').click();
    await expect.poll(() => toastText(page, 'error')).toBe('Some fields need attention. Give the source of a lead from this address.');
    await shot(page, 'form-unshown-field-error', { dark: true, themeByAttribute: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'form-unshown-field-error-phone', { dark: true, themeByAttribute: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    // the person changes what they can, and Save goes to the server again (it used to stop in the
    // client, silently, on an error kept for a field no input holds)
    await page.getByTestId('input-email').fill('fine@example.com');
    await page.getByTestId('form-save').click();
    await expect.poll(() => toastText(page, 'info')).toBe('Saved.');
    expect((await getRecord(env, 'crm.lead', lead.id)).email).toBe('fine@example.com');
    expect(await page.getByTestId('toast-error').count()).toBe(0);
  });

  it('an error on a One2Many field is said under its lines, and the next Save goes through', async () => {
    const admin = await adminOrg(env);
    const res = await env.api('POST', '/api/data/res.organization', { name: 'Lines refusal org' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = (res.body as { id: string }).id;
    await page.goto(actionUrl(admin.code, 'base.action_organizations', id));
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('Lines refusal org');
    await page.getByTestId('input-name').fill('Needs people org');
    await page.getByTestId('form-save').click();
    const under = page.getByTestId('field-users').getByTestId('error-users');
    await expect.poll(() => under.textContent()).toBe('An organization needs a second user.');
    // shown where it belongs, so the notice does not repeat it
    await expect.poll(() => toastText(page, 'error')).toBe('Some fields need attention.');
    await page.getByTestId('input-name').fill('Lines refusal org, renamed');
    await page.getByTestId('form-save').click();
    await expect.poll(() => toastText(page, 'info')).toBe('Saved.');
    expect((await getRecord(env, 'res.organization', id)).name).toBe('Lines refusal org, renamed');
    expect(await under.count()).toBe(0);
  });

  it('what is typed while a save runs stays, keeps the form dirty, and the next save stores it', async () => {
    const lead = await createLead(env, { name: 'Typed during save' });
    await openLead(lead.id, 'Typed during save');
    // the update is held until the person has typed more
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    let arrived!: () => void;
    const sent = new Promise<void>((r) => { arrived = r; });
    await page.route('**/graphql', async (route) => {
      if ((route.request().postData() ?? '').includes('mutation Update')) { arrived(); await held; }
      await route.continue();
    });
    try {
      const notes = page.getByTestId('input-notes');
      await notes.fill('First part.');
      await page.getByTestId('dirty-mark').waitFor();
      await page.keyboard.press('Control+s');
      await sent; // the save is on its way with "First part."
      await notes.pressSequentially(' Second part.');
      await page.getByTestId('input-email').fill('buyer@globex.example');
      release();
      await expect.poll(() => toastText(page, 'info')).toBe('Saved.');
      // the first save stored what it was sent, no more
      await expect.poll(async () => (await getRecord(env, 'crm.lead', lead.id)).notes).toBe('First part.');
      expect((await getRecord(env, 'crm.lead', lead.id)).email).toBeNull();
      // the save's end (and the refetch after it) leaves the typed text, still unsaved
      await expect.poll(() => page.getByTestId('form-view').getAttribute('data-synced')).toBeNull();
      expect(await notes.inputValue()).toBe('First part. Second part.');
      expect(await page.getByTestId('input-email').inputValue()).toBe('buyer@globex.example');
      expect(await page.getByTestId('dirty-mark').count()).toBe(1);
      // leaving asks: the typed text is protected
      await page.getByTestId('breadcrumb-action').click();
      await page.getByTestId('dirty-dialog').waitFor();
      await page.getByTestId('dirty-stay').click();
    } finally {
      await page.unroute('**/graphql');
    }
    // the second save sends the typed text against the revision the first one wrote: no conflict
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await getRecord(env, 'crm.lead', lead.id)).email).toBe('buyer@globex.example');
    expect(await getRecord(env, 'crm.lead', lead.id)).toMatchObject({ notes: 'First part. Second part.', revision: 3 });
    expect(await page.getByTestId('conflict-dialog').count()).toBe(0);
    await expect.poll(() => page.getByTestId('dirty-mark').count()).toBe(0);
  });

  it('a successful save takes back the error notice of the failed save before it', async () => {
    const lead = await createLead(env, { name: 'Fixed after refusal', expected_revenue: 10 });
    await openLead(lead.id, 'Fixed after refusal');
    await page.getByTestId('input-expected_revenue').fill('-5');
    await page.getByTestId('form-save').click();
    await expect.poll(() => toastText(page, 'error')).toBe('Some fields need attention.');
    await expect.poll(() => page.getByTestId('error-expected_revenue').textContent()).toBe('Must be at least 0.');
    await page.getByTestId('input-expected_revenue').fill('5');
    await page.getByTestId('form-save').click();
    await expect.poll(() => toastText(page, 'info')).toBe('Saved.');
    // only the green notice is left: the red one spoke of a problem that is gone (at once, not
    // when its own 10 s are over)
    expect(await page.getByTestId('toast-error').count()).toBe(0);
    expect(await page.getByTestId('error-expected_revenue').count()).toBe(0);
    expect((await getRecord(env, 'crm.lead', lead.id)).expected_revenue).toBe(5);
  });

  it('asks before leaving a dirty form: Stay keeps the edit, Discard leaves without saving', async () => {
    const lead = await createLead(env, { name: 'Dirty guard' });
    await openLead(lead.id, 'Dirty guard');
    await page.getByTestId('input-name').fill('Dirty guard (unsaved)');
    await page.getByTestId('dirty-mark').waitFor();
    await page.getByTestId('breadcrumb-action').click();
    const dialog = page.getByTestId('dirty-dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading').textContent()).toBe('Discard changes?');
    await page.getByTestId('dirty-stay').click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(path(page)).toBe(`/default/action-crm.action_leads/${lead.id}`);
    expect(await page.getByTestId('input-name').inputValue()).toBe('Dirty guard (unsaved)');
    // the sidebar is guarded too
    await page.getByTestId('menu-crm.menu_leads').click();
    await dialog.waitFor();
    await page.getByTestId('dirty-leave').click();
    await expect.poll(() => path(page)).toBe('/default/action-crm.action_leads');
    await page.getByTestId('kanban').waitFor();
    expect((await getRecord(env, 'crm.lead', lead.id)).name).toBe('Dirty guard');
  });

  it('an untouched form follows a change made elsewhere (live)', async () => {
    const lead = await createLead(env, { name: 'Live follow' });
    const live = env.subscribed('changed:crm.lead');
    await openLead(lead.id, 'Live follow');
    await live; // the page listens to lead changes before the change is made
    await patchRecord(env, 'crm.lead', lead.id, { name: 'Live followed' });
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('Live followed');
    expect(await page.getByTestId('dirty-mark').count()).toBe(0);
  });

  it('a change made elsewhere while I edit keeps my edits and tells me', async () => {
    const lead = await createLead(env, { name: 'Live dirty', expected_revenue: 5 });
    const live = env.subscribed('changed:crm.lead');
    await openLead(lead.id, 'Live dirty');
    await live;
    await page.getByTestId('input-expected_revenue').fill('555');
    await page.getByTestId('dirty-mark').waitFor();
    await patchRecord(env, 'crm.lead', lead.id, { name: 'Live dirty (theirs)' });
    await expect.poll(() => page.getByTestId('remote-change').textContent()).toContain('This record was changed elsewhere.');
    expect(await page.getByTestId('input-expected_revenue').inputValue()).toBe('555');
    expect(await page.getByTestId('input-name').inputValue()).toBe('Live dirty');
    expect(await page.getByTestId('dirty-mark').count()).toBe(1);
  });

  it('a save against a record changed elsewhere asks; Reload shows their version', async () => {
    const lead = await createLead(env, { name: 'Conflict reload', expected_revenue: 1 });
    await openLead(lead.id, 'Conflict reload');
    await page.getByTestId('input-expected_revenue').fill('111');
    await page.getByTestId('dirty-mark').waitFor();
    await patchRecord(env, 'crm.lead', lead.id, { name: 'Changed elsewhere', expected_revenue: 222 });
    await page.getByTestId('form-save').click();
    const dialog = page.getByTestId('conflict-dialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('revision 1 → 2');
    await page.getByTestId('conflict-reload').click();
    await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('Changed elsewhere');
    expect(await page.getByTestId('input-expected_revenue').inputValue()).toBe('222');
    await expect.poll(() => page.getByTestId('dirty-mark').count()).toBe(0);
    expect(await getRecord(env, 'crm.lead', lead.id)).toMatchObject({ name: 'Changed elsewhere', expected_revenue: 222, revision: 2 });
  });

  it('a save against a record changed elsewhere asks; Overwrite saves mine over theirs', async () => {
    const lead = await createLead(env, { name: 'Conflict overwrite', expected_revenue: 1 });
    await openLead(lead.id, 'Conflict overwrite');
    await page.getByTestId('input-expected_revenue').fill('333');
    await page.getByTestId('dirty-mark').waitFor();
    await patchRecord(env, 'crm.lead', lead.id, { expected_revenue: 444, email: 'theirs@example.com' });
    await page.getByTestId('form-save').click();
    await page.getByTestId('conflict-dialog').waitFor();
    await page.getByTestId('conflict-overwrite').click();
    await expect.poll(() => toastText(page, 'info')).toBe('Saved.');
    await expect.poll(() => page.getByTestId('conflict-dialog').count()).toBe(0);
    // my change wins; theirs to a field I did not touch stays
    await expect.poll(async () => (await getRecord(env, 'crm.lead', lead.id)).expected_revenue).toBe(333);
    expect((await getRecord(env, 'crm.lead', lead.id)).email).toBe('theirs@example.com');
  });

  it('a header button runs its command: Mark won moves the statusbar to won', async () => {
    const lead = await createLead(env, { name: 'Will win', stage: 'qualified' });
    await openLead(lead.id, 'Will win');
    const current = page.locator('.statusbar li[aria-current="step"]');
    await expect.poll(() => current.textContent()).toBe('Qualified');
    const runs = countGraphql(page, 'RunCommand');
    await page.getByTestId('button-crm.lead.mark_won').click();
    await expect.poll(() => current.textContent()).toBe('Won');
    expect(runs.count).toBe(1);
    expect(JSON.parse(runs.bodies[0]).variables).toEqual({ name: 'crm.lead.mark_won', payload: { id: lead.id } });
    runs.stop();
    expect(await getRecord(env, 'crm.lead', lead.id)).toMatchObject({ stage: 'won', probability: 1 });
    expect(await toastText(page, 'info')).toBe('Mark won: done.');
  });

  it('the statusbar shows the current value, selected, when the view does not list it (a lost lead)', async () => {
    const lead = await createLead(env, { name: 'Lost cause', stage: 'lost' });
    await openLead(lead.id, 'Lost cause');
    const steps = page.getByTestId('statusbar').locator('li');
    // values="new,qualified,won": lost is shown too, in the Enum's order, as the current step
    await expect.poll(() => steps.allTextContents()).toEqual(['New', 'Qualified', 'Won', 'Lost']);
    expect(await page.locator('.statusbar li[aria-current="step"]').textContent()).toBe('Lost');
    await shot(page, 'form-statusbar-lost', { dark: true });
    // another stage is still a click away; the current one is not a button
    expect(await page.getByTestId('statusbar-lost').evaluate((e) => e.tagName)).toBe('SPAN');
    await page.getByTestId('statusbar-qualified').click();
    await expect.poll(() => steps.allTextContents()).toEqual(['New', 'Qualified', 'Won']);
    expect(await page.locator('.statusbar li[aria-current="step"]').textContent()).toBe('Qualified');
    await page.getByTestId('dirty-mark').waitFor();
  });

  describe('special=file_upload buttons (storage.document: Upload new version)', () => {
    let docId: string;
    beforeAll(async () => {
      const res = await fetch(`${env.base}/api/storage/upload?filename=notes.txt`, {
        method: 'POST', body: 'version one',
        headers: { authorization: `Bearer ${await env.adminToken()}`, 'content-type': 'text/plain' },
      });
      expect(res.status).toBe(201);
      docId = ((await res.json()) as { id: string }).id;
    });

    async function openDocument() {
      await page.goto(actionUrl('default', 'storage.action_documents', docId));
      await page.getByTestId('form-view').waitFor();
      await expect.poll(() => page.getByTestId('input-name').inputValue()).toBe('notes.txt');
    }

    it('the chosen file is sent with the command: a new version is stored', async () => {
      await openDocument();
      const runs = countGraphql(page, 'RunCommand');
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('button-storage.document.add_version').click()]);
      await chooser.setFiles({ name: 'notes-v2.txt', mimeType: 'text/plain', buffer: Buffer.from('version two, longer') });
      await expect.poll(() => toastText(page, 'info')).toBe('Upload new version: done.');
      expect(runs.count).toBe(1);
      const sent = JSON.parse(runs.bodies[0]).variables;
      expect(sent).toEqual({
        name: 'storage.document.add_version',
        payload: { id: docId, file_name: 'notes-v2.txt', file_mime: 'text/plain', file_content: Buffer.from('version two, longer').toString('base64') },
      });
      runs.stop();
      const doc = await getRecord(env, 'storage.document', docId);
      expect(doc).toMatchObject({ current_version: 2, file_size: 19, original_filename: 'notes-v2.txt' });
    });

    it('a cancelled file chooser dispatches nothing', async () => {
      await openDocument();
      const before = (await getRecord(env, 'storage.document', docId)).current_version;
      const runs = countGraphql(page, 'RunCommand');
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('button-storage.document.add_version').click()]);
      await chooser.setFiles([]); // the person closes the chooser without a file
      // the hidden picker is gone once the choice (none) is known
      await expect.poll(() => page.locator('[data-testid="file-picker"]').count()).toBe(0);
      // a later command still runs: had the cancel dispatched, it would have been sent before this one
      const lead = await createLead(env, { name: 'After cancel' });
      await openLead(lead.id, 'After cancel');
      await page.getByTestId('button-crm.lead.mark_won').click();
      await expect.poll(() => runs.count).toBe(1);
      expect(runs.bodies[0]).toContain('crm.lead.mark_won');
      runs.stop();
      expect((await getRecord(env, 'storage.document', docId)).current_version).toBe(before);
    });
  });
});
