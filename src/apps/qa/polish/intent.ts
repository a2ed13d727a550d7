import type { LocatorChain, LocatorSegment, StepData } from '../steps.js';

/**
 * What a person would say a step does, for the narration of polished videos. A recorded step
 * knows its locators, not its purpose; read aloud, an accessible name makes no sense ("Fill
 * Search Name, Slug for: with Wayne", "Upload brief.pdf to Upload", a raw URL). So a step with
 * a caption (the recorder's, or an import's `// caption:`) is narrated with it, and any other
 * is narrated from its intent, using the steps before it as context:
 *
 * | step | sentence |
 * |---|---|
 * | Save on a new record's form | "Create the organization Wayne" (the model from the page, the name from what was typed into Name) |
 * | Save on a record's form | "Save the organization Wayne" |
 * | New | "Start a new organization" |
 * | typing into a search box, Enter there | "Search for Wayne", "Run the search" |
 * | typing into a field | "Fill Name with Wayne" (the field's label, never a whole accessible name) |
 * | a row, a link, a menu entry, an option | "Open Wayne", "Open Settings", "Pick France" |
 * | navigate | "Go to the documents page" (the page's name, never its address) |
 * | upload | "Upload brief.pdf" |
 *
 * Whatever the source, the spoken text never contains a URL (`speakable`).
 */

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** `list-new` → `list new`, `org_name` → `org name`, `saveButton` → `save button`. */
export function humanize(id: string): string {
  return id.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[-_.]+/g, ' ').trim().toLowerCase() || id;
}

const capital = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

const URL_LIKE = /\b(?:https?|ftp|file):\/\/\S+|\bwww\.\S+|(?:^|\s)\/[\w\-.~%{}]+(?:\/[\w\-.~%{}]*)*(?:\?\S*)?/gi;

/**
 * Text made fit to be read aloud: a URL or a path becomes "the page" (an address read out
 * letter by letter helps nobody), a dangling "for:" goes, spaces are tidied, and it ends as a
 * sentence.
 */
export function speakable(text: string): string {
  let t = text.replace(URL_LIKE, (m) => `${/^\s/.test(m) ? ' ' : ''}the page`);
  t = t.replace(/\s+for:\s*(?=$|with\b|[.,;])/gi, ' ').replace(/:\s*(?=$|[.,;])/g, '');
  t = norm(t).replace(/\s+([.,;!?])/g, '$1');
  if (!t) return t;
  t = capital(t);
  return /[.!?…]$/.test(t) ? t : `${t}.`;
}

/** A name as a person says it: no trailing colon, ellipsis or asterisk, at most 60 characters. */
function tidyName(s: string): string {
  const t = norm(s).replace(/\s+for:?\s*$/i, '').replace(/[\s:*…]+$/, '').replace(/^search\s+(.+)$/i, '$1');
  return t.length > 60 ? `${t.slice(0, 57)}…` : t;
}

const lastSegments = (chain: LocatorChain) => chain.filter((s) => s.by !== 'nth');
const leaf = (chain: LocatorChain): LocatorSegment | undefined => lastSegments(chain).at(-1);
const candidates = (step: StepData): LocatorChain[] => step.target?.candidates ?? [];
const testIds = (step: StepData) => candidates(step).map(leaf).filter((s): s is LocatorSegment => s?.by === 'testid').map((s) => s.value);
const roles = (step: StepData) => candidates(step).map(leaf).filter((s): s is LocatorSegment => s?.by === 'role');
const hasTestId = (step: StepData, ...ids: string[]) => testIds(step).some((t) => ids.includes(t));
const hasRole = (step: StepData, ...rs: string[]) => roles(step).some((r) => rs.includes(r.value));
const roleName = (step: StepData, ...rs: string[]) => roles(step).find((r) => (!rs.length || rs.includes(r.value)) && r.name)?.name;

/**
 * What the step's target is called, as a person would name it: a field's label first, then an
 * accessible name (tidied: "Search Name, Slug for:" is "Name, Slug"), a form field's test id
 * `input-<field>`, a placeholder, text, title or alt text, then any test id made readable; null
 * without a target.
 */
