import { accessibleName, candidatesFor, isSecretField, resolveChain, roleOf, type Chain } from './locators.ts';

/**
 * Implicit checks the recorder adds, so a green replay cannot hide lost data (issue 32):
 *
 * - **Saved values.** When the person saves a form, each field they changed in it gets an
 *   `assert` of the value they left there (`value`, or `checked` for a checkbox). Its locators
 *   start at the form once it shows the record as read back from the server after the save
 *   (`form[data-testid="form-view"][data-synced]`, FormView), so the replay checks what was
 *   stored, not what was typed: a value the save lost fails that check, on its own step.
 * - **Picked options.** A click on an option of a picker (a combobox's list) is followed by an
 *   `assert` that the picker now shows the option.
 *
 * Each check carries a caption ("Country shows France after saving"), which names the step in
 * the results and narrates it in videos.
 */

export interface Check {
  kind: 'assert';
  target: { candidates: Chain[] };
  assertion: { kind: 'value' | 'checked'; expected: string };
  caption: string;
}

/** The form as it shows the record read back after a save (FormView's `data-synced`). */
export const SYNCED_FORM: Chain[number] = { by: 'css', value: 'form[data-testid="form-view"][data-synced]' };

const norm = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CONTROL = 'input:not([type=hidden]):not([type=file]), select, textarea';

/** A form field of the platform's form view: `[data-testid="field-<name>"]` inside `form-view`. */
export function fieldOf(el: Element): { name: string; label: string; control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement; form: HTMLFormElement } | null {
  const wrapper = el.closest('[data-testid^="field-"]');
  const form = wrapper?.closest('form[data-testid="form-view"]');
  if (!wrapper || !(form instanceof HTMLFormElement)) return null;
  const control = wrapper.querySelector(CONTROL) as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | null;
  if (!control || !(control === el || control.contains(el) || el.contains(control) || wrapper.contains(el))) return null;
  const name = wrapper.getAttribute('data-testid')!.slice('field-'.length);
  const label = norm(wrapper.querySelector('label, .label')?.textContent).replace(/\s*\*$/, '') || norm(accessibleName(control)) || name;
  return { name, label, control, form };
}

/** Whether the click is the one that saves a form view (its submit button). */
export function savesForm(el: Element): HTMLFormElement | null {
  const form = el.closest('form[data-testid="form-view"]');
  if (!(form instanceof HTMLFormElement)) return null;
  const button = el.closest('button');
  return button && (button.type === 'submit' || button.getAttribute('data-testid') === 'form-save') ? form : null;
}

/** What a person reads in a control: a number as the form shows it once stored ("12.50" is 12.5). */
function shownValue(control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): string | null {
  if (control instanceof HTMLInputElement && control.type === 'number') {
    const v = control.value.trim();
    return v === '' || !Number.isFinite(Number(v)) ? v : String(Number(v));
  }
  if (control instanceof HTMLSelectElement) {
    // a record id differs in every tenant (the sandbox too): only a stable option value is checked
    return UUID.test(control.value) ? null : control.value;
  }
  return control.value;
}

/** The control's candidates, each starting at the form read back after the save. */
function savedTarget(control: Element): { candidates: Chain[] } | null {
  const candidates = candidatesFor(control)
    .filter((c) => c.length < 8 && c[0]?.by !== 'css')
    .slice(0, 4)
    .map((c) => [SYNCED_FORM, ...c]);
  return candidates.length ? { candidates } : null;
}

const clip = (s: string) => (s.length > 80 ? `${s.slice(0, 77)}…` : s);

/** The checks of the fields the person changed (`touched`, by field name) in `form`, read as they left them. */
export function savedChecks(form: HTMLFormElement, touched: ReadonlySet<string>): Check[] {
  const out: Check[] = [];
  for (const name of touched) {
    const wrapper = form.querySelector(`[data-testid="field-${CSS.escape(name)}"]`);
    const f = wrapper ? fieldOf(wrapper) : null;
    if (!f || f.form !== form || f.control.disabled || isSecretField(f.control)) continue;
    const target = savedTarget(f.control);
    if (!target) continue;
    if (f.control instanceof HTMLInputElement && (f.control.type === 'checkbox' || f.control.type === 'radio')) {
      const on = f.control.checked;
      out.push({ kind: 'assert', target, assertion: { kind: 'checked', expected: String(on) }, caption: `${f.label} is ${on ? 'ticked' : 'not ticked'} after saving` });
      continue;
    }
    const value = shownValue(f.control);
    if (value === null || value.length > 500) continue;
    const picker = roleOf(f.control) === 'combobox';
    const caption = value === '' ? `${f.label} is empty after saving` : `${f.label} ${picker ? 'shows' : 'holds'} ${clip(value)} after saving`;
    out.push({ kind: 'assert', target, assertion: { kind: 'value', expected: value }, caption });
  }
  return out;
}

/**
 * For a click on an option of a picker: the check that the picker then shows it (null when the
 * option belongs to no combobox, as in a menu). Read when the option is pressed, before the list
 * closes.
 */
export function pickerCheck(option: Element): { check: Check; control: Element } | null {
  if (roleOf(option) !== 'option') return null;
  const list = option.closest('[role=listbox]');
  if (!list?.id) return null;
  const control = Array.from(document.querySelectorAll('[role=combobox][aria-controls]'))
    .find((c) => (c.getAttribute('aria-controls') ?? '').split(/\s+/).includes(list.id));
  if (!(control instanceof HTMLInputElement)) return null;
  const text = norm(accessibleName(option)) || norm(option.textContent);
  const candidates = candidatesFor(control);
  if (!text || !candidates.length) return null;
  const label = fieldOf(control)?.label ?? (norm(accessibleName(control)) || 'The picker');
  return { control, check: { kind: 'assert', target: { candidates }, assertion: { kind: 'value', expected: text }, caption: `${label} shows ${clip(text)}` } };
}

/** A saved-value check whose field showed something else once the saved record was read back. */
export interface Lost { label: string; expected: string; shown: string }

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Reads the saved form back, as the replay will, once it shows the record read again from the
 * server (`data-synced`, up to `ms`): the checks whose field shows something else than the person
 * left there. Lost data is then seen while recording, not only at the first replay.
 */
export async function readBack(checks: Check[], ms = 15_000): Promise<Lost[]> {
  const deadline = Date.now() + ms;
  while (!document.querySelector(SYNCED_FORM.value)) {
    if (Date.now() > deadline) return [];
    await sleep(150);
  }
  const lost: Lost[] = [];
  for (const c of checks) {
    const el = resolveChain(c.target.candidates[0]!)[0];
    if (!(el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement)) continue;
    const shown = c.assertion.kind === 'checked' ? String((el as HTMLInputElement).checked) : el.value;
    const label = c.caption.replace(/ (holds|shows|is) .*$/, '');
    if (shown !== c.assertion.expected && !(el instanceof HTMLInputElement && el.type === 'number' && Number(shown) === Number(c.assertion.expected))) {
      lost.push({ label, expected: c.assertion.expected, shown });
    }
  }
  return lost;
}
