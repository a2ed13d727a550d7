import {
  SyntaxKind, getLeadingCommentRanges, getTrailingCommentRanges,
  isArrayLiteralExpression, isArrowFunction, isAwaitExpression, isBlock, isCallExpression, isEmptyStatement, isExpressionStatement,
  isFunctionExpression, isIdentifier, isImportDeclaration, isNamedImports, isNoSubstitutionTemplateLiteral, isNumericLiteral,
  isObjectBindingPattern, isObjectLiteralExpression, isPrefixUnaryExpression, isPropertyAccessExpression, isPropertyAssignment,
  isRegularExpressionLiteral, isStringLiteral, isTemplateExpression,
  type Block, type CallExpression, type CommentRange, type Expression, type Node, type SourceFile, type Statement,
} from 'typescript/unstable/ast';
import { ValidationError } from '../../../kernel/errors.js';
import { checkStep, type LocatorChain, type LocatorSegment, type StepAssertion, type StepData, type StepValue } from '../steps.js';
import { ImportUnsupported } from './errors.js';
import { parseTypeScript } from './parse-ts.js';

export { ImportUnsupported } from './errors.js';

/**
 * `fw e2e import`: a Playwright codegen script (`npx playwright codegen`, TypeScript target) →
 * steps (src/apps/qa/steps.ts). The script is parsed with the TypeScript compiler and read as data:
 * nothing in it runs. Exactly one `test('name', async ({ page }) => { … })`; each statement of its
 * body is one step. Anything that is not a recorded browser action is refused with its line.
 *
 * The grammar:
 *
 *   statement  := `await page.goto(url)`                          → navigate (path relative to the origin)
 *               | `await page.keyboard.press(key)`                → press (no target)
 *               | `await page.<locator>+.<action>(…)`             → click, fill, press, select, check, uncheck, upload, hover
 *               | `await expect(page.<locator>+).[not.]<matcher>(…)` → assert
 *               | `await expect(page).toHaveURL(url)`             → assert url
 *   locator    := getByRole(role[, { name, exact }]) | getByTestId(id) | getByLabel(text[, { exact }])
 *               | getByPlaceholder(…) | getByText(…) | getByTitle(…) | getByAltText(…) | locator(selector)
 *               | first() | last() | nth(i)
 *
 * Every `page.goto` is a navigate step (the first one's path is also the use case's `start_path`);
 * `first()`/`last()`/`nth(i)` are `nth` segments `0`/`-1`/`i`; `dblclick` and `filter(…)` are refused
 * (no step kind, no locator segment: a text segment would descend, not filter). `clear()` fills '',
 * `pressSequentially`/`type` fill, `setChecked(b)` checks or unchecks, `setInputFiles` uploads the
 * file's base name (one file), `expect(…).not.toBeVisible()` is `hidden` (and the three other
 * flips). A `toHaveURL` expectation keeps path and query, not the #fragment.
 *
 * Arguments are string literals (or template literals without `${…}`) and number literals; the only
 * option every action and matcher takes is `{ timeout: n }` (→ `timeout_ms`). A string that is
 * exactly `{{name}}` is a variable; `{{…}}` inside a longer string stays literal text. A literal
 * filled into a field that looks like a password is stored as the secret `password`, never as typed.
 *
 * Comments: `// chapter: Title` on its own line(s) above a statement adds a chapter step before it;
 * `// caption: Sentence` above a statement (or at the end of its line) is the step's caption.
 * Other comments are ignored. Top level: `import { test, expect } from '@playwright/test'` and
 * `test.use({ … })` (browser options, ignored: a replay uses the QA settings) besides the test.
 */
export interface ImportedScript {
  steps: StepData[];
  /** Path (relative to the origin) of the first `page.goto`, or null when the script has none. */
  start_path: string | null;
  /** The title of the test. */
  name: string;
}

export function parsePlaywrightScript(source: string, fileName: string): ImportedScript {
  const { sourceFile, syntaxErrors } = parseTypeScript(source);
  const importer = new Importer(sourceFile, fileName);
  const first = syntaxErrors[0];
  if (first) importer.fail(first.pos, `syntax error: ${first.message}`);
  return importer.run();
}

