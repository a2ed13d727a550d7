import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/kernel/errors.js';
import { ImportUnsupported, parsePlaywrightScript } from '../../src/apps/qa/import/playwright.js';
import { checkStep, type LocatorChain, type StepData } from '../../src/apps/qa/steps.js';

/**
 * `fw e2e import`: Playwright codegen scripts (tests/qa/fixtures/import/*.codegen.txt — not `.ts`,
 * since tsconfig type-checks tests/ and @playwright/test is not a dependency) → steps.
 */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'import');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
const load = (name: string) => parsePlaywrightScript(fixture(name), name);

/** A step as checkStep normalises it. */
const S = (s: Partial<StepData> & Pick<StepData, 'kind'>): StepData => ({
  target: null, value: null, assertion: null, timeout_ms: null, screenshot: 'always', caption: null, url: null, ...s,
});
const on = (...chain: LocatorChain) => ({ candidates: [chain] });
const lit = (value: string) => ({ kind: 'literal' as const, value });
const testid = (value: string) => ({ by: 'testid' as const, value });
const role = (value: string, name?: string, exact?: boolean) => ({ by: 'role' as const, value, ...(name === undefined ? {} : { name }), ...(exact === undefined ? {} : { exact }) });

/** The refusal of `source`: its error, checked to be an ImportUnsupported. */
function refusal(source: string): ImportUnsupported {
  try {
    parsePlaywrightScript(source, 'script.ts');
  } catch (err) {
    expect(err).toBeInstanceOf(ImportUnsupported);
    return err as ImportUnsupported;
  }
  throw new Error('the script was accepted');
}

/** A codegen script whose test body starts at line 5 with `body`. */
const script = (body: string) => `import { test, expect } from '@playwright/test';

test('t', async ({ page }) => {
  await page.goto('http://localhost:3000/');
${body}
});
`;

