/**
 * Locator candidates for a recorded target, in the step contract's order of intent
 * (src/apps/qa/steps.ts): the nearest test id, then role + accessible name, label, placeholder,
 * text, title, alt, and a short CSS selector last. The replay engine resolves each chain with
 * Playwright (getByTestId, getByRole, getByLabel …) and takes the first that matches exactly one
 * visible element, so every candidate here is checked against the live page the same way: a
 * candidate that matches several elements is narrowed by a parent (a row, a test id) or dropped.
 *
 * Roles and names follow ARIA in HTML and the accessible-name computation closely enough for
 * the platform's own pages (native elements and React Aria components); a candidate that the
 * replay computes differently simply does not match, and the next one is tried.
 */

export interface Segment { by: 'testid' | 'role' | 'label' | 'placeholder' | 'text' | 'title' | 'alt' | 'css' | 'nth'; value: string; name?: string; exact?: boolean }
export type Chain = Segment[];

const MAX_CANDIDATES = 6;
const MAX_TEXT = 80;
const norm = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
const lower = (s: string) => s.toLowerCase();
/** A value inside a quoted CSS attribute selector. */
const attr = (v: string) => v.replace(/["\\]/g, '\\$&');

// ---------------------------------------------------------------------------------------------
// visibility

/** Rendered and not hidden from assistive technology (as Playwright's getByRole sees it). */
export function isVisible(el: Element): boolean {
  if (!el.isConnected) return false;
  const style = getComputedStyle(el);
  if (style.visibility === 'hidden' || style.visibility === 'collapse') return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

function hiddenFromAt(el: Element): boolean {
  for (let e: Element | null = el; e; e = e.parentElement) {
    if (e.getAttribute('aria-hidden') === 'true' || (e as HTMLElement).hidden || e.hasAttribute('inert')) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// roles

const INPUT_ROLES: Record<string, string | null> = {
  button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox', radio: 'radio',
  range: 'slider', number: 'spinbutton', search: 'searchbox', email: 'textbox', tel: 'textbox', text: 'textbox', url: 'textbox', '': 'textbox',
  password: null, hidden: null, file: null, color: null, date: null, 'datetime-local': null, month: null, time: null, week: null,
};

/** The element's ARIA role: its `role` attribute, else the implicit role of the HTML element. */
export function roleOf(el: Element): string | null {
  const explicit = norm(el.getAttribute('role')).split(' ')[0];
  if (explicit && explicit !== 'presentation' && explicit !== 'none' && explicit !== 'generic') return explicit;
  const tag = el.tagName.toLowerCase();
  switch (tag) {
    case 'a': case 'area': return el.hasAttribute('href') ? 'link' : null;
    case 'button': return 'button';
    case 'input': {
      const input = el as HTMLInputElement;
      const type = lower(input.getAttribute('type') ?? '');
      if (input.hasAttribute('list') && ['', 'text', 'search', 'email', 'tel', 'url'].includes(type)) return 'combobox';
      return type in INPUT_ROLES ? INPUT_ROLES[type] : 'textbox';
    }
    case 'textarea': return 'textbox';
    case 'select': return (el as HTMLSelectElement).multiple || (el as HTMLSelectElement).size > 1 ? 'listbox' : 'combobox';
    case 'option': return 'option';
    case 'img': return el.getAttribute('alt') === '' ? null : 'img';
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
    case 'tr': return 'row';
    case 'td': return el.closest('table')?.getAttribute('role') === 'grid' ? 'gridcell' : 'cell';
    case 'th': return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
    case 'table': return 'table';
    case 'thead': case 'tbody': case 'tfoot': return 'rowgroup';
    case 'ul': case 'ol': return 'list';
    case 'li': return 'listitem';
    case 'nav': return 'navigation';
    case 'main': return 'main';
    case 'aside': return 'complementary';
    case 'dialog': return 'dialog';
    case 'fieldset': case 'details': return 'group';
    case 'progress': return 'progressbar';
    case 'article': return 'article';
    case 'p': return 'paragraph';
    case 'hr': return 'separator';
    case 'output': return 'status';
    case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : null;
    case 'form': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'form' : null;
    default: return null;
  }
}

/** Roles whose accessible name may come from their content. */
const NAME_FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem']);

// ---------------------------------------------------------------------------------------------
// accessible names

function pseudo(el: Element, which: '::before' | '::after'): string {
  const c = getComputedStyle(el, which).content;
  if (!c || c === 'none' || c === 'normal') return '';
  const m = /^"(.*)"$/.exec(c);
  return m ? m[1].replace(/\\"/g, '"') : '';
}

function isBlock(el: Element): boolean {
  const d = getComputedStyle(el).display;
  return d !== 'inline' && d !== 'contents' && d !== '';
}

/** The text an element contributes to a name computed from content (aria-hidden parts left out). */
function contentText(el: Element, depth = 0): string {
  if (depth > 12) return '';
  let out = pseudo(el, '::before');
  for (const n of Array.from(el.childNodes)) {
    if (n.nodeType === Node.TEXT_NODE) { out += n.textContent ?? ''; continue; }
    if (!(n instanceof Element)) continue;
    if (n.getAttribute('aria-hidden') === 'true' || (n as HTMLElement).hidden) continue;
    const style = getComputedStyle(n);
    if (style.display === 'none' || style.visibility === 'hidden') continue;
    const part = embeddedName(n, depth + 1);
    out += isBlock(n) ? ` ${part} ` : part;
  }
  return out + pseudo(el, '::after');
}

/** A descendant's part of its ancestor's name: its own label if it has one, else its content. */
function embeddedName(el: Element, depth: number): string {
  const label = labelledByText(el) ?? norm(el.getAttribute('aria-label'));
  if (label) return label;
  const tag = el.tagName.toLowerCase();
  if (tag === 'img') return el.getAttribute('alt') ?? '';
  if (tag === 'input' || tag === 'textarea') return (el as HTMLInputElement).type === 'password' ? '' : (el as HTMLInputElement).value;
  if (tag === 'select') return (el as HTMLSelectElement).selectedOptions[0]?.textContent ?? '';
  return contentText(el, depth);
}

function labelledByText(el: Element): string | null {
  const ids = norm(el.getAttribute('aria-labelledby'));
  if (!ids) return null;
  const text = norm(ids.split(' ').map((id) => document.getElementById(id)).filter((x): x is HTMLElement => !!x).map((x) => contentText(x)).join(' '));
  return text || null;
}

function nativeLabels(el: Element): HTMLLabelElement[] {
  const labels = (el as HTMLInputElement).labels;
  return labels ? Array.from(labels) : [];
}

/** The accessible name (aria-labelledby, aria-label, a native label, content, title). */
export function accessibleName(el: Element): string {
  const by = labelledByText(el);
  if (by) return by;
  const aria = norm(el.getAttribute('aria-label'));
  if (aria) return aria;
  const tag = el.tagName.toLowerCase();
  if (tag === 'input' || tag === 'textarea' || tag === 'select') {
    const type = lower(el.getAttribute('type') ?? '');
    if (tag === 'input' && ['button', 'submit', 'reset'].includes(type)) return norm((el as HTMLInputElement).value) || (type === 'reset' ? 'Reset' : type === 'submit' ? 'Submit' : '');
    if (tag === 'input' && type === 'image') return norm(el.getAttribute('alt'));
    const fromLabels = norm(nativeLabels(el).map((l) => contentText(l)).join(' '));
    if (fromLabels) return fromLabels;
    return norm(el.getAttribute('title')) || norm(el.getAttribute('placeholder'));
  }
  if (tag === 'img') return norm(el.getAttribute('alt')) || norm(el.getAttribute('title'));
  if (tag === 'fieldset') {
    const legend = el.querySelector(':scope > legend');
    if (legend) return norm(contentText(legend));
  }
  if (tag === 'table') {
    const caption = el.querySelector(':scope > caption');
    if (caption) return norm(contentText(caption));
  }
  const role = roleOf(el);
  if (role && NAME_FROM_CONTENT.has(role)) {
    const text = norm(contentText(el));
    if (text) return text;
  }
  return norm(el.getAttribute('title'));
}

/** What Playwright's getByLabel reads: aria-labelledby, aria-label, else the labels' full text. */
function labelTexts(el: Element): string[] {
  const ids = norm(el.getAttribute('aria-labelledby'));
  if (ids) return ids.split(' ').map((id) => document.getElementById(id)).filter((x): x is HTMLElement => !!x).map((x) => norm(x.textContent));
  const aria = norm(el.getAttribute('aria-label'));
  if (aria) return [aria];
  return nativeLabels(el).map((l) => norm(l.textContent));
}

// ---------------------------------------------------------------------------------------------
// counting matches as the replay would

type Root = Document | Element;

const all = (root: Root): Element[] => Array.from(root.querySelectorAll('*'));

const nameMatches = (actual: string, wanted: string, exact: boolean) => (exact ? actual === wanted : lower(actual).includes(lower(wanted)));

function matchesSegment(el: Element, s: Segment): boolean {
  switch (s.by) {
    case 'testid': return el.getAttribute('data-testid') === s.value;
    case 'role': return roleOf(el) === s.value && !hiddenFromAt(el) && (s.name === undefined || nameMatches(accessibleName(el), s.name, !!s.exact));
    case 'label': return labelTexts(el).some((l) => nameMatches(l, s.value, !!s.exact));
    case 'placeholder': return el.hasAttribute('placeholder') && nameMatches(norm(el.getAttribute('placeholder')), s.value, !!s.exact);
    case 'title': return el.hasAttribute('title') && nameMatches(norm(el.getAttribute('title')), s.value, !!s.exact);
    case 'alt': return el.hasAttribute('alt') && nameMatches(norm(el.getAttribute('alt')), s.value, !!s.exact);
    case 'text': {
      // the innermost element whose whole text matches (as getByText picks it)
      if (!nameMatches(norm(el.textContent), s.value, !!s.exact)) return false;
      return !Array.from(el.children).some((c) => nameMatches(norm(c.textContent), s.value, !!s.exact));
    }
    default: return false;
  }
}

/** The visible elements a segment finds under `root`. */
function find(root: Root, s: Segment): Element[] {
  let found: Element[];
  if (s.by === 'css') {
    try { found = Array.from(root.querySelectorAll(s.value)); } catch { return []; }
  } else if (s.by === 'testid') {
    found = Array.from(root.querySelectorAll(`[data-testid="${attr(s.value)}"]`));
  } else {
    found = all(root).filter((e) => matchesSegment(e, s));
  }
  return found.filter(isVisible);
}

/** The visible elements a chain resolves to (each segment searches inside the previous matches). */
export function resolveChain(chain: Chain, root: Root = document): Element[] {
  let current: Element[] = [root as Element];
  let first = true;
  for (const s of chain) {
    if (s.by === 'nth') {
      const i = Number(s.value);
      const pick = i < 0 ? current[current.length + i] : current[i];
      current = pick ? [pick] : [];
      continue;
    }
    const next = new Set<Element>();
    for (const r of current) for (const e of find(first ? root : r, s)) next.add(e);
    current = [...next];
    first = false;
  }
  return current;
}

/** The chain finds exactly this element (as the replay requires: one visible match). */
const pointsAt = (chain: Chain, el: Element, root: Root = document) => {
  const found = resolveChain(chain, root);
  return found.length === 1 && found[0] === el;
};

// ---------------------------------------------------------------------------------------------
// targets

const ACTIONABLE = [
  'button', 'a[href]', 'input', 'select', 'textarea', 'summary', 'label',
  '[role=button]', '[role=link]', '[role=menuitem]', '[role=menuitemcheckbox]', '[role=menuitemradio]', '[role=option]', '[role=tab]',
  '[role=checkbox]', '[role=radio]', '[role=switch]', '[role=treeitem]', '[role=combobox]', '[role=row]', '[role=gridcell]',
  '[contenteditable=""]', '[contenteditable="true"]', '[tabindex]:not([tabindex="-1"])',
].join(',');

/** What a click on `el` acts on: the nearest control, link, row … around it. */
export function actionable(el: Element): Element {
  return el.closest(ACTIONABLE) ?? el;
}

/** What an assertion checks: the element clicked, or a close ancestor with a test id or a role and the same text. */
export function assertionTarget(el: Element): Element {
  const control = el.closest('button, a[href], [role=button], [role=link], input, select, textarea');
  if (control) return control;
  const text = norm(el.textContent);
  let best = el;
  for (let e: Element | null = el, i = 0; e && i < 3; e = e.parentElement, i++) {
    if (norm(e.textContent) !== text) break;
    if (e.hasAttribute('data-testid') || roleOf(e)) { best = e; break; }
  }
  return best;
}

const TEXT_TYPES = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'number', 'password', 'date', 'datetime-local', 'month', 'week', 'time']);
/** A field whose value is typed (a fill step), not clicked. */
export function isTextEntry(el: Element | null): el is HTMLInputElement | HTMLTextAreaElement | HTMLElement {
  if (!el) return false;
  if (el instanceof HTMLTextAreaElement) return true;
  if (el instanceof HTMLInputElement) return TEXT_TYPES.has(lower(el.getAttribute('type') ?? ''));
  return (el as HTMLElement).isContentEditable === true;
}

/** A password field: what is typed is never read, the step carries the secret `password`. */
export function isSecretField(el: Element): boolean {
  if (el instanceof HTMLInputElement && el.type === 'password') return true;
  return /(^|\s)(current|new|one-time)-password(\s|$)|one-time-code/.test(el.getAttribute('autocomplete') ?? '');
}

// ---------------------------------------------------------------------------------------------
// building candidates

const clip = (s: string, n = 200) => (s.length > n ? s.slice(0, n) : s);

/** Role + name as a segment: the whole name exactly; a row (long) by the text of its first non-empty cell. */
function roleSegment(el: Element): Segment | null {
  const role = roleOf(el);
  if (!role) return null;
  if (role === 'row') {
    const cell = Array.from(el.children).map((c) => norm(c.textContent)).find((x) => x.length > 0);
    return cell ? { by: 'role', value: role, name: clip(cell, MAX_TEXT), exact: false } : null;
  }
  const name = accessibleName(el);
  if (!name) return null;
  return name.length <= 200 ? { by: 'role', value: role, name, exact: true } : { by: 'role', value: role, name: clip(name, MAX_TEXT), exact: false };
}

/** Containers that make a good first link of a chain (a row's Edit button, a dialog's Save). */
const SCOPE_ROLES = new Set(['row', 'listitem', 'dialog', 'alertdialog', 'region', 'group', 'form', 'navigation', 'article', 'tabpanel', 'menu', 'listbox', 'complementary']);

/**
 * The nearest ancestor that makes `inner` unique: one with a test id unique on the page, or a
 * row, dialog, group … whose role + name is. Returns its segment.
 */
function scopeFor(el: Element, inner: Segment): Segment | null {
  for (let p = el.parentElement, depth = 0; p && p !== document.body && depth < 10; p = p.parentElement, depth++) {
    for (const seg of scopeSegments(p)) if (pointsAt([seg], p) && pointsAt([seg, inner], el)) return seg;
  }
  return null;
}

/** Repeated containers: their test id is shared by their siblings, so their name comes first. */
const REPEATED_ROLES = new Set(['row', 'listitem', 'option', 'article', 'treeitem']);

/** How a container may be named as the first link of a chain, best first. */
function scopeSegments(p: Element): Segment[] {
  const tid = p.getAttribute('data-testid');
  const byId: Segment | null = tid ? { by: 'testid', value: tid } : null;
  const role = roleOf(p) ?? '';
  const byRole = SCOPE_ROLES.has(role) ? roleSegment(p) : null;
  return (REPEATED_ROLES.has(role) ? [byRole, byId] : [byId, byRole]).filter((x): x is Segment => !!x);
}

/** The nearest unique scope (test id, or a row, dialog … by role + name) in which `inner` finds `el` among others. */
function scopeAround(el: Element, inner: Segment): Segment | null {
  for (let p = el.parentElement, depth = 0; p && p !== document.body && depth < 10; p = p.parentElement, depth++) {
    for (const seg of scopeSegments(p)) if (pointsAt([seg], p) && resolveChain([seg, inner]).includes(el)) return seg;
  }
  return null;
}

/** A segment that finds `el` among the descendants of `scope`. */
function innerSegment(el: Element, scope: Element): Segment | null {
  const tries: Segment[] = [];
  const own = roleSegment(el);
  if (own) tries.push(own);
  const role = roleOf(el);
  if (role) tries.push({ by: 'role', value: role });
  const tag = el.tagName.toLowerCase();
  tries.push({ by: 'css', value: tag });
  return tries.find((s) => pointsAt([s], el, scope)) ?? null;
}

const GENERATED_ID = /^(react-aria|:r|«r|radix-|headlessui-)|\d{4,}|[:«»]/;

/** A short CSS selector finding exactly `el`: a stable id, a name, an aria-label, else a short path. */
function cssFor(el: Element): string | null {
  const tag = el.tagName.toLowerCase();
  const tries: string[] = [];
  if (el.id && !GENERATED_ID.test(el.id)) tries.push(`#${CSS.escape(el.id)}`);
  const name = el.getAttribute('name');
  if (name) tries.push(`${tag}[name="${attr(name)}"]`);
  const aria = el.getAttribute('aria-label');
  if (aria && aria.length <= 100) tries.push(`${tag}[aria-label="${attr(aria)}"]`);
  const type = el.getAttribute('type');
  if (type) tries.push(`${tag}[type="${attr(type)}"]`);
  for (const sel of tries) if (pointsAt([{ by: 'css', value: sel }], el)) return sel;
  // a path of at most 4 steps from the nearest ancestor with a test id or a stable id
  const parts: string[] = [];
  for (let e: Element | null = el, depth = 0; e && e !== document.body && depth < 4; e = e.parentElement, depth++) {
    const t = e.tagName.toLowerCase();
    const tid = depth > 0 ? e.getAttribute('data-testid') : null;
    if (tid) { parts.unshift(`[data-testid="${attr(tid)}"]`); break; }
    if (depth > 0 && e.id && !GENERATED_ID.test(e.id)) { parts.unshift(`#${CSS.escape(e.id)}`); break; }
    const parent = e.parentElement;
    const same = parent ? Array.from(parent.children).filter((c) => c.tagName === e!.tagName) : [];
    parts.unshift(same.length > 1 ? `${t}:nth-of-type(${same.indexOf(e) + 1})` : t);
  }
  const path = parts.join(' > ');
  return path && path.length <= 500 && pointsAt([{ by: 'css', value: path }], el) ? path : null;
}

const sameChain = (a: Chain, b: Chain) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The ordered candidates for `el` (1 to 6 chains, each checked to find exactly `el` on the page
 * now): test id, role + name, label, placeholder, text, title, alt, CSS. A name that is not
 * unique is narrowed by a parent: `[{ role: row, name: 'Acme' }, { role: button, name: 'Edit' }]`.
 */
export function candidatesFor(el: Element): Chain[] {
  const out: Chain[] = [];
  const add = (c: Chain | null) => {
    if (c && c.length && out.length < MAX_CANDIDATES && !out.some((x) => sameChain(x, c)) && pointsAt(c, el)) out.push(c);
  };
  const narrowed = (seg: Segment): Chain | null => {
    if (pointsAt([seg], el)) return [seg];
    const scope = scopeFor(el, seg);
    return scope ? [scope, seg] : null;
  };
  // a test id or role + name shared by several elements (two cells reading the same): its
  // position among them, inside the nearest named scope; tried after the unique candidates
  const weak: Chain[] = [];
  const positional = (seg: Segment) => {
    const scope = scopeAround(el, seg);
    const base: Chain = scope ? [scope, seg] : [seg];
    const found = resolveChain(base);
    const i = found.indexOf(el);
    if (i >= 0 && found.length <= 50) weak.push([...base, { by: 'nth', value: String(i) }]);
  };
  const intent = (seg: Segment) => {
    const c = narrowed(seg);
    if (c) add(c);
    else positional(seg);
  };
  // inside a repeated container (a table row, a list item) a test id is repeated too, even when
  // only one row is shown now: it is named through its row
  const container = el.parentElement?.closest('tr, [role=row], li, [role=listitem], [role=option], [role=treeitem]');
  const containerSeg = container ? roleSegment(container) : null;
  const inContainer = (seg: Segment): Chain | null =>
    container && containerSeg && pointsAt([containerSeg], container) && pointsAt([containerSeg, seg], el) ? [containerSeg, seg] : null;

  // 1. the nearest test id: its own (narrowed by a parent when repeated), or a parent's with a segment inside it
  const tid = el.getAttribute('data-testid');
  if (tid) {
    const seg: Segment = { by: 'testid', value: tid };
    const scoped = inContainer(seg);
    if (scoped) add(scoped);
    else intent(seg);
  } else {
    const holder = el.parentElement?.closest('[data-testid]');
    const htid = holder?.getAttribute('data-testid');
    if (holder && htid && pointsAt([{ by: 'testid', value: htid }], holder)) {
      const inner = innerSegment(el, holder);
      if (inner) add([{ by: 'testid', value: htid }, inner]);
    }
  }
  // 2. role + accessible name
  const role = roleSegment(el);
  if (role) intent(role);
  // 3. label, 4. placeholder (form fields)
  if (el.matches('input, select, textarea, [role=textbox], [role=combobox], [role=checkbox], [role=switch], [role=radio], [role=slider], [role=spinbutton]')) {
    const label = labelTexts(el).map((l) => l.replace(/\s*\*$/, '')).find((l) => l && l.length <= 200);
    if (label) add(narrowed({ by: 'label', value: label }));
    const ph = norm(el.getAttribute('placeholder'));
    if (ph) add(narrowed({ by: 'placeholder', value: ph, exact: true }));
  } else {
    // 5. text (short, not a form field, and read as one piece: not a row of cells)
    const text = norm(el.textContent);
    const asRead = norm((el as HTMLElement).innerText ?? text);
    if (text && text.length <= MAX_TEXT && text === asRead && !['row', 'table', 'rowgroup', 'list', 'grid', 'listbox', 'menu'].includes(roleOf(el) ?? '')) {
      add(narrowed({ by: 'text', value: text, exact: true }));
    }
  }
  // 6. title, alt
  const title = norm(el.getAttribute('title'));
  if (title) add(narrowed({ by: 'title', value: title, exact: true }));
  const alt = norm(el.getAttribute('alt'));
  if (alt) add(narrowed({ by: 'alt', value: alt, exact: true }));
  // positions among look-alikes: the role's first (a row's second "Edit" button), then the test id's
  weak.reverse().forEach((w) => add(w));
  // 7. CSS last
  const css = cssFor(el);
  if (css) add([{ by: 'css', value: css }]);
  if (!out.length) {
    // nothing unique: the tag and its index among the matches (brittle, but a target is required)
    const tag = el.tagName.toLowerCase();
    const i = resolveChain([{ by: 'css', value: tag }]).indexOf(el);
    if (i >= 0) out.push([{ by: 'css', value: tag }, { by: 'nth', value: String(i) }]);
  }
  return out;
}

/** A short human description of a target (the bar names what was picked). */
export function describe(el: Element): string {
  const role = roleOf(el);
  const name = clip(accessibleName(el) || norm(el.textContent), 60);
  return [role, name ? `“${name}”` : ''].filter(Boolean).join(' ') || el.tagName.toLowerCase();
}

/** The text an assertion expects: what the element shows now (whitespace normalised, as the replay compares). */
export function visibleText(el: Element): string {
  return norm((el as HTMLElement).innerText ?? el.textContent);
}

const ID_LIKE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d+)$/i;
/**
 * What a select step names: the option's value, or its label when the value is a record id or
 * empty (an id differs in the replay's sandbox; the replay tries the value, then the label).
 */
export function selectValue(select: HTMLSelectElement): string {
  const opt = select.selectedOptions[0];
  if (!opt) return select.value;
  return opt.value === '' || ID_LIKE.test(opt.value) ? norm(opt.label || opt.textContent) : opt.value;
}
