/**
 * Documents in the browser: uploads by drag and drop (with a progress bar) and by the picker,
 * download of the current and of any earlier version, a new version with a change note and the
 * version history, folders (create, browse, move a document by dragging or from its row, a
 * non-empty folder refused with a readable message).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { actionUrl, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

let env: WebEnv;
let page: Page;
const DOCS = actionUrl('default', 'storage.action_documents');

beforeAll(async () => {
  env = await startWeb();
  page = await env.newPage();
  await login(page);
});
afterAll(async () => { await env?.close(); });

const docs = async () => (await env.api('GET', '/api/storage/documents?limit=100')).body.items as Array<Record<string, any>>;
const row = (name: string) => page.getByTestId('document-row').filter({ hasText: name });

/** Drops files on the documents list as a desktop file manager would. */
async function dropFiles(files: Array<{ name: string; type: string; text: string }>) {
  const dt = await page.evaluateHandle((fs) => {
    const d = new DataTransfer();
    for (const f of fs) d.items.add(new File([f.text], f.name, { type: f.type }));
    return d;
  }, files);
  await page.dispatchEvent('[data-testid="dropzone"]', 'dragover', { dataTransfer: dt });
  await page.dispatchEvent('[data-testid="dropzone"]', 'drop', { dataTransfer: dt });
}

async function downloadText(trigger: () => Promise<unknown>): Promise<{ name: string; text: string }> {
  const [d] = await Promise.all([page.waitForEvent('download'), trigger()]);
  const stream = await d.createReadStream();
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return { name: d.suggestedFilename(), text: Buffer.concat(chunks).toString('utf8') };
}

describe('documents', () => {
  it('a file dropped on the list is uploaded with a progress bar and listed', async () => {
    await page.goto(DOCS);
    await page.getByTestId('folder-tree').waitFor();
    // the bar may come and go within one frame on loopback: record that it was shown
    await page.evaluate(() => {
      const w = window as unknown as { sawProgress: boolean };
      w.sawProgress = false;
      new MutationObserver(() => { if (document.querySelector('[data-testid="upload-progress"] progress')) w.sawProgress = true; })
        .observe(document.body, { childList: true, subtree: true });
    });
    await dropFiles([{ name: 'dropped.txt', type: 'text/plain', text: 'dropped content '.repeat(20_000) }]);
    await row('dropped.txt').waitFor();
    expect(await page.evaluate(() => (window as unknown as { sawProgress: boolean }).sawProgress)).toBe(true);
    const doc = (await docs()).find((d) => d.name === 'dropped.txt')!;
    expect(doc.file_size).toBe('dropped content '.repeat(20_000).length);
    expect(doc.content_type).toBe('text/plain');
  });

  it('the Upload button opens a picker; the file is stored and downloads with the same bytes', async () => {
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('upload-button').click()]);
    await chooser.setFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Notes\nv1') });
    await row('notes.md').waitFor();
    const got = await downloadText(() => row('notes.md').getByTestId('doc-download').click());
    expect(got).toEqual({ name: 'notes.md', text: '# Notes\nv1' });
  });

  it('a new version with a change note becomes current; the history lists both and downloads v1', async () => {
    await row('notes.md').getByTestId('doc-more').click();
    await page.getByTestId('doc-new-version').click();
    const dialog = page.getByTestId('version-dialog');
    await dialog.getByTestId('version-file').setInputFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Notes\nv2') });
    await dialog.getByTestId('version-note').fill('second draft');
    await dialog.getByTestId('version-upload').click();
    await expect.poll(async () => (await docs()).find((d) => d.name === 'notes.md')?.current_version).toBe(2);
    await expect.poll(() => row('notes.md').innerText()).toContain('2');
    expect((await downloadText(() => row('notes.md').getByTestId('doc-download').click())).text).toBe('# Notes\nv2');

    await row('notes.md').getByTestId('doc-more').click();
    await page.getByTestId('doc-history').click();
    const history = page.getByTestId('history-dialog');
    await expect.poll(() => history.getByTestId('version-row').count()).toBe(2);
    expect(await history.getByTestId('version-row').first().innerText()).toContain('second draft');
    await shot(page, 'documents-history'); // light only: the theme button is inert behind the dialog
    expect((await downloadText(() => history.getByTestId('version-download-1').click())).text).toBe('# Notes\nv1');
    await page.keyboard.press('Escape');
  });

  it('folders: create one, drag a document onto it, browse it; No folder no longer lists the document', async () => {
    await page.getByTestId('new-folder').click();
    await page.getByTestId('folder-name').fill('Contracts');
    await page.getByTestId('folder-create').click();
    const folder = page.getByTestId('folder-Contracts');
    await folder.waitFor();
    await row('notes.md').dragTo(folder);
    await expect.poll(async () => (await docs()).find((d) => d.name === 'notes.md')?.folder).toBeTruthy();
    await folder.click();
    await expect.poll(() => page.getByTestId('document-row').count()).toBe(1);
    expect(await page.getByTestId('document-row').innerText()).toContain('notes.md');
    await page.getByTestId('folder-No folder').click();
    await expect.poll(() => page.getByTestId('document-row').allInnerTexts()).not.toContainEqual(expect.stringContaining('notes.md'));
    await shot(page, 'documents', { dark: true });
  });

  it('a document moves from its row without a mouse drag (keyboard path)', async () => {
    await page.getByTestId('folder-All documents').click();
    await row('dropped.txt').getByTestId('doc-move').selectOption({ label: 'Contracts' });
    const contracts = (await env.api('GET', '/api/data/storage.folder?limit=10')).body.items.find((f: any) => f.name === 'Contracts');
    await expect.poll(async () => (await docs()).find((d) => d.name === 'dropped.txt')?.folder).toBe(contracts.id);
  });

  it('deleting a folder that still holds documents is refused with a sentence naming what it holds', async () => {
    await page.getByTestId('folder-Contracts').click();
    await page.getByTestId('delete-folder').click();
    const error = page.getByTestId('toast-error');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/still holds 2 documents/);
    expect(await error.innerText()).not.toMatch(/[{}]|FOLDER_NOT_EMPTY/);
    expect((await env.api('GET', '/api/data/storage.folder?limit=10')).body.items.map((f: any) => f.name)).toContain('Contracts');
  });
});
