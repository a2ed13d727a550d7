/**
 * Documents in the browser: uploads by drag and drop (with a progress bar) and by the picker,
 * download of the current and of any earlier version, a new version with a change note and the
 * version history, folders (create, browse, move a document by dragging or from its row, a
 * non-empty folder refused with a readable message); a row opens the document's details
 * (metadata, versions, a preview by kind: text, image, PDF in a frame, else a download), rename,
 * archive/restore with archived documents hidden unless asked for, delete after a confirmation
 * naming the document; the size column reads "Size" in human units.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { actionUrl, axeSerious, describeViolations, login, shot, startWeb, type WebEnv } from './helpers/browser.ts';

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

  it('the size column is headed "Size" and a small file reads "20 bytes", not "Size (bytes)" over "20 byte"', async () => {
    await upload('twenty.bin', 'application/octet-stream', Buffer.from('0123456789abcdefghij'));
    await page.getByTestId('folder-All documents').click();
    await row('twenty.bin').waitFor();
    const headers = await page.getByTestId('documents-table').locator('thead th').allInnerTexts();
    expect(headers).toContain('Size');
    expect(headers.join('|')).not.toContain('bytes');
    expect(await row('twenty.bin').innerText()).toContain('20 bytes');
  });

  it('clicking a row opens its details: metadata, the versions and the text itself as preview', async () => {
    await row('notes.md').locator('td').first().click();
    const details = page.getByTestId('document-details');
    await details.waitFor();
    expect(await details.getByRole('heading').first().innerText()).toContain('notes.md');
    expect(await details.getByTestId('details-meta').innerText()).toMatch(/text\/markdown[\s\S]*Size\s+\d+ bytes/);
    await expect.poll(() => details.getByTestId('preview-text').innerText()).toBe('# Notes\nv2');
    await expect.poll(() => details.getByTestId('version-row').count()).toBe(2);
    expect((await downloadText(() => details.getByTestId('version-download-1').click())).text).toBe('# Notes\nv1');
    expect(describeViolations(await axeSerious(page))).toBe('');
    await page.keyboard.press('Escape');
    await details.waitFor({ state: 'detached' });
    // the keyboard opens it too
    await row('notes.md').focus();
    await page.keyboard.press('Enter');
    await details.waitFor();
    await details.getByTestId('details-close').click();
  });

  it('an image previews inline and a PDF in a frame from a blob URL, with no Content-Security-Policy violation; other files offer a download', async () => {
    await page.evaluate(() => {
      const w = window as unknown as { cspViolations: string[] };
      w.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => w.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await upload('chart.svg', 'image/svg+xml', Buffer.from(SVG));
    await upload('report.pdf', 'application/pdf', Buffer.from(PDF));
    await upload('archive.zip', 'application/zip', Buffer.from('PK\u0003\u0004 not really a zip'));
    await row('chart.svg').locator('td').first().click();
    const details = page.getByTestId('document-details');
    const img = details.getByTestId('preview-image');
    await img.waitFor();
    expect(await img.getAttribute('src')).toMatch(/^blob:/);
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    await shot(page, 'documents-details-image', { dark: true, themeByAttribute: true });
    await details.getByTestId('details-close').click();

    await row('report.pdf').locator('td').first().click();
    const frame = details.getByTestId('preview-pdf');
    await frame.waitFor();
    expect(await frame.getAttribute('src')).toMatch(/^blob:/);
    expect(await frame.getAttribute('title')).toContain('report.pdf');
    await page.waitForTimeout(500);
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
    await shot(page, 'documents-details-pdf', { themeByAttribute: true });
    await details.getByTestId('details-close').click();

    await row('archive.zip').locator('td').first().click();
    expect(await details.getByTestId('preview-none').innerText()).toContain('application/zip');
    expect((await downloadText(() => details.getByTestId('details-download').click())).text).toContain('not really a zip');
    await details.getByTestId('details-close').click();
  });

  it('renaming from the details changes the document name (the file name stays)', async () => {
    await row('archive.zip').locator('td').first().click();
    const details = page.getByTestId('document-details');
    await details.getByTestId('details-name').fill('Old archive');
    await details.getByTestId('details-rename').click();
    await expect.poll(async () => (await docs()).find((d) => d.original_filename === 'archive.zip')?.name).toBe('Old archive');
    await expect.poll(() => details.getByRole('heading').first().innerText()).toContain('Old archive');
    await row('Old archive').waitFor();
    await details.getByTestId('details-close').click();
  });

  it('archiving hides the document; "show archived" lists it marked, and restoring brings it back', async () => {
    await row('Old archive').locator('td').first().click();
    await page.getByTestId('details-archive').click();
    await page.getByTestId('document-details').waitFor({ state: 'detached' });
    await expect.poll(() => row('Old archive').count()).toBe(0);
    const all = (await env.api('GET', '/api/storage/documents?include_inactive=true&limit=100')).body.items as Array<Record<string, any>>;
    expect(all.find((d) => d.name === 'Old archive')?.is_active).toBe(false);
    await page.getByTestId('show-archived').click();
    await row('Old archive').getByTestId('row-archived').waitFor();
    expect(describeViolations(await axeSerious(page))).toBe('');
    await shot(page, 'documents-archived', { dark: true });
    await row('Old archive').locator('td').first().click();
    await page.getByTestId('details-archived').waitFor();
    await page.getByTestId('details-unarchive').click();
    await expect.poll(async () => (await docs()).find((d) => d.name === 'Old archive')?.is_active).toBe(true);
    await page.getByTestId('details-close').click();
    await page.getByTestId('show-archived').click();
    await row('Old archive').waitFor();
  });

  it('delete asks first, naming the document; Cancel keeps it, Delete removes it', async () => {
    await row('Old archive').locator('td').first().click();
    await page.getByTestId('details-delete').click();
    const confirm = page.getByTestId('delete-dialog');
    await confirm.waitFor();
    expect(await confirm.getByRole('heading').innerText()).toBe('Delete Old archive?');
    expect(describeViolations(await axeSerious(page))).toBe('');
    await confirm.getByTestId('delete-cancel').click();
    expect((await docs()).some((d) => d.name === 'Old archive')).toBe(true);
    // back on the details; delete from the row menu this time
    await page.getByTestId('details-close').click();
    await row('Old archive').getByTestId('doc-more').click();
    await page.getByTestId('doc-delete').click();
    await confirm.getByTestId('delete-confirm').click();
    await expect.poll(async () => (await docs()).some((d) => d.name === 'Old archive')).toBe(false);
    await expect.poll(() => row('Old archive').count()).toBe(0);
  });
});

async function upload(filename: string, contentType: string, bytes: Buffer) {
  const r = await env.api('POST', '/api/storage/documents', { filename, content_type: contentType, content_b64: bytes.toString('base64') });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="160" viewBox="0 0 320 160">
<rect width="320" height="160" fill="#eef2ff"/><rect x="30" y="90" width="50" height="50" fill="#4338ca"/>
<rect x="110" y="50" width="50" height="90" fill="#0e7490"/><rect x="190" y="20" width="50" height="120" fill="#b45309"/></svg>`;

/** A one-page PDF saying "Quarterly report" (PDFium reads it; the offsets need not be exact). */
const PDF = `%PDF-1.4
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >> endobj
4 0 obj << /Length 52 >> stream
BT /F1 20 Tf 30 100 Td (Quarterly report) Tj ET
endstream endobj
5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj
trailer << /Root 1 0 R >>
%%EOF
`;
