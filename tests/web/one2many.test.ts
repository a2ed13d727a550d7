/**
 * One2Many lines never offer what the line model cannot do, and never delete silently: the users
 * of an organization cannot be added as lines (a user needs a password no list shows; Save used to
 * end in a raw GraphQL variable error), and removing a saved line asks first, naming the record
 * that Save will delete.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionUrl, adminOrg, axeSerious, describeViolations, login, shot, startWeb, toastText, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
let org: { id: string; code: string };

beforeAll(async () => {
  env = await startWeb();
  page = await env.newPage();
  await login(page);
  org = await adminOrg(env);
});
afterAll(async () => { await env?.close(); });

describe('One2Many lines', () => {
  it('users are not added as lines of an organization (their create needs a password), and removing one asks first', async () => {
    const res = await env.api('POST', '/api/data/res.user', { email: 'line.user@example.com', name: 'Lena Line', password: 'a-long-pass-9876', role: 'user', organization: org.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await page.goto(actionUrl(org.code, 'base.action_organizations', org.id));
    const users = page.getByTestId('o2m-users');
    await users.getByTestId('o2m-row').first().waitFor();
    expect(await page.getByTestId('o2m-add-users').count()).toBe(0);

    // remove Lena: a confirmation names what Save will delete; Cancel keeps the line
    // lines are edited in place: a row's name is the value of its name input
    const rows = users.getByTestId('o2m-row');
    await expect.poll(() => rows.evaluateAll((rs) => rs.some((r) => (r.querySelector('input') as HTMLInputElement | null)?.value === 'Lena Line'))).toBe(true);
    const index = await rows.evaluateAll((rs) => rs.findIndex((r) => (r.querySelector('input') as HTMLInputElement | null)?.value === 'Lena Line'));
    const lena = rows.nth(index);
    await lena.getByTestId('o2m-remove').click();
    const dialog = page.getByTestId('o2m-remove-dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading').textContent()).toBe('Remove Lena Line?');
    expect(await dialog.textContent()).toContain('deletes the user Lena Line');
    await shot(page, 'o2m-remove-confirm', { dark: true, themeByAttribute: true });
    expect(describeViolations(await axeSerious(page))).toBe('');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await rows.evaluateAll((rs) => rs.some((r) => (r.querySelector('input') as HTMLInputElement | null)?.value === 'Lena Line'))).toBe(true);
    expect(await page.getByTestId('dirty-mark').count()).toBe(0);

    // confirmed, then saved: the user is deleted
    await lena.getByTestId('o2m-remove').click();
    await page.getByTestId('o2m-remove-confirm').click();
    await expect.poll(() => rows.evaluateAll((rs) => rs.some((r) => (r.querySelector('input') as HTMLInputElement | null)?.value === 'Lena Line'))).toBe(false);
    await page.getByTestId('dirty-mark').waitFor();
    await page.getByTestId('form-save').click();
    await expect.poll(async () => (await env.api('GET', `/api/data/res.user/${res.body.id}`)).status).toBe(404);
  });

  it('lines added or edited while a save runs survive it, stay unsaved (dirty), and the next save writes them once', async () => {
    const parent = await env.api('POST', '/api/data/storage.folder', { name: 'Held parent' });
    expect(parent.status, JSON.stringify(parent.body)).toBe(201);
    const child = await env.api('POST', '/api/data/storage.folder', { name: 'Child A', parent: parent.body.id });
    expect(child.status, JSON.stringify(child.body)).toBe(201);
    const children = async () => {
      const res = await env.api('GET', `/api/data/storage.folder?filter=${encodeURIComponent(JSON.stringify([['parent', '=', parent.body.id]]))}&limit=50`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.items as Array<{ name: string }>).map((r) => r.name).sort();
    };
    expect(await children()).toEqual(['Child A']);

    await page.goto(actionUrl(org.code, 'storage.action_folders', parent.body.id));
    await page.getByRole('tab', { name: 'Subfolders' }).click();
    const lines = page.getByTestId('o2m-children');
    const names = () => lines.getByTestId('o2m-children-name').evaluateAll((xs) => xs.map((x) => (x as HTMLInputElement).value));
    await expect.poll(names).toEqual(['Child A']);

    // a new line, then Save: its create is held until more lines were typed
    await page.getByTestId('o2m-add-children').click();
    await lines.getByTestId('o2m-children-name').nth(1).fill('Line one');
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    let arrived!: () => void;
    const sent = new Promise<void>((r) => { arrived = r; });
    let holding = true;
    await page.route('**/graphql', async (route) => {
      if (holding && (route.request().postData() ?? '').includes('mutation Create')) { holding = false; arrived(); await held; }
      await route.continue();
    });
    try {
      await page.getByTestId('form-save').click();
      await sent; // the save is on its way with "Line one"
      // while it runs: the stored line edited, the line being created edited again, another line added
      await lines.getByTestId('o2m-children-name').nth(0).fill('Child A edited');
      await lines.getByTestId('o2m-children-name').nth(1).fill('Line one, renamed');
      await page.getByTestId('o2m-add-children').click();
      await lines.getByTestId('o2m-children-name').nth(2).fill('Line two');
      release();
      await expect.poll(() => toastText(page, 'info')).toBe('Saved.');
      // the save wrote what it was sent, no more
      await expect.poll(children).toEqual(['Child A', 'Line one']);
      // and the lines typed meanwhile are still there, unsaved, after the refetch that follows a save
      await expect.poll(() => page.getByTestId('form-view').getAttribute('data-synced')).toBeNull();
      await expect.poll(names).toEqual(['Child A edited', 'Line one, renamed', 'Line two']);
      expect(await page.getByTestId('dirty-mark').count()).toBe(1);
      await shot(page, 'o2m-typed-during-save', { dark: true });
    } finally {
      await page.unroute('**/graphql');
    }
    // the next save writes them: the created line is updated, not created twice
    await page.getByTestId('form-save').click();
    await expect.poll(children).toEqual(['Child A edited', 'Line one, renamed', 'Line two']);
    await expect.poll(() => page.getByTestId('dirty-mark').count()).toBe(0);
    await expect.poll(() => page.getByTestId('form-view').getAttribute('data-synced')).toBe('true');
    expect((await names()).sort()).toEqual(['Child A edited', 'Line one, renamed', 'Line two']);
  });
  it('a line refused after the record was created leaves the form on the created record: the refused line stays unsaved, and the next save creates neither the record nor the saved line again', async () => {
    const named = async (name: string) => {
      const res = await env.api('GET', `/api/data/storage.folder?filter=${encodeURIComponent(JSON.stringify([['name', '=', name]]))}&limit=50`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.items as Array<{ id: string }>;
    };
    const children = async (parent: string) => {
      const res = await env.api('GET', `/api/data/storage.folder?filter=${encodeURIComponent(JSON.stringify([['parent', '=', parent]]))}&limit=50`);
      return (res.body.items as Array<{ name: string }>).map((r) => r.name).sort();
    };
    await page.goto(actionUrl(org.code, 'storage.action_folders', 'new'));
    await page.getByTestId('field-name').locator('input').fill('Partly saved parent');
    await page.getByRole('tab', { name: 'Subfolders' }).click();
    const lines = page.getByTestId('o2m-children');
    // two siblings of the same name: the server creates the record and the first, and refuses the second (FOLDER_NAME_TAKEN)
    await page.getByTestId('o2m-add-children').click();
    await lines.getByTestId('o2m-children-name').nth(0).fill('Twin');
    await page.getByTestId('o2m-add-children').click();
    await lines.getByTestId('o2m-children-name').nth(1).fill('twin');
    await page.getByTestId('form-save').click();
    await expect.poll(() => toastText(page, 'error')).toBeTruthy();
    const [parent] = await named('Partly saved parent');
    expect(parent).toBeTruthy();
    // the form is the created record's now, the refused line still there and unsaved
    await expect.poll(() => page.url()).toContain(parent!.id);
    await page.getByRole('tab', { name: 'Subfolders' }).click();
    const names = () => lines.getByTestId('o2m-children-name').evaluateAll((xs) => xs.map((x) => (x as HTMLInputElement).value));
    await expect.poll(async () => (await names()).sort()).toEqual(['Twin', 'twin']);
    expect(await page.getByTestId('dirty-mark').count()).toBe(1);
    expect(await children(parent!.id)).toEqual(['Twin']);
    await shot(page, 'o2m-line-refused-after-create', { dark: true });
    // renamed, the next save writes only that line: one parent, no second Twin
    await lines.getByTestId('o2m-children-name').nth((await names()).indexOf('twin')).fill('Other');
    await page.getByTestId('form-save').click();
    await expect.poll(() => children(parent!.id)).toEqual(['Other', 'Twin']);
    await expect.poll(() => page.getByTestId('dirty-mark').count()).toBe(0);
    expect(await named('Partly saved parent')).toHaveLength(1);
  });
  it("a refused line is said under its One2Many field, naming the line and its column, never on the parent's field of the same name: a required column left empty before anything is sent, a value the server refuses after; changing the line takes the message away and the next save writes it", async () => {
    const parent = await env.api('POST', '/api/data/storage.folder', { name: 'Refusing parent' });
    expect(parent.status, JSON.stringify(parent.body)).toBe(201);
    await env.api('POST', '/api/data/storage.folder', { name: 'Kept child', parent: parent.body.id });
    const children = async () => {
      const res = await env.api('GET', `/api/data/storage.folder?filter=${encodeURIComponent(JSON.stringify([['parent', '=', parent.body.id]]))}&limit=50`);
      return (res.body.items as Array<{ name: string }>).map((r) => r.name).sort();
    };
    await page.goto(actionUrl(org.code, 'storage.action_folders', parent.body.id));
    await page.getByRole('tab', { name: 'Subfolders' }).click();
    const lines = page.getByTestId('o2m-children');
    await lines.getByTestId('o2m-row').first().waitFor();
    const said = page.getByTestId('error-children');
    // a second line left without its (required) name: said before anything is sent
    await page.getByTestId('o2m-add-children').click();
    await page.getByTestId('form-save').click();
    await expect.poll(() => said.textContent()).toBe('Line 2: Name is required.');
    expect(await said.getAttribute('role')).toBe('alert');
    await expect.poll(() => toastText(page, 'error')).toBe('Line 2: Name is required.');
    expect(await page.getByTestId('error-name').count()).toBe(0);
    expect(await children()).toEqual(['Kept child']);
    // typing in the line takes the message away; a name over its 200 characters is the server's to refuse
    await lines.getByTestId('o2m-children-name').nth(1).fill('x'.repeat(201));
    await expect.poll(() => said.count()).toBe(0);
    await page.getByTestId('form-save').click();
    await expect.poll(() => said.textContent()).toMatch(/^Line 2: Name: \S/);
    // the parent's own name is fine, and says nothing (the line's field problem used to land on it)
    expect(await page.getByTestId('error-name').count()).toBe(0);
    await shot(page, 'o2m-line-refused-said', { dark: true, themeByAttribute: true });
    expect(describeViolations(await axeSerious(page))).toBe('');
    await page.setViewportSize({ width: 390, height: 844 });
    await said.scrollIntoViewIfNeeded();
    await shot(page, 'o2m-line-refused-said-phone', { dark: true, themeByAttribute: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    // fixed, the next save writes the line (a refusal kept by the form would have made every later Save invalid)
    await lines.getByTestId('o2m-children-name').nth(1).fill('Named now');
    await page.getByTestId('form-save').click();
    await expect.poll(children).toEqual(['Kept child', 'Named now']);
    await expect.poll(() => page.getByTestId('dirty-mark').count()).toBe(0);
    expect(await said.count()).toBe(0);
  });

  it("on a new record, a line refused after the record was created is said on the created record's form", async () => {
    await page.goto(actionUrl(org.code, 'storage.action_folders', 'new'));
    await page.getByTestId('field-name').locator('input').fill('New with a refused line');
    await page.getByRole('tab', { name: 'Subfolders' }).click();
    await page.getByTestId('o2m-add-children').click();
    await page.getByTestId('o2m-children').getByTestId('o2m-children-name').nth(0).fill('y'.repeat(201));
    await page.getByTestId('form-save').click();
    await expect.poll(() => page.url()).not.toContain('/new');
    await page.getByRole('tab', { name: 'Subfolders' }).click();
    await expect.poll(() => page.getByTestId('error-children').textContent()).toMatch(/^Line 1: Name: \S/);
    expect(await page.getByTestId('error-name').count()).toBe(0);
    expect(await page.getByTestId('dirty-mark').count()).toBe(1);
  });
});