describe('fw e2e import: a codegen script → steps', () => {
  it('turns a realistic flow (create an organization, edit it, upload a document) into exactly its steps', () => {
    const r = load('organizations.codegen.txt');
    expect(r.name).toBe('create, edit and document an organization');
    expect(r.start_path).toBe('/acme/action/base.organization?view=list');
    expect(r.steps).toEqual([
      S({ kind: 'chapter', caption: 'Create an organization' }),
      S({ kind: 'navigate', value: lit('/acme/action/base.organization?view=list'), caption: 'Open the list of organizations' }),
      S({ kind: 'click', target: on(role('button', 'New')) }),
      S({ kind: 'click', target: on({ by: 'label', value: 'Name' }) }),
      S({ kind: 'fill', target: on({ by: 'label', value: 'Name' }), value: lit('Globex') }),
      S({ kind: 'press', target: on({ by: 'label', value: 'Name' }), value: lit('Tab') }),
      S({ kind: 'fill', target: on({ by: 'label', value: 'Code' }), value: lit('GLX') }),
      S({ kind: 'select', target: on(role('combobox', 'Country')), value: lit('FR') }),
      S({ kind: 'check', target: on(role('checkbox', 'Active')) }),
      S({ kind: 'click', target: on(role('button', 'Save')), caption: 'Save the new organization' }),
      S({ kind: 'assert', target: on(testid('toast-success')), assertion: { kind: 'visible' } }),
      S({ kind: 'chapter', caption: 'Edit it' }),
      S({ kind: 'fill', target: on(testid('field-name'), role('textbox')), value: lit('Globex Corporation') }),
      S({ kind: 'click', target: on(role('button', 'Save')) }),
      S({ kind: 'assert', target: on(testid('view-title')), assertion: { kind: 'text', expected: 'Globex Corporation' } }),
      S({ kind: 'chapter', caption: 'Attach a document' }),
      S({ kind: 'click', target: on(testid('upload-button')) }),
      S({ kind: 'upload', target: on(testid('version-file')), value: lit('contract.pdf') }),
      S({ kind: 'fill', target: on({ by: 'placeholder', value: 'Note' }), value: lit('Signed contract') }),
      S({ kind: 'click', target: on(testid('version-upload')) }),
      S({ kind: 'assert', target: on(testid('version-row')), assertion: { kind: 'count', expected: 1 } }),
      S({ kind: 'assert', target: on(testid('version-row'), { by: 'nth', value: '0' }), assertion: { kind: 'contains_text', expected: 'contract.pdf' } }),
      S({ kind: 'navigate', value: lit('/acme/action/base.organization?view=list'), caption: 'Back to the list: the renamed organization is there' }),
      S({ kind: 'assert', assertion: { kind: 'url', expected: '/acme/action/base.organization?view=list' } }),
      S({ kind: 'assert', target: on(role('row', 'Globex Corporation')), assertion: { kind: 'visible' } }),
    ]);
    // what the CLI hands to qa.usecase.import is what checkStep accepts, unchanged
    for (const s of r.steps) expect(checkStep(s as unknown as Record<string, unknown>)).toEqual(s);
  });

  it('supports every locator, action and assertion of the grammar', () => {
    const r = load('grammar.codegen.txt');
    expect(r.start_path).toBe('/acme/');
    const cb = (name: string) => role('checkbox', name);
    expect(r.steps).toEqual([
      S({ kind: 'navigate', value: lit('/acme/') }),
      S({ kind: 'navigate', value: lit('/acme/action/base.partner?view=kanban#top') }),
      S({ kind: 'click', target: on(role('link', 'Partners', true)) }),
      S({ kind: 'fill', target: on(testid('search-input')), value: { kind: 'variable', value: 'partner_name' } }),
      S({ kind: 'fill', target: on({ by: 'label', value: 'Email', exact: true }), value: lit('Hello {{name}}') }),
      S({ kind: 'fill', target: on({ by: 'placeholder', value: 'Search…' }), value: lit('it\'s "quoted"') }),
      S({ kind: 'fill', target: on({ by: 'placeholder', value: 'Search…' }), value: lit('') }),
      S({ kind: 'click', target: on({ by: 'text', value: 'Acme Corp', exact: false }) }),
      S({ kind: 'hover', target: on({ by: 'title', value: 'Settings' }) }),
      S({ kind: 'click', target: on({ by: 'alt', value: 'Company logo' }), timeout_ms: 5000 }),
      S({ kind: 'click', target: on({ by: 'css', value: '#main .card' }, { by: 'nth', value: '0' }) }),
      S({ kind: 'click', target: on({ by: 'css', value: 'tr' }, { by: 'nth', value: '-1' }) }),
      S({ kind: 'click', target: on({ by: 'css', value: 'tr' }, { by: 'nth', value: '2' }) }),
      S({ kind: 'click', target: on({ by: 'css', value: 'tr' }, { by: 'nth', value: '-2' }) }),
      S({ kind: 'click', target: on(role('row', 'Acme'), role('button', 'Edit')) }),
      S({ kind: 'press', target: on({ by: 'label', value: 'Notes' }), value: lit('Control+Enter') }),
      S({ kind: 'press', value: lit('Escape') }),
      S({ kind: 'check', target: on(cb('Active')) }),
      S({ kind: 'uncheck', target: on(cb('Active')) }),
      S({ kind: 'check', target: on(cb('Archived')) }),
      S({ kind: 'uncheck', target: on(cb('Archived')) }),
      S({ kind: 'select', target: on({ by: 'label', value: 'Country' }), value: lit('FR') }),
      S({ kind: 'select', target: on({ by: 'label', value: 'Tags' }), value: lit('vip') }),
      S({ kind: 'upload', target: on(testid('version-file')), value: lit('contract.pdf') }),
      S({ kind: 'upload', target: on(testid('version-file')), value: lit('logo.png') }),
      S({ kind: 'assert', target: on(testid('view-title')), assertion: { kind: 'visible' } }),
      S({ kind: 'assert', target: on(testid('spinner')), assertion: { kind: 'hidden' }, timeout_ms: 10000 }),
      S({ kind: 'assert', target: on(testid('spinner')), assertion: { kind: 'hidden' } }),
      S({ kind: 'assert', target: on(testid('view-title')), assertion: { kind: 'visible' } }),
      S({ kind: 'assert', target: on(testid('view-title')), assertion: { kind: 'text', expected: 'Partners' } }),
      S({ kind: 'assert', target: on(testid('toaster')), assertion: { kind: 'contains_text', expected: 'Saved' } }),
      S({ kind: 'assert', target: on({ by: 'label', value: 'Email' }), assertion: { kind: 'value', expected: 'ann@example.com' } }),
      S({ kind: 'assert', target: on(testid('list-row')), assertion: { kind: 'count', expected: 0 } }),
      S({ kind: 'assert', target: on(cb('Active')), assertion: { kind: 'checked' } }),
      S({ kind: 'assert', target: on(role('button', 'Save')), assertion: { kind: 'enabled' } }),
      S({ kind: 'assert', target: on(role('button', 'Delete')), assertion: { kind: 'disabled' } }),
      S({ kind: 'assert', target: on(role('button', 'Save')), assertion: { kind: 'disabled' } }),
      S({ kind: 'assert', target: on(role('button', 'Delete')), assertion: { kind: 'enabled' } }),
      S({ kind: 'assert', assertion: { kind: 'url', expected: '/acme/action/base.partner?view=kanban' } }),
      S({ kind: 'assert', assertion: { kind: 'url', expected: '/acme/' } }),
    ]);
  });

  it('reads captions and chapters from comments', () => {
    const r = load('captions.codegen.txt');
    expect(r.steps.map((s) => [s.kind, s.caption])).toEqual([
      ['chapter', 'Sign-in free tour'],
      ['navigate', 'Open the home page'],
      ['click', 'Open the menu of applications'],
      ['click', 'Pick the theme that suits you (dark mode)'],
      ['click', null],
      ['chapter', 'Check'],
      ['chapter', 'Really check'],
      ['assert', null],
    ]);
  });

  it('never stores a typed password: a literal filled into a password-looking field is the secret "password"', () => {
    const source = fixture('login.codegen.txt');
    const r = parsePlaywrightScript(source, 'login.ts');
    const secret = { kind: 'secret', value: 'password' };
    expect(r.steps.map((s) => s.value)).toEqual([
      lit('/login'),
      lit('admin@example.com'),
      secret, // getByLabel('Password')
      secret, // getByRole('textbox', { name: 'Confirm password' }).pressSequentially
      secret, // locator('input[type="password"]')
      secret, // getByTestId('api-key')
      { kind: 'variable', value: 'admin_password' }, // a variable names no secret: kept
      lit('Enter'), // a key pressed in the field is not a secret
      lit('Ann Smith'), // "Passenger" is not a password field
      null,
    ]);
    const stored = JSON.stringify(r.steps);
    expect(stored).not.toContain('hunter2');
    expect(stored).not.toContain('sk-live');
    // and an assertion that would store it is refused
    const e = refusal(script("  await expect(page.getByLabel('Password')).toHaveValue('hunter2');"));
    expect(e.message).toBe('line 5: toHaveValue(…) on a password field would store the password');
  });

  it('refuses with a ValidationError (QA_IMPORT_UNSUPPORTED) naming line, column and text', () => {
    const e = refusal(script("  await page.evaluate(() => document.title);"));
    expect(e).toBeInstanceOf(ValidationError);
    expect(e.code).toBe('QA_IMPORT_UNSUPPORTED');
    expect(e.status).toBe(422);
    expect(e.message).toBe('line 5: page.evaluate(…) is not a recorded browser action (a step is data, never code)');
    expect(e.details).toMatchObject({ line: 5, column: 14, text: 'page.evaluate(() => document.title)' });
  });

  it('refuses a codegen popup (a variable) on its line', () => {
    const e = refusal(fixture('popup.codegen.txt'));
    expect(e.message).toBe("line 6: a variable (const page1Promise = page.waitForEvent('popup');) is not a recorded browser action");
    expect(e.details).toMatchObject({ line: 6, column: 3, text: "const page1Promise = page.waitForEvent('popup');" });
  });

  const refused: [string, string, number, RegExp][] = [
    ['page.evaluate', '  await page.evaluate(() => 1);', 5, /page\.evaluate\(…\) is not a recorded browser action/],
    ['page.waitForTimeout', '  await page.waitForTimeout(1000);', 5, /page\.waitForTimeout\(…\) is not a recorded browser action \(a replay waits/],
    ['page.waitForURL', "  await page.waitForURL('**/x');", 5, /page\.waitForURL\(…\) is not a recorded browser action/],
    ['page.reload', '  await page.reload();', 5, /page\.reload\(\) is not a recorded browser action/],
    ['a deprecated page-level action', "  await page.click('#save');", 5, /page\.click\(…\) is not a recorded browser action/],
    ['a variable', "  const name = 'x';", 5, /a variable \(const name = 'x';\) is not a recorded browser action/],
    ['a loop', "  for (const n of [1, 2]) {\n    await page.getByText('x').click();\n  }", 5, /a loop \(for \(const n of \[1, 2\]\) \{\) is not a recorded/],
    ['a conditional', "  if (true) await page.getByText('x').click();", 5, /a conditional \(if \(true\).*\) is not a recorded browser action/],
    ['a nested function', '  function f() {}', 5, /a function \(function f\(\) \{\}\) is not a recorded/],
    ['a try statement', '  try { await page.getByText("x").click(); } catch {}', 5, /a try statement/],
    ['another object', "  await context.newPage();", 5, /context\.newPage\(\) is not a recorded browser action \(only page\.… and expect\(…\) are\)/],
    ['a non-awaited action', "  page.getByRole('button').click();", 5, /page\.getByRole\(…\)\.click\(\) is not awaited/],
    ['a bare expression', '  await 1;', 5, /await 1 is not a recorded browser action/],
    ['a non-literal argument', "  await page.getByLabel('Name').fill(name);", 5, /fill\(…\): name is a variable, not a string literal/],
    ['a computed argument', "  await page.getByLabel('Name').fill('a' + 'b');", 5, /fill\(…\): 'a' \+ 'b' is not a string literal/],
    ['a template literal with ${…}', "  await page.getByLabel('Name').fill(`x${1}`);", 5, /a template literal with \$\{…\} is not a literal/],
    ['a regular expression', "  await page.getByRole('button', { name: /save/i }).click();", 5, /getByRole\(…\) option name: a regular expression is not supported/],
    ['filter({ hasText })', "  await page.getByRole('row')\n    .filter({ hasText: 'Acme' })\n    .click();", 6, /filter\(…\) is not a supported locator: a step's locator chain has no filter/],
    ['dblclick', "  await page.getByText('Acme').dblclick();", 5, /dblclick\(…\) is not a supported action: a step has no double click/],
    ['an unknown action', "  await page.getByText('Acme').focus();", 5, /focus\(…\) is not a supported action \(supported: click, fill/],
    ['an unknown locator', "  await page.getByRole('row').locatorFor('x').click();", 5, /locatorFor\(…\) is not a supported locator/],
    ['a locator without action', "  await page.getByRole('button');", 5, /page\.getByRole\(…\) has no action/],
    ['frameLocator', "  await page.frameLocator('#f').getByText('x').click();", 5, /frameLocator\(…\) is not a supported locator \(frames are not supported\)/],
    ['page.mouse', '  await page.mouse.click(10, 20);', 5, /page\.mouse is not a recorded browser action/],
    ['page.keyboard.type', "  await page.keyboard.type('hello');", 5, /page\.keyboard\.type\(…\) is not supported: of page\.keyboard only press\(key\) is/],
    ['an unsupported option', "  await page.getByText('x').click({ button: 'right' });", 5, /click\(…\): the option "button" is not supported \(supported: timeout\)/],
    ['an unsupported locator option', "  await page.getByRole('checkbox', { checked: true }).click();", 5, /getByRole\(…\): the option "checked" is not supported \(supported: name, exact\)/],
    ['locator options', "  await page.locator('tr', { hasText: 'x' }).click();", 5, /locator\(…\) takes 1 argument here, not 2 \(options \(has, hasText\) are not supported\)/],
    ['two files at once', "  await page.getByTestId('f').setInputFiles(['a.pdf', 'b.pdf']);", 5, /setInputFiles\(…\) takes one file per step, not 2/],
    ['optional chaining', "  await page.getByText('x')?.click();", 5, /optional chaining/],
    ['expect.soft', "  await expect.soft(page.getByText('x')).toBeVisible();", 5, /expect\.soft\(…\)\.toBeVisible\(\) is not supported/],
    ['expect with a message', "  await expect(page.getByText('x'), 'shown').toBeVisible();", 5, /expect\(…\) takes one subject \(a custom message is not supported\)/],
    ['an unknown matcher', "  await expect(page.getByText('x')).toHaveAttribute('href', '/');", 5, /toHaveAttribute\(…\) is not a supported assertion/],
    ['a negated text matcher', "  await expect(page.getByText('x')).not.toHaveText('y');", 5, /expect\(…\)\.not\.toHaveText\(…\) is not supported/],
    ['toBeChecked({ checked: false })', "  await expect(page.getByRole('checkbox')).toBeChecked({ checked: false });", 5, /toBeChecked\(…\): the option "checked" is not supported/],
    ['a non-integer count', "  await expect(page.getByText('x')).toHaveCount(1.5);", 5, /toHaveCount\(…\): 1\.5 is not a whole number literal/],
    ['a page matcher other than toHaveURL', "  await expect(page).toHaveTitle('x');", 5, /toHaveTitle\(…\) is not a supported assertion/],
    ['toHaveURL with a regex', '  await expect(page).toHaveURL(/orgs/);', 5, /toHaveURL\(…\): a regular expression is not supported/],
    ['a subject that is not page', "  await expect(page1.getByText('x')).toBeVisible();", 5, /the subject must be page\.<locator> or page/],
    ['another site', "  await page.goto('https://example.com/');", 5, /https:\/\/example\.com is another site than http:\/\/localhost:3000/],
    ['a URL that is not http', "  await page.goto('about:blank');", 5, /"about:blank" is neither an http\(s\) URL nor a path starting with \//],
    ['a chain longer than a step allows', `  await page${".locator('div')".repeat(9)}.click();`, 5, /invalid step: target\.candidates\[0\] must be a chain of 1 to 8 locator segments/],
    ['a chapter at the end of a line', "  await page.getByText('x').click(); // chapter: Late", 5, /a "chapter:" comment goes on its own line above a statement/],
    ['an empty caption', "  // caption:\n  await page.getByText('x').click();", 5, /a "caption:" comment needs text/],
    ['a caption that precedes nothing', "  await page.getByText('x').click();\n  // caption: and then?", 6, /must precede a statement of the test/],
  ];
  it.each(refused)('refuses %s with its line', (_label, body, line, message) => {
    const e = refusal(script(body));
    expect(e.message).toMatch(new RegExp(`^line ${line}: `));
    expect(e.message).toMatch(message);
    expect(e.details.line).toBe(line);
  });

  const whole: [string, string, number, RegExp][] = [
    ['a script without a test', "import { test } from '@playwright/test';\n", 1, /no test found/],
    ['an empty test', "import { test } from '@playwright/test';\ntest('t', async ({ page }) => {\n  // nothing\n});\n", 2, /the test has no steps/],
    ['a second test', `${script("  await page.getByText('x').click();")}\ntest('u', async ({ page }) => {\n  await page.goto('/');\n});\n`, 8, /a second test\(…\): a script holds exactly one test/],
    ['test.describe', "import { test } from '@playwright/test';\ntest.describe('d', () => {});\n", 2, /test\.describe\(…\) is not supported: a script holds one test/],
    ['another import', "import { test } from '@playwright/test';\nimport { login } from './helpers';\n", 2, /import from "\.\/helpers" is not allowed/],
    ['a top-level variable', "import { test } from '@playwright/test';\nconst base = 'http://localhost:3000';\n", 2, /a variable \(const base = .*\) at the top level is not part of a recorded test/],
    ['a library-mode script', "const { chromium } = require('playwright');\n(async () => {})();\n", 1, /a variable .* at the top level/],
    ['a test without a function', "import { test } from '@playwright/test';\ntest('t');\n", 2, /test\(…\) takes a title and a function/],
    ['a non-async test', "import { test } from '@playwright/test';\ntest('t', ({ page }) => {\n  page.goto('/');\n});\n", 2, /the test function must be async/],
    ['an expression body', "import { test } from '@playwright/test';\ntest('t', async ({ page }) => page.goto('/'));\n", 2, /the test body must be a block/],
    ['other fixtures', "import { test } from '@playwright/test';\ntest('t', async ({ page, context }) => {\n  await page.goto('/');\n});\n", 2, /the test function takes \(\{ page \}\) and nothing else/],
    ['a syntax error', "import { test } from '@playwright/test';\ntest('t', async ({ page }) => {\n  await page.goto('/';\n});\n", 3, /syntax error: /],
  ];
  it.each(whole)('refuses %s with its line', (_label, source, line, message) => {
    const e = refusal(source);
    expect(e.message).toMatch(new RegExp(`^line ${line}: `));
    expect(e.message).toMatch(message);
    expect(e.details.line).toBe(line);
  });

  it('points the column at the refused link of a chain', () => {
    const e = refusal(script("  await page.getByRole('row', { name: 'Acme' }).filter({ hasText: 'x' }).click();"));
    expect(e.details).toMatchObject({ line: 5, column: 49, text: "page.getByRole('row', { name: 'Acme' }).filter({ hasText: 'x' })" });
  });

  it('honours renamed imports of test and expect', () => {
    const r = parsePlaywrightScript("import { test as it, expect as check } from '@playwright/test';\nit('t', async ({ page }) => {\n  await check(page).toHaveURL('/x');\n});\n", 's.ts');
    expect(r.steps).toEqual([S({ kind: 'assert', assertion: { kind: 'url', expected: '/x' } })]);
    expect(r.start_path).toBeNull();
  });
});