const LOCATOR_METHODS = ['getByRole', 'getByTestId', 'getByLabel', 'getByPlaceholder', 'getByText', 'getByTitle', 'getByAltText', 'locator', 'first', 'last', 'nth'] as const;
const TEXT_LOCATORS: Record<string, LocatorSegment['by']> = {
  getByLabel: 'label', getByPlaceholder: 'placeholder', getByText: 'text', getByTitle: 'title', getByAltText: 'alt',
};
const ACTIONS = ['click', 'fill', 'pressSequentially', 'type', 'clear', 'press', 'check', 'uncheck', 'setChecked', 'selectOption', 'setInputFiles', 'hover'] as const;
const MATCHERS = ['toBeVisible', 'toBeHidden', 'toHaveText', 'toContainText', 'toHaveValue', 'toHaveCount', 'toBeChecked', 'toBeEnabled', 'toBeDisabled', 'toHaveURL'] as const;
const VARIABLE = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}$/;
/** A field whose locator says password (or another secret): what is typed into it is never stored. */
const SECRET_FIELD = /pass(word|wd|phrase|code)|\bpass\b|\bpwd\b|secret|token|api[-_ ]?key/i;
const TIMEOUT = { timeout: 'number' } as const;

const REFUSAL_HINTS: Record<string, string> = {
  waitForTimeout: ' (a replay waits for elements by itself: remove the pause)',
  waitForEvent: ' (popups, downloads and dialogs are not supported)',
  evaluate: ' (a step is data, never code)',
  mouse: ' (use a locator action: page.getBy…(…).click())',
  frameLocator: ' (frames are not supported)',
  filter: ': a step\'s locator chain has no filter; narrow with getByRole(role, { name }) / getByText(…) / locator(…) instead',
  dblclick: ': a step has no double click',
};

type OptionType = 'string' | 'boolean' | 'number';
type Options = Record<string, string | boolean | number>;
/** One `.name` or `.name(…)` of a chain, outermost last. */
interface Link { name: string; at: Node; node: Expression; call?: CallExpression }
type StepInput = Omit<StepData, 'screenshot'> & { screenshot?: StepData['screenshot'] };

class Importer {
  private readonly text: string;
  private readonly steps: StepData[] = [];
  private startPath: string | null = null;
  private origin: string | null = null;
  private testName: string | null = null;
  private testCall: CallExpression | null = null;
  private names = { test: 'test', expect: 'expect' };

  constructor(private readonly sf: SourceFile, private readonly fileName: string) {
    this.text = sf.text;
  }

  fail(at: Node | number, message: string, extra: Record<string, unknown> = {}): never {
    const pos = typeof at === 'number' ? at : at.getStart(this.sf);
    const { line, character } = this.sf.getLineAndCharacterOfPosition(Math.min(pos, this.text.length));
    const raw = typeof at === 'number'
      ? this.text.slice(this.sf.getLineStarts()[line] ?? 0).split(/\r?\n/, 1)[0] ?? ''
      : this.construct(at).getText(this.sf);
    const text = raw.trim().replace(/\s*\n\s*/g, ' ').slice(0, 200);
    throw new ImportUnsupported(`line ${line + 1}: ${message}`, { line: line + 1, column: character + 1, text, file: this.fileName, ...extra });
  }

  /** The name of a method points at the method; the construct it names is the call (`page.evaluate(() => 1)`). */
  private construct(at: Node): Node {
    const pa = at.parent;
    if (!isIdentifier(at) || !pa || !isPropertyAccessExpression(pa) || pa.name !== at) return at;
    return pa.parent && isCallExpression(pa.parent) && pa.parent.expression === pa ? pa.parent : pa;
  }

  run(): ImportedScript {
    for (const stmt of this.sf.statements) this.topLevel(stmt);
    if (!this.testCall || this.testName === null) {
      this.fail(0, `no test found: a codegen script holds one ${this.names.test}('name', async ({ page }) => { … })`);
    }
    if (!this.steps.length) this.fail(this.testCall, 'the test has no steps');
    return { steps: this.steps, start_path: this.startPath, name: this.testName };
  }