export function targetWords(step: StepData): string | null {
  const cs = candidates(step);
  if (!cs.length) return null;
  const label = cs.map(leaf).find((s) => s?.by === 'label');
  if (label) return tidyName(label.value);
  const named = roles(step).find((r) => r.name)?.name;
  if (named) return tidyName(named);
  const field = testIds(step).map((t) => /^input-(.+)$/.exec(t)?.[1]).find(Boolean);
  if (field) return capital(humanize(field.replace(/_id$/, '')));
  for (const chain of cs) {
    const s = leaf(chain);
    if (s && ['placeholder', 'text', 'title', 'alt'].includes(s.by)) return tidyName(s.value);
  }
  const id = testIds(step)[0];
  if (id) return humanize(id.replace(/^(app|menu)-[\w]+\./, ''));
  const role = cs[0]!.find((s) => s.by === 'role');
  return role ? `the ${role.value}` : 'the element';
}

/** `/acme/action-base.action_organizations/new` → { plural: 'organizations', singular: 'organization', record: 'new' }. */
export function pageOf(url: string | null | undefined): { plural: string; singular: string; record: string | null } | null {
  if (!url) return null;
  const path = url.split(/[?#]/)[0]!;
  const m = /\/action-[\w]+\.(?:action_)?([\w]+)(?:\/([^/]+))?/.exec(path);
  if (!m) return null;
  const plural = humanize(m[1]!);
  const words = plural.split(' ');
  const last = words.pop()!;
  const one = /ies$/.test(last) ? `${last.slice(0, -3)}y` : /(ss|us)$/.test(last) ? last : /(sh|ch|x|ss)es$/.test(last) ? last.slice(0, -2) : last.replace(/s$/, '');
  return { plural, singular: [...words, one].join(' '), record: m[2] ?? null };
}

function valueWords(step: StepData): string {
  const v = step.value;
  if (!v) return '';
  if (v.kind === 'secret') return v.value === 'password' ? 'the password' : `the secret ${humanize(v.value)}`;
  if (v.kind === 'variable') return `the ${humanize(v.value)}`;
  // `{{org}}` inside a literal is read as "org"
  const text = norm(v.value.replace(/\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/gi, '$1'));
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

const isSearchBox = (step: StepData) => hasTestId(step, 'search-input') || hasRole(step, 'searchbox');
const isSave = (step: StepData) => hasTestId(step, 'form-save') || /^save$/i.test(roleName(step, 'button') ?? '');
const isNameField = (step: StepData) => hasTestId(step, 'input-name', 'input-display_name', 'input-title') || /^(name|title)$/i.test(targetWords(step) ?? '');

/** The name typed into the record's Name field since its form was opened (the steps before `i`). */
function recordName(steps: StepData[], i: number): string | null {
  for (let j = i - 1; j >= 0; j--) {
    const s = steps[j]!;
    if (s.kind === 'navigate' || (s.kind === 'click' && (hasTestId(s, 'new-record') || isSave(s)))) return null;
    if (s.kind === 'fill' && s.value?.kind !== 'secret' && isNameField(s)) return valueWords(s) || null;
  }
  return null;
}

function assertSentence(step: StepData, what: string): string {
  const a = step.assertion;
  const expected = a?.expected === undefined ? '' : String(a.expected);
  switch (a?.kind) {
    case 'hidden': return `Check that ${what} is hidden`;
    case 'text': return `Check that ${what} reads ${expected}`;
    case 'contains_text': return `Check that ${what} contains ${expected}`;
    case 'value': return expected ? `Check that ${what} holds ${expected}` : `Check that ${what} is empty`;
    case 'url': return 'Check that the right page is open';
    case 'count': return `Check that there are ${expected} of ${what}`;
    case 'checked': return `Check that ${what} is ${String(a.expected) === 'false' ? 'not ' : ''}ticked`;
    case 'enabled': return `Check that ${what} is enabled`;
    case 'disabled': return `Check that ${what} is disabled`;
    default: return `Check that ${what} is visible`;
  }
}

type Page = ReturnType<typeof pageOf>;

/**
 * The page step `i` acts on: the one it was recorded on (`url`), else (an imported step) the
 * one the steps before it lead to, from the use case's start page: a navigate opens its page,
 * New opens a new record of the page's model.
 */
function pageAt(steps: StepData[], i: number, startPath: string | null): Page {
  let page = pageOf(startPath);
  for (let j = 0; j <= i; j++) {
    const s = steps[j]!;
    if (s.url) page = pageOf(s.url) ?? page;
    if (j === i) break;
    if (s.kind === 'navigate' && s.value?.kind === 'literal') page = pageOf(s.value.value) ?? page;
    if (s.kind === 'click' && hasTestId(s, 'new-record') && page) page = { ...page, record: 'new' };
    if (s.kind === 'click' && isSave(s) && page?.record === 'new') page = { ...page, record: 'saved' };
  }
  return page;
}

/** The sentence of step `i` made from its intent (no caption), before `speakable`. */
function intentOf(steps: StepData[], i: number, startPath: string | null): string {
  const step = steps[i]!;
  const what = targetWords(step) ?? 'the page';
  const value = valueWords(step);
  const page = pageAt(steps, i, startPath);
  switch (step.kind) {
    case 'navigate': {
      const to = pageOf(step.value?.kind === 'literal' ? step.value.value : null);
      if (!to) return 'Go to the next page';
      return to.record === 'new' ? `Open a new ${to.singular}` : to.record ? `Open a ${to.singular}` : `Go to the ${to.plural} page`;
    }
    case 'click': {
      if (isSave(step)) {
        const name = recordName(steps, i);
        const entity = page?.singular ?? 'record';
        if (page?.record === 'new') return name ? `Create the ${entity} ${name}` : `Create the ${entity}`;
        return name ? `Save the ${entity} ${name}` : page ? `Save the ${entity}` : 'Save';
      }
      if (hasTestId(step, 'new-record')) return page ? `Start a new ${page.singular}` : 'Start a new record';
      if (hasRole(step, 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio')) return `Pick ${what}`;
      if (hasRole(step, 'row', 'link', 'tab', 'treeitem') || testIds(step).some((t) => /^(app|menu|breadcrumb)-/.test(t))) return `Open ${what}`;
      return `Click ${what}`;
    }
    case 'fill':
      if (step.value?.kind === 'secret') return `Type ${value} into ${what}`;
      if (isSearchBox(step)) return value ? `Search for ${value}` : 'Clear the search';
      return value ? `Fill ${what} with ${value}` : `Clear ${what}`;
    case 'press':
      if (value === 'Enter' && step.target && isSearchBox(step)) return 'Run the search';
      return step.target ? `Press ${value} in ${what}` : `Press ${value}`;
    case 'select': return `Choose ${value} in ${what}`;
    case 'check': return `Tick ${what}`;
    case 'uncheck': return `Untick ${what}`;
    case 'upload': return `Upload ${value}`;
    case 'hover': return `Point at ${what}`;
    case 'wait': {
      if (step.target) return `Wait for ${what}`;
      const ms = Number(step.value?.value ?? step.timeout_ms ?? 0);
      return ms >= 1000 ? `Wait ${+(ms / 1000).toFixed(1)} seconds` : 'Wait a moment';
    }
    case 'chapter': return value || 'Next part';
    case 'assert': return assertSentence(step, what);
  }
  return `Do ${String(step.kind)}`;
}

/**
 * The sentence narrating step `i` of `steps`: its caption when it has one (a chapter's title is
 * its caption), else one made from its intent. Never a URL; secrets are never read out.
 */
export function sentenceAt(steps: StepData[], i: number, startPath: string | null = null): string {
  const step = steps[i]!;
  return speakable(step.caption && step.caption.trim() ? step.caption : intentOf(steps, i, startPath));
}

/** One sentence per step of a use case opened at `startPath` (see `sentenceAt`). */
export function narrate(steps: StepData[], startPath: string | null = null): string[] {
  return steps.map((_, i) => sentenceAt(steps, i, startPath));
}