  // ── top level ──────────────────────────────────────────────────────────────────────────────

  private topLevel(stmt: Statement): void {
    if (isEmptyStatement(stmt)) return;
    if (isImportDeclaration(stmt)) {
      const from = isStringLiteral(stmt.moduleSpecifier) ? stmt.moduleSpecifier.text : stmt.moduleSpecifier.getText(this.sf);
      if (from !== '@playwright/test') this.fail(stmt, `import from "${from}" is not allowed: a codegen script imports only from @playwright/test`);
      const clause = stmt.importClause;
      if (!clause) return;
      if (clause.name || (clause.namedBindings && !isNamedImports(clause.namedBindings))) {
        this.fail(stmt, 'only named imports are supported: import { test, expect } from \'@playwright/test\'');
      }
      for (const spec of clause.namedBindings?.elements ?? []) {
        const imported = (spec.propertyName ?? spec.name).text;
        if (imported === 'test' || imported === 'expect') this.names[imported] = spec.name.text;
      }
      return;
    }
    if (isExpressionStatement(stmt) && isCallExpression(stmt.expression)) {
      const call = stmt.expression;
      const callee = call.expression;
      if (isIdentifier(callee) && callee.text === this.names.test) return this.test(call);
      if (isPropertyAccessExpression(callee) && isIdentifier(callee.expression) && callee.expression.text === this.names.test) {
        if (callee.name.text === 'use' && call.arguments.length === 1 && isObjectLiteralExpression(call.arguments[0]!)) return; // browser options: a replay uses its own
        this.fail(callee.name, `${this.brief(call)} is not supported: a script holds one ${this.names.test}('name', async ({ page }) => { … }) and nothing else`);
      }
    }
    this.fail(stmt, `${this.describe(stmt)} at the top level is not part of a recorded test`);
  }

  private test(call: CallExpression): void {
    if (this.testCall) this.fail(call, `a second ${this.names.test}(…): a script holds exactly one test`);
    this.testCall = call;
    const [title, fn, ...rest] = call.arguments;
    if (!title || !fn || rest.length) this.fail(call, `${this.names.test}(…) takes a title and a function: ${this.names.test}('name', async ({ page }) => { … })`);
    this.testName = this.str(title, `the title of ${this.names.test}(…)`);
    if (!isArrowFunction(fn) && !isFunctionExpression(fn)) this.fail(fn, `the body of ${this.names.test}(…) must be an async function`);
    if (!fn.modifiers?.some((m) => m.kind === SyntaxKind.AsyncKeyword)) this.fail(fn, 'the test function must be async');
    const params = fn.parameters;
    const param = params[0];
    const pageOnly = params.length === 1 && param && !param.dotDotDotToken && !param.initializer && isObjectBindingPattern(param.name)
      && param.name.elements.length === 1
      && param.name.elements.every((el) => !el.dotDotDotToken && !el.initializer && !el.propertyName && el.name && isIdentifier(el.name) && el.name.text === 'page');
    if (!pageOnly) this.fail(param ?? fn, 'the test function takes ({ page }) and nothing else');
    if (!isBlock(fn.body)) this.fail(fn.body, 'the test body must be a block { … }');
    this.body(fn.body);
  }

  // ── the test body ──────────────────────────────────────────────────────────────────────────

  private body(block: Block): void {
    let last: Statement | null = null;
    for (const stmt of block.statements) {
      const { chapters, captions } = this.directives(getLeadingCommentRanges(this.text, stmt.pos), 'leading');
      for (const c of chapters) this.emit(c.pos, { kind: 'chapter', caption: c.text });
      if (isEmptyStatement(stmt)) {
        if (captions[0]) this.fail(captions[0].pos, 'a "caption:" comment must precede a statement');
        continue;
      }
      const own = this.directives(getTrailingCommentRanges(this.text, stmt.end), 'trailing');
      const step = this.step(stmt);
      const caption = [...captions, ...own.captions].map((c) => c.text).join(' ');
      this.emit(stmt, caption ? { ...step, caption } : step);
      last = stmt;
    }
    const after = this.directives(getLeadingCommentRanges(this.text, last ? last.end : block.statements.pos), 'leading');
    const dangling = after.chapters[0] ?? after.captions[0];
    if (dangling) this.fail(dangling.pos, 'a "chapter:" or "caption:" comment must precede a statement of the test');
  }

  /** `// caption: …` and `// chapter: …` comments (also as block comments); others are ignored. */
  private directives(ranges: CommentRange[] | undefined, where: 'leading' | 'trailing') {
    const chapters: { pos: number; text: string }[] = [];
    const captions: { pos: number; text: string }[] = [];
    for (const r of ranges ?? []) {
      const raw = this.text.slice(r.pos, r.end);
      const body = raw.startsWith('//')
        ? raw.slice(2)
        : raw.slice(2, -2).split(/\r?\n/).map((l) => l.replace(/^\s*\*?/, '')).join(' ');
      const m = /^\s*(caption|chapter)\s*:([\s\S]*)$/i.exec(body);
      if (!m) continue;
      const kind = m[1]!.toLowerCase();
      const text = m[2]!.replace(/\s+/g, ' ').trim();
      if (!text) this.fail(r.pos, `a "${kind}:" comment needs text`);
      if (kind === 'chapter' && where === 'trailing') this.fail(r.pos, 'a "chapter:" comment goes on its own line above a statement');
      (kind === 'chapter' ? chapters : captions).push({ pos: r.pos, text });
    }
    return { chapters, captions };
  }

  private emit(at: Node | number, input: StepInput): void {
    try {
      this.steps.push(checkStep(input as unknown as Record<string, unknown>));
    } catch (err) {
      if (err instanceof ValidationError) this.fail(at, err.message, { errors: err.details?.errors });
      throw err;
    }
  }

  private step(stmt: Statement): StepInput {
    if (!isExpressionStatement(stmt)) this.fail(stmt, `${this.describe(stmt)} is not a recorded browser action`);
    const expr = stmt.expression;
    if (!isAwaitExpression(expr)) {
      if (isCallExpression(expr) && this.rootOf(expr).root.getText(this.sf) === 'page') this.fail(expr, `${this.brief(expr)} is not awaited: write await ${this.brief(expr)}`);
      this.fail(expr, `${this.brief(expr)} is not a recorded browser action`);
    }
    const call = expr.expression;
    if (!isCallExpression(call)) this.fail(call, `await ${this.brief(call)} is not a recorded browser action`);
    const { root, links } = this.rootOf(call);
    if (isCallExpression(root) && isIdentifier(root.expression) && root.expression.text === this.names.expect) return this.assertion(call, root, links);
    if (isIdentifier(root) && root.text === this.names.expect) this.fail(links[0]?.at ?? call, `${this.brief(call)} is not supported: write await ${this.names.expect}(…).<matcher>(…)`);
    if (isIdentifier(root) && root.text === 'page') return this.action(call, links);
    this.fail(call, `${this.brief(call)} is not a recorded browser action (only page.… and ${this.names.expect}(…) are)`);
  }

  /** Unrolls `a.b(…).c.d(…)` into its root `a` and the links b(…), c, d(…). */
  private rootOf(expr: Expression): { root: Expression; links: Link[] } {
    const links: Link[] = [];
    let e = expr;
    for (;;) {
      if (isCallExpression(e) && isPropertyAccessExpression(e.expression)) {
        const pa = e.expression;
        if (e.questionDotToken || pa.questionDotToken) this.fail(pa.name, `${this.brief(e)}: optional chaining (?.) is not supported`);
        links.unshift({ name: pa.name.text, at: pa.name, node: e, call: e });
        e = pa.expression;
      } else if (isPropertyAccessExpression(e)) {
        if (e.questionDotToken) this.fail(e.name, `${this.brief(e)}: optional chaining (?.) is not supported`);
        links.unshift({ name: e.name.text, at: e.name, node: e });
        e = e.expression;
      } else {
        return { root: e, links };
      }
    }
  }

  // ── actions ────────────────────────────────────────────────────────────────────────────────

  private action(call: CallExpression, links: Link[]): StepInput {
    const first = links[0]!;
    const last = links[links.length - 1]!;
    if (first.name === 'keyboard' && !first.call) {
      if (links.length !== 2 || last.name !== 'press' || !last.call) this.fail(last.at, `${this.brief(call)} is not supported: of page.keyboard only press(key) is`);
      const [key, opts] = this.args(last, 1, 2);
      return { kind: 'press', value: { kind: 'literal', value: this.str(key!, 'page.keyboard.press(…)') }, ...this.timeout(opts, 'press') };
    }
    if (!first.call) this.fail(first.at, `page.${first.name} is not a recorded browser action${REFUSAL_HINTS[first.name] ?? ''}`);
    if ((LOCATOR_METHODS as readonly string[]).includes(last.name)) this.fail(call, `${this.brief(call)} has no action: end it with ${ACTIONS.filter((a) => a !== 'type').join(', ')}`);
    if (links.length === 1) {
      if (first.name === 'goto') return this.navigate(first);
      this.fail(first.at, `${this.brief(first.node)} is not a recorded browser action${REFUSAL_HINTS[first.name] ?? ''}`);
    }
    const chain = this.chain(links.slice(0, -1));
    if (!last.call || !(ACTIONS as readonly string[]).includes(last.name)) {
      this.fail(last.at, `${last.name}${last.call ? '(…)' : ''} is not a supported action${REFUSAL_HINTS[last.name] ?? ''} (supported: ${ACTIONS.filter((a) => a !== 'type').join(', ')})`);
    }
    const target = { candidates: [chain] };
    const method = last.name;
    switch (method) {
      case 'click':
      case 'hover':
      case 'check':
      case 'uncheck': {
        const [opts] = this.args(last, 0, 1);
        return { kind: method, target, ...this.timeout(opts, method) };
      }
      case 'setChecked': {
        const [on, opts] = this.args(last, 1, 2);
        if (on!.kind !== SyntaxKind.TrueKeyword && on!.kind !== SyntaxKind.FalseKeyword) this.fail(on!, 'setChecked(…) takes true or false');
        return { kind: on!.kind === SyntaxKind.TrueKeyword ? 'check' : 'uncheck', target, ...this.timeout(opts, method) };
      }
      case 'fill':
      case 'pressSequentially':
      case 'type': {
        const [text, opts] = this.args(last, 1, 2);
        return { kind: 'fill', target, value: this.masked(chain, this.valueOf(this.str(text!, `${method}(…)`))), ...this.timeout(opts, method) };
      }
      case 'clear': {
        const [opts] = this.args(last, 0, 1);
        return { kind: 'fill', target, value: { kind: 'literal', value: '' }, ...this.timeout(opts, method) };
      }
      case 'press': {
        const [key, opts] = this.args(last, 1, 2);
        return { kind: 'press', target, value: { kind: 'literal', value: this.str(key!, 'press(…)') }, ...this.timeout(opts, method) };
      }
      case 'selectOption': {
        const [choice, opts] = this.args(last, 1, 2);
        return { kind: 'select', target, value: this.valueOf(this.oneString(choice!, 'selectOption(…)', 'one option')), ...this.timeout(opts, method) };
      }
      case 'setInputFiles': {
        const [files, opts] = this.args(last, 1, 2);
        const file = this.oneString(files!, 'setInputFiles(…)', 'one file');
        const base = file.split(/[\\/]/).filter(Boolean).pop() ?? '';
        if (!base) this.fail(files!, 'setInputFiles(…) needs a file name');
        return { kind: 'upload', target, value: this.valueOf(base), ...this.timeout(opts, method) };
      }
      default:
        this.fail(last.at, `${method}(…) is not a supported action`);
    }
  }

  private navigate(link: Link): StepInput {
    const [url, opts] = this.args(link, 1, 2);
    const path = this.pathOf(url!, 'page.goto(…)');
    this.startPath ??= path;
    return { kind: 'navigate', value: { kind: 'literal', value: path }, ...this.timeout(opts, 'goto') };
  }

  /** `http://host:port/path?q#h` → `/path?q#h` (the origin must stay the same); a path stays as it is. */
  private pathOf(node: Expression, what: string): string {
    const raw = this.str(node, what);
    const m = /^(https?):\/\/([^/?#]*)(.*)$/i.exec(raw);
    if (!m) {
      if (raw.startsWith('/')) return raw;
      this.fail(node, `${what}: "${raw}" is neither an http(s) URL nor a path starting with /`);
    }
    const origin = `${m[1]!.toLowerCase()}://${m[2]!.toLowerCase()}`;
    if (this.origin && origin !== this.origin) this.fail(node, `${what}: ${origin} is another site than ${this.origin}; a use case stays on the platform`);
    this.origin = origin;
    const rest = m[3] ?? '';
    return rest.startsWith('/') ? rest : `/${rest}`;
  }

  private chain(links: Link[]): LocatorChain {
    return links.map((link): LocatorSegment => {
      if (!link.call || !(LOCATOR_METHODS as readonly string[]).includes(link.name)) {
        this.fail(link.at, `${link.name}${link.call ? '(…)' : ''} is not a supported locator${REFUSAL_HINTS[link.name] ?? ''} (supported: ${LOCATOR_METHODS.join(', ')})`);
      }
      const m = link.name;
      switch (m) {
        case 'getByRole': {
          const [role, opts] = this.args(link, 1, 2);
          const o = this.options(opts, m, { name: 'string', exact: 'boolean' });
          return { by: 'role', value: this.str(role!, 'getByRole(…)'), ...(o.name !== undefined ? { name: o.name as string } : {}), ...(o.exact !== undefined ? { exact: o.exact as boolean } : {}) };
        }
        case 'getByTestId': {
          const [id] = this.args(link, 1, 1);
          return { by: 'testid', value: this.str(id!, 'getByTestId(…)') };
        }
        case 'locator': {
          const [selector] = this.args(link, 1, 1, 'options (has, hasText) are not supported');
          return { by: 'css', value: this.str(selector!, 'locator(…)') };
        }
        case 'first':
        case 'last':
          this.args(link, 0, 0);
          return { by: 'nth', value: m === 'first' ? '0' : '-1' };
        case 'nth': {
          const [i] = this.args(link, 1, 1);
          return { by: 'nth', value: String(this.int(i!, 'nth(…)', true)) };
        }
        default: {
          const [text, opts] = this.args(link, 1, 2);
          const o = this.options(opts, m, { exact: 'boolean' });
          return { by: TEXT_LOCATORS[m]!, value: this.str(text!, `${m}(…)`), ...(o.exact !== undefined ? { exact: o.exact as boolean } : {}) };
        }
      }
    });
  }

  // ── assertions ─────────────────────────────────────────────────────────────────────────────

  private assertion(call: CallExpression, expectCall: CallExpression, links: Link[]): StepInput {
    const expect = this.names.expect;
    if (expectCall.arguments.length !== 1) this.fail(expectCall, `${expect}(…) takes one subject (a custom message is not supported)`);
    const negated = links[0]?.name === 'not' && !links[0].call;
    const matcher = links[negated ? 1 : 0];
    if (!matcher || links.length !== (negated ? 2 : 1) || !matcher.call) this.fail(call, `${this.brief(call)} is not a supported assertion`);
    const m = matcher.name;
    if (!(MATCHERS as readonly string[]).includes(m)) this.fail(matcher.at, `${m}(…) is not a supported assertion (supported: ${MATCHERS.join(', ')})`);
    const subject = expectCall.arguments[0]!;
    if (isIdentifier(subject) && subject.text === 'page') {
      if (m !== 'toHaveURL' || negated) this.fail(matcher.at, `${expect}(page) supports toHaveURL(url) only`);
      const [url, opts] = this.args(matcher, 1, 2);
      // the replay compares path and query (a `*` is a wildcard): the #fragment is left out
      const expected = this.pathOf(url!, 'toHaveURL(…)').replace(/#.*$/s, '');
      return { kind: 'assert', assertion: { kind: 'url', expected }, ...this.timeout(opts, m) };
    }
    if (m === 'toHaveURL') this.fail(matcher.at, `toHaveURL(…) asserts ${expect}(page), not a locator`);
    const { root, links: chainLinks } = this.rootOf(subject);
    if (!isIdentifier(root) || root.text !== 'page' || !chainLinks.length) this.fail(subject, `${expect}(${this.brief(subject)}): the subject must be page.<locator> or page`);
    const target = { candidates: [this.chain(chainLinks)] };
    const flip: Record<string, StepAssertion['kind']> = { toBeVisible: 'hidden', toBeHidden: 'visible', toBeEnabled: 'disabled', toBeDisabled: 'enabled' };
    if (negated && !flip[m]) this.fail(links[0]!.at, `${expect}(…).not.${m}(…) is not supported (only not.toBeVisible, not.toBeHidden, not.toBeEnabled, not.toBeDisabled)`);
    const simple: Record<string, StepAssertion['kind']> = { toBeVisible: 'visible', toBeHidden: 'hidden', toBeEnabled: 'enabled', toBeDisabled: 'disabled', toBeChecked: 'checked' };
    if (simple[m]) {
      const [opts] = this.args(matcher, 0, 1);
      return { kind: 'assert', target, assertion: { kind: negated ? flip[m]! : simple[m]! }, ...this.timeout(opts, m) };
    }
    if (m === 'toHaveCount') {
      const [n, opts] = this.args(matcher, 1, 2);
      return { kind: 'assert', target, assertion: { kind: 'count', expected: this.int(n!, 'toHaveCount(…)', false) }, ...this.timeout(opts, m) };
    }
    const kinds: Record<string, StepAssertion['kind']> = { toHaveText: 'text', toContainText: 'contains_text', toHaveValue: 'value' };
    const [expected, opts] = this.args(matcher, 1, 2);
    const value = this.str(expected!, `${m}(…)`);
    if (m === 'toHaveValue' && value && this.looksSecret(target.candidates[0]!) && !VARIABLE.test(value)) {
      this.fail(expected!, 'toHaveValue(…) on a password field would store the password');
    }
    return { kind: 'assert', target, assertion: { kind: kinds[m]!, expected: value }, ...this.timeout(opts, m) };
  }

  // ── values and arguments ───────────────────────────────────────────────────────────────────

  /** `{{name}}` (the whole string) is a variable filled at replay; anything else is literal text. */
  private valueOf(s: string): StepValue {
    const v = VARIABLE.exec(s);
    return v ? { kind: 'variable', value: v[1]! } : { kind: 'literal', value: s };
  }

  private looksSecret(chain: LocatorChain): boolean {
    return chain.some((s) => SECRET_FIELD.test(`${s.value} ${s.name ?? ''}`));
  }

  /** A typed password is never stored: a literal filled into a password-looking field becomes the secret `password`. */
  private masked(chain: LocatorChain, value: StepValue): StepValue {
    return value.kind === 'literal' && value.value && this.looksSecret(chain) ? { kind: 'secret', value: 'password' } : value;
  }

  private args(link: Link, min: number, max: number, why = ''): Expression[] {
    const args = [...link.call!.arguments];
    if (args.length < min || args.length > max) {
      const n = min === max ? `${min}` : `${min} to ${max}`;
      this.fail(link.at, `${link.name}(…) takes ${n} argument${max === 1 && min === max ? '' : 's'} here, not ${args.length}${why ? ` (${why})` : ''}`);
    }
    return args;
  }

  private timeout(opts: Expression | undefined, method: string): { timeout_ms?: number } {
    const o = this.options(opts, method, TIMEOUT);
    return o.timeout === undefined ? {} : { timeout_ms: o.timeout as number };
  }

  private options(node: Expression | undefined, method: string, allowed: Record<string, OptionType>): Options {
    const out: Options = {};
    if (!node) return out;
    if (!isObjectLiteralExpression(node)) this.fail(node, `${method}(…): the options must be an object literal`);
    for (const p of node.properties) {
      if (!isPropertyAssignment(p) || !(isIdentifier(p.name) || isStringLiteral(p.name))) this.fail(p, `${method}(…): ${p.getText(this.sf)} is not a literal option`);
      const key = p.name.text;
      const type = allowed[key];
      if (!type) this.fail(p, `${method}(…): the option "${key}" is not supported (supported: ${Object.keys(allowed).join(', ') || 'none'})`);
      const v = p.initializer;
      if (type === 'string') out[key] = this.str(v, `${method}(…) option ${key}`);
      else if (type === 'number') out[key] = this.int(v, `${method}(…) option ${key}`, false);
      else if (v.kind === SyntaxKind.TrueKeyword || v.kind === SyntaxKind.FalseKeyword) out[key] = v.kind === SyntaxKind.TrueKeyword;
      else this.fail(v, `${method}(…) option ${key} must be true or false`);
    }
    return out;
  }

  private str(node: Expression, what: string): string {
    if (isStringLiteral(node) || isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (isTemplateExpression(node)) this.fail(node, `${what}: a template literal with \${…} is not a literal`);
    if (isRegularExpressionLiteral(node)) this.fail(node, `${what}: a regular expression is not supported, use a string`);
    if (isIdentifier(node)) this.fail(node, `${what}: ${node.text} is a variable, not a string literal`);
    this.fail(node, `${what}: ${this.brief(node)} is not a string literal`);
  }

  private int(node: Expression, what: string, signed: boolean): number {
    const negative = signed && isPrefixUnaryExpression(node) && node.operator === SyntaxKind.MinusToken;
    const lit = negative ? (node as unknown as { operand: Expression }).operand : node;
    if (!isNumericLiteral(lit) || !/^\d+$/.test(lit.text)) this.fail(node, `${what}: ${this.brief(node)} is not ${signed ? 'an integer' : 'a whole number'} literal`);
    return negative ? -Number(lit.text) : Number(lit.text);
  }

  /** `'x'` or `['x']`: one string. */
  private oneString(node: Expression, what: string, one: string): string {
    if (isArrayLiteralExpression(node)) {
      if (node.elements.length !== 1) this.fail(node, `${what} takes ${one} per step, not ${node.elements.length}`);
      return this.str(node.elements[0]!, what);
    }
    return this.str(node, what);
  }

  // ── describing constructs ──────────────────────────────────────────────────────────────────

  /** `page.getByRole(…).click(…)`: the shape of a call chain without its arguments. */
  private brief(n: Node): string {
    if (isCallExpression(n)) return `${this.brief(n.expression)}(${n.arguments.length ? '…' : ''})`;
    if (isPropertyAccessExpression(n)) return `${this.brief(n.expression)}.${n.name.text}`;
    if (isIdentifier(n)) return n.text;
    if (isAwaitExpression(n)) return `await ${this.brief(n.expression)}`;
    const t = n.getText(this.sf).replace(/\s+/g, ' ');
    return t.length > 60 ? `${t.slice(0, 59)}…` : t;
  }

  private describe(stmt: Statement): string {
    const nouns: Partial<Record<SyntaxKind, string>> = {
      [SyntaxKind.VariableStatement]: 'a variable',
      [SyntaxKind.IfStatement]: 'a conditional',
      [SyntaxKind.SwitchStatement]: 'a conditional',
      [SyntaxKind.ForStatement]: 'a loop',
      [SyntaxKind.ForInStatement]: 'a loop',
      [SyntaxKind.ForOfStatement]: 'a loop',
      [SyntaxKind.WhileStatement]: 'a loop',
      [SyntaxKind.DoStatement]: 'a loop',
      [SyntaxKind.FunctionDeclaration]: 'a function',
      [SyntaxKind.ClassDeclaration]: 'a class',
      [SyntaxKind.TryStatement]: 'a try statement',
      [SyntaxKind.ReturnStatement]: 'a return statement',
      [SyntaxKind.ThrowStatement]: 'a throw statement',
      [SyntaxKind.Block]: 'a nested block',
    };
    if (isExpressionStatement(stmt)) return this.brief(stmt.expression);
    const line = stmt.getText(this.sf).split(/\r?\n/, 1)[0]!.trim();
    const snippet = line.length > 60 ? `${line.slice(0, 59)}…` : line;
    return `${nouns[stmt.kind] ?? 'a statement'} (${snippet})`;
  }
}
