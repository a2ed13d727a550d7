import { request } from '../api/client.ts';
import { ApiError, NETWORK_ERROR } from '../api/errors.ts';
import { AppendStepDocument, FinalizeDocument, PromoteDocument, RecordingStateDocument, StartDocument, StepCaptionDocument } from './api.ts';
import { fieldOf, pickerCheck, readBack, savedChecks, savesForm, type Check, type Lost } from './checks.ts';
import { actionable, assertionTarget, candidatesFor, describe, isSecretField, isTextEntry, isVisible, roleOf, selectValue, visibleText, type Chain } from './locators.ts';
import { pagePath, readStored, writeStored, type Stored, type StoredStep } from './session.ts';

/**
 * The recorder: captures what the person does on the platform's pages (capture phase, so the
 * page's own handlers cannot hide it) and sends each action as one step of the live recording,
 * in order, through `qaRecordingAppendStep`. Steps are data (src/apps/qa/steps.ts):
 *
 * | action | step |
 * |---|---|
 * | click (mouse, or Enter/Space on a button) | `click` on the nearest control, link or row |
 * | typing in a field | one `fill` with the final value, sent on change, blur or the next action (a password field sends the secret `password`, never what was typed) |
 * | Enter in a field or on a row | `press` `Enter` |
 * | select, checkbox, radio | `select` (the option's value), `check` / `uncheck` |
 * | a file picked | `upload` with the file's name, on the button that opened the picker (that click is not a step of its own) |
 * | back / forward, a page loaded at another address | `navigate` to the path (a page change caused by a recorded action is not a step) |
 * | Save on a form (or Enter in one of its fields) | the `click` (or `press`), then an `assert` per field changed in that form: the value left there, read back from the saved form (checks.ts) |
 * | a click on an option of a picker | the `click`, then an `assert` that the picker shows the option |
 *
 * The recorder's own UI (`[data-qa-recorder]`) is never captured. Steps not yet acknowledged
 * are kept in sessionStorage with the sequence they should get, so a reload neither loses nor
 * repeats them.
 */

type Json = Record<string, unknown>;
export interface Step {
  kind: 'navigate' | 'click' | 'fill' | 'press' | 'select' | 'check' | 'uncheck' | 'upload' | 'assert' | 'chapter';
  target?: { candidates: Chain[]; secret?: boolean } | null;
  value?: { kind: 'literal' | 'secret'; value: string } | null;
  assertion?: { kind: 'visible' | 'text' | 'contains_text' | 'value' | 'checked'; expected?: string } | null;
  caption?: string | null;
  screenshot?: 'always' | 'on_failure' | 'never';
  url?: string | null;
}

export interface RecordingInfo {
  id: string; name: string; usecase_key: string; module: string; status: 'live' | 'finalised' | 'promoted';
  promoted: { key: string; version: number } | null;
}
export interface Picked { description: string; text: string; candidates: Chain[] }

export interface RecorderState {
  /** loading: reading the stored recording; setup: the start form; recording: live; finished: finalised or promoted */
  phase: 'loading' | 'setup' | 'recording' | 'finished';
  recording: RecordingInfo | null;
  paused: boolean;
  /** Steps stored on the server. */
  count: number;
  /** Steps captured, not yet stored. */
  queued: number;
  /** "Add assertion": the next click picks an element instead of acting. */
  picking: boolean;
  picked: Picked | null;
  lastStep: { kind: string; caption: string | null } | null;
  /** Fields whose saved value, read back after a save, is not what the person left (their checks will fail). */
  lost: Lost[];
  /** The last error (shown as a sentence); `stuck` when steps wait for a retry. */
  error: unknown;
  stuck: boolean;
  busy: boolean;
}

const INITIAL: RecorderState = { phase: 'loading', recording: null, paused: false, count: 0, queued: 0, picking: false, picked: null, lastStep: null, lost: [], error: null, stuck: false, busy: false };

let state: RecorderState = INITIAL;
const listeners = new Set<() => void>();
function set(patch: Partial<RecorderState>): void {
  state = { ...state, ...patch };
  listeners.forEach((l) => l());
}
export const getState = () => state;
export function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

// ---------------------------------------------------------------------------------------------
// persistence and the send queue

let stored: Stored | null = null;
let queue: StoredStep[] = [];
let lastStepId: string | null = null;
let sending = false;
let drainers: Array<() => void> = [];

function persist(): void {
  if (!stored) return;
  stored = { ...stored, queue, count: state.count, lastStepId, paused: state.paused, status: state.recording?.status ?? stored.status };
  writeStored(stored);
}

const retryable = (err: unknown) => !(err instanceof ApiError) || err.code === NETWORK_ERROR || err.status >= 500 || err.code === 'INTERNAL_ERROR';

function enqueue(step: Step): void {
  if (state.phase !== 'recording') return;
  flushHeld();
  if (step.kind !== 'fill') flushFill();
  const seq = state.count + queue.length + 1;
  const clean: Json = { ...step, url: step.url ?? pagePath().slice(0, 1000) };
  for (const k of Object.keys(clean)) if (clean[k] === undefined || clean[k] === null) delete clean[k];
  queue = [...queue, { seq, step: clean }];
  set({ queued: queue.length, lastStep: { kind: step.kind, caption: step.caption ?? null } });
  persist();
  void pump();
}

async function pump(): Promise<void> {
  if (sending || !state.recording) return;
  sending = true;
  try {
    while (queue.length && state.recording) {
      const item = queue[0];
      try {
        const res = (await request(AppendStepDocument, { recording_id: state.recording.id, ...(item.step as { kind: string }) })).qaRecordingAppendStep;
        // the server numbers the steps: a step appended meanwhile by another client shifts ours
        const delta = res ? res.sequence - item.seq : 0;
        queue = queue.slice(1).map((q) => (delta ? { ...q, seq: q.seq + delta } : q));
        lastStepId = res?.id ?? null;
        set({ count: res?.sequence ?? state.count + 1, queued: queue.length, error: state.stuck ? null : state.error, stuck: false });
        persist();
      } catch (err) {
        if (retryable(err)) {
          set({ error: err, stuck: true });
          return;
        }
        if (err instanceof ApiError && err.code === 'QA_RECORDING_NOT_LIVE') {
          // finalised elsewhere (fw e2e record --finalize): nothing more is taken
          queue = [];
          persist();
          set({ error: err, queued: 0 });
          await load(state.recording.id);
          return;
        }
        // refused (an invalid step): it is dropped, the next ones move up one
        queue = queue.slice(1).map((q) => ({ ...q, seq: q.seq - 1 }));
        set({ error: err, queued: queue.length });
        persist();
      }
    }
  } finally {
    sending = false;
    if (!queue.length) {
      const d = drainers;
      drainers = [];
      d.forEach((f) => f());
    }
  }
}

/** Resolves once every captured step is stored (false when some wait for a retry). */
function drain(): Promise<boolean> {
  flushHeld();
  flushFill();
  if (!queue.length && !sending) return Promise.resolve(true);
  if (state.stuck) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => { off(); resolve(ok); };
    const off = subscribe(() => { if (state.stuck) done(false); });
    drainers.push(() => done(true));
    void pump();
  });
}

export function retry(): void {
  set({ error: null, stuck: false });
  if (state.phase === 'loading' && stored) void load(stored.id);
  else void pump();
}

export function dismissError(): void {
  set({ error: null });
}

// ---------------------------------------------------------------------------------------------
// lifecycle

function infoOf(r: { id: string; name: string; usecase_key: string; module: string; status: string; promoted_usecase_id?: { key: string; version: number } | null }): RecordingInfo {
  return {
    id: r.id, name: r.name, usecase_key: r.usecase_key, module: r.module, status: r.status as RecordingInfo['status'],
    promoted: r.promoted_usecase_id ? { key: r.promoted_usecase_id.key, version: r.promoted_usecase_id.version } : null,
  };
}

let started = false;
/** Called by the bar when it mounts: attaches to the stored recording, if any. */
export function init(): void {
  if (started) return;
  started = true;
  stored = readStored();
  if (!stored) { set({ phase: 'setup' }); return; }
  void load(stored.id);
}

async function load(id: string): Promise<void> {
  try {
    const data = await request(RecordingStateDocument, { id });
    const rec = data.qaRecording;
    if (!rec) throw new ApiError('RECORD_NOT_FOUND', 'recording not found', 404);
    const info = infoOf(rec);
    const last = data.qaRecordingSteps[0];
    const serverCount = last?.sequence ?? 0;
    if (info.status !== 'live') {
      detach();
      queue = [];
      set({ phase: 'finished', recording: info, count: serverCount, queued: 0, picking: false, picked: null });
      persist();
      return;
    }
    stored = readStored()?.id === id ? readStored() : { id };
    // a step sent just before a reload may have been stored without its answer: not twice
    queue = (stored!.queue ?? []).filter((q) => q.seq > serverCount);
    lastStepId = last?.id ?? null;
    set({
      phase: 'recording', recording: info, count: serverCount, queued: queue.length, paused: !!stored!.paused,
      lastStep: last ? { kind: last.kind, caption: last.caption ?? null } : null,
    });
    const before = stored!.lastPath;
    persist();
    if (!state.paused) attach();
    // a page loaded at another address (typed, bookmarked) is a navigation of the flow
    if (before && before !== pagePath() && !state.paused) enqueue({ kind: 'navigate', value: { kind: 'literal', value: pagePath() } });
    seePage();
    void pump();
  } catch (err) {
    if (retryable(err)) {
      // the server cannot be reached now: stay attached, Retry loads it again
      set({ phase: 'loading', error: err, stuck: true });
      return;
    }
    // gone, or not ours to see: this tab lets go of it
    writeStored(null);
    stored = null;
    set({ phase: 'setup', error: err, stuck: false });
  }
}

export async function start(o: { usecase_key: string; module: string; name: string }): Promise<boolean> {
  set({ busy: true, error: null });
  try {
    const rec = (await request(StartDocument, { usecase_key: o.usecase_key, module: o.module, name: o.name || null, start_path: pagePath() })).qaRecordingStart!;
    stored = { id: rec.id, queue: [], count: 0, lastPath: pagePath() };
    queue = [];
    lastStepId = null;
    set({ phase: 'recording', recording: infoOf(rec), count: 0, queued: 0, paused: false, lastStep: null, busy: false });
    persist();
    attach();
    return true;
  } catch (err) {
    set({ error: err, busy: false });
    return false;
  }
}

export function pause(): void {
  flushHeld();
  flushFill();
  detach();
  set({ paused: true, picking: false });
  persist();
}

export function resume(): void {
  set({ paused: false });
  persist();
  attach();
  seePage();
}

export async function finish(): Promise<void> {
  if (!state.recording) return;
  set({ busy: true, error: null, picking: false, picked: null });
  stopPicking();
  const ok = await drain();
  if (!ok) { set({ busy: false }); return; }
  try {
    const r = (await request(FinalizeDocument, { id: state.recording.id })).qaRecordingFinalize;
    detach();
    set({ phase: 'finished', busy: false, recording: { ...state.recording, status: (r?.status as RecordingInfo['status']) ?? 'finalised' } });
    persist();
  } catch (err) {
    set({ busy: false, error: err });
  }
}

export async function promote(o: { usecase_key: string; name: string }): Promise<void> {
  if (!state.recording) return;
  set({ busy: true, error: null });
  try {
    const r = (await request(PromoteDocument, { id: state.recording.id, usecase_key: o.usecase_key || null, name: o.name || null })).qaRecordingPromote?.usecase;
    set({ busy: false, recording: { ...state.recording, status: 'promoted', promoted: { key: r?.key ?? o.usecase_key, version: r?.version ?? 1 } } });
    persist();
  } catch (err) {
    set({ busy: false, error: err });
  }
}

/** Closes the bar's recording: this tab is no longer attached to it (the recording stays on the server). */
export function close(): void {
  detach();
  stopPicking();
  writeStored(null);
  stored = null;
  queue = [];
  lastStepId = null;
  set({ ...INITIAL, phase: 'setup' });
}

export function chapter(title: string): void {
  enqueue({ kind: 'chapter', caption: title });
}

/** Sets the caption of the last step (waiting for it to be stored if it is still queued). */
export async function caption(text: string): Promise<boolean> {
  const last = queue[queue.length - 1];
  if (last && !(sending && queue.length === 1)) {
    last.step = { ...last.step, caption: text };
    persist();
    set({ lastStep: state.lastStep && { ...state.lastStep, caption: text } });
    return true;
  }
  if (!(await drain()) || !lastStepId) return false;
  try {
    await request(StepCaptionDocument, { id: lastStepId, caption: text });
    set({ lastStep: state.lastStep && { ...state.lastStep, caption: text } });
    return true;
  } catch (err) {
    set({ error: err });
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// "Add assertion": the next click picks an element

let highlight: HTMLDivElement | null = null;
const block = (e: Event) => {
  if (inRecorder(e.target)) return;
  e.preventDefault();
  e.stopImmediatePropagation();
};
function onPickMove(e: MouseEvent): void {
  const t = e.target as Element | null;
  if (!t || inRecorder(t)) { if (highlight) highlight.style.display = 'none'; return; }
  const el = assertionTarget(t);
  const r = el.getBoundingClientRect();
  if (!highlight) {
    highlight = document.createElement('div');
    highlight.className = 'qa-highlight';
    highlight.setAttribute('data-qa-recorder', '');
    highlight.setAttribute('aria-hidden', 'true');
    document.body.append(highlight);
  }
  Object.assign(highlight.style, { display: 'block', left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
}
function onPickClick(e: MouseEvent): void {
  const t = e.target as Element | null;
  if (!t || inRecorder(t)) return;
  block(e);
  const el = assertionTarget(t);
  stopPicking();
  set({ picked: { description: describe(el), text: visibleText(el), candidates: candidatesFor(el) } });
}
function onPickKey(e: KeyboardEvent): void {
  if (e.key === 'Escape') { block(e); stopPicking(); }
}
const PICK_BLOCKED = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'dblclick', 'auxclick', 'contextmenu', 'submit'] as const;

export function startPicking(): void {
  if (state.phase !== 'recording' || state.paused) return;
  flushHeld();
  flushFill();
  for (const t of PICK_BLOCKED) window.addEventListener(t, block, true);
  window.addEventListener('click', onPickClick, true);
  window.addEventListener('mousemove', onPickMove, true);
  window.addEventListener('keydown', onPickKey, true);
  set({ picking: true, picked: null });
}

export function stopPicking(): void {
  for (const t of PICK_BLOCKED) window.removeEventListener(t, block, true);
  window.removeEventListener('click', onPickClick, true);
  window.removeEventListener('mousemove', onPickMove, true);
  window.removeEventListener('keydown', onPickKey, true);
  highlight?.remove();
  highlight = null;
  if (state.picking) set({ picking: false });
}

export function assertPicked(kind: 'visible' | 'text'): void {
  const p = state.picked;
  if (!p || !p.candidates.length) return;
  const assertion = kind === 'visible' ? { kind } as const
    : p.text.length <= 500 ? { kind: 'text', expected: p.text } as const : { kind: 'contains_text', expected: p.text.slice(0, 500) } as const;
  set({ picked: null });
  enqueue({ kind: 'assert', target: { candidates: p.candidates }, assertion });
}

export function cancelPicked(): void {
  stopPicking();
  set({ picked: null });
}

// ---------------------------------------------------------------------------------------------
// capture

/** The recorder's own UI, and the toasts (transient: dismissing one is not a step of the flow). */
const inRecorder = (t: EventTarget | null) => t instanceof Element && !!t.closest('[data-qa-recorder], [data-testid="toaster"]');
const targetOf = (el: Element) => {
  // a control hidden behind its label (a styled checkbox) is reached through what is visible
  let at: Element | null = el;
  if (!isVisible(el)) at = (el as HTMLInputElement).labels?.[0] ?? el.parentElement;
  while (at && !isVisible(at) && at.parentElement) at = at.parentElement;
  // a field hiding what is typed is marked, so the server stores a literal filled into it as a
  // secret whatever its locators look like
  return { candidates: candidatesFor(at ?? el), ...(isSecretField(el) ? { secret: true } : {}) };
};
const literal = (value: string) => ({ kind: 'literal', value } as const);

/** A click waits one task: a click that opens a file picker becomes the upload's target instead. */
let held: Step | null = null;
let heldTimer: ReturnType<typeof setTimeout> | null = null;
function flushHeld(): void {
  if (heldTimer) clearTimeout(heldTimer);
  heldTimer = null;
  const h = held;
  held = null;
  if (h) enqueue(h);
}
function hold(step: Step): void {
  flushHeld();
  flushFill();
  held = { ...step, url: pagePath().slice(0, 1000) };
  heldTimer = setTimeout(flushHeld, 0);
}

// ---------------------------------------------------------------------------------------------
// implicit checks (checks.ts): the fields a person changed, per form, until the form is saved

const touched = new WeakMap<HTMLFormElement, Set<string>>();
function touch(el: Element): void {
  const f = fieldOf(el);
  if (!f) return;
  const names = touched.get(f.form) ?? new Set<string>();
  names.add(f.name);
  touched.set(f.form, names);
}

/** After the step that saves `form`: a check per field changed in it, as the person left it. */
function checkSaved(form: HTMLFormElement): void {
  flushFill();
  const names = touched.get(form);
  touched.delete(form);
  if (!names?.size) return;
  const checks = savedChecks(form, names);
  for (const c of checks) enqueue(c);
  // read back as the replay will: lost data shows now, in the bar
  void readBack(checks).then((lost) => set({ lost }));
}

export function dismissLost(): void {
  set({ lost: [] });
}

/** An option pressed in a picker: its check follows the click on it. */
let picking: { option: Element; check: Check } | null = null;

/** Typing becomes one fill: the field and its candidates from the first keystroke, the value when it is sent. */
let pendingFill: { el: HTMLInputElement | HTMLTextAreaElement | HTMLElement; target: Step['target']; secret: boolean; url: string } | null = null;
function flushFill(): void {
  const p = pendingFill;
  if (!p) return;
  pendingFill = null;
  const value = p.secret ? { kind: 'secret', value: 'password' } as const
    : literal('value' in p.el ? String(p.el.value) : p.el.textContent ?? '');
  touch(p.el);
  enqueue({ kind: 'fill', target: p.target, value, url: p.url });
}

let uploadTarget: Step['target'] | null = null;
/** Enter on a field was recorded as a press: the click the browser makes of it is not a step. */
let suppressKeyClickUntil = 0;
/** Enter/Space on a button: a click, whether or not the browser dispatches one. */
let keyed: { el: Element; target: Step['target']; clicked: boolean } | null = null;

const isCheckable = (el: Element): el is HTMLInputElement => el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio');
const isFileInput = (el: Element): el is HTMLInputElement => el instanceof HTMLInputElement && el.type === 'file';

/** Clicks that are not steps: focusing a field (its fill is), a checkbox or select (their change is). */
function clickIsNotAStep(el: Element): boolean {
  if (isTextEntry(el) || el instanceof HTMLSelectElement || el instanceof HTMLOptionElement || isCheckable(el)) return true;
  if (el instanceof HTMLLabelElement && el.control) return !isFileInput(el.control);
  return false;
}

/**
 * The control a pointer went down on. A menu or popover trigger ("Group by", "Filters") opens on
 * press start; its overlay then takes the pointer up, so the browser dispatches the click on the
 * common ancestor of the two, `body`. Such a click is the trigger's, taken as it was pressed.
 */
let pressed: { el: Element; target: Step['target']; at: number } | null = null;
const isDocumentEl = (el: Element) => el === document.body || el === document.documentElement;

function onPointerDown(e: PointerEvent): void {
  const t = e.target as Element | null;
  pressed = null;
  if (!t || !e.isTrusted || e.button !== 0 || inRecorder(t)) return;
  const el = actionable(t);
  if (!isDocumentEl(el) && !clickIsNotAStep(el)) pressed = { el, target: targetOf(el), at: Date.now() };
  // read while the list is open: picking closes it
  const pick = pressed && roleOf(el) === 'option' ? pickerCheck(el) : null;
  picking = pick ? { option: el, check: pick.check } : null;
  if (pick) touch(pick.control);
}

/** A click as a step, followed by its implicit checks (a picked option, a saved form). */
function holdClick(el: Element, target: Step['target']): void {
  const form = savesForm(el);
  const pick = picking && (picking.option === el || el.contains(picking.option) || picking.option.contains(el)) ? picking.check : null;
  picking = null;
  hold({ kind: 'click', target });
  if (pick) enqueue(pick);
  if (form) checkSaved(form);
}

function onClick(e: MouseEvent): void {
  const t = e.target as Element | null;
  if (!t || inRecorder(t)) return;
  const p = pressed;
  pressed = null;
  if (p && e.isTrusted && t !== p.el && t.contains(p.el) && actionable(t) !== p.el && Date.now() - p.at < 5_000 && isDocumentEl(actionable(t))) {
    // the click landed on an ancestor of what was pressed (an overlay opened in between)
    holdClick(p.el, p.target);
    return;
  }
  if (isFileInput(t)) {
    // the picker opens: the click that opened it (held) becomes the upload's target
    if (held) {
      if (heldTimer) clearTimeout(heldTimer);
      uploadTarget = held.target ?? null;
      held = null;
    } else if (keyed) {
      // opened from the keyboard (Enter on the Upload button)
      uploadTarget = keyed.target ?? null;
      keyed.clicked = true;
      keyed = null;
    } else {
      uploadTarget = isVisible(t) ? targetOf(t) : null;
    }
    return;
  }
  const el = actionable(t);
  if (keyed && (keyed.el === el || keyed.el.contains(el) || el.contains(keyed.el))) {
    // the key's own click: a step once, with what the key was pressed on
    keyed.clicked = true;
    if (!clickIsNotAStep(keyed.el)) holdClick(keyed.el, keyed.target);
    keyed = null;
    return;
  }
  if (!e.isTrusted) return;
  if (e.detail === 0 && Date.now() < suppressKeyClickUntil) return;
  if (clickIsNotAStep(el)) return;
  holdClick(el, targetOf(el));
}

function onInput(e: Event): void {
  const t = e.target as Element | null;
  if (!t || !e.isTrusted || inRecorder(t) || !isTextEntry(t) || isFileInput(t)) return;
  if (pendingFill && pendingFill.el !== t) flushFill();
  if (!pendingFill) {
    flushHeld();
    pendingFill = { el: t as HTMLInputElement, target: targetOf(t), secret: isSecretField(t), url: pagePath().slice(0, 1000) };
  }
}

function onChange(e: Event): void {
  const t = e.target as Element | null;
  if (!t || inRecorder(t)) return;
  if (isFileInput(t)) {
    const name = t.files?.[0]?.name;
    const target = uploadTarget ?? targetOf(t);
    uploadTarget = null;
    if (name) enqueue({ kind: 'upload', target, value: literal(name) });
    return;
  }
  // a select or a checkbox changed by script counts too (automation tools dispatch these events)
  if (isCheckable(t)) {
    touch(t);
    enqueue({ kind: t.type === 'radio' || t.checked ? 'check' : 'uncheck', target: targetOf(t) });
  } else if (t instanceof HTMLSelectElement) {
    touch(t);
    enqueue({ kind: 'select', target: targetOf(t), value: literal(selectValue(t)) });
  } else if (e.isTrusted && pendingFill?.el === t) {
    flushFill();
  }
}

function onCancel(e: Event): void {
  if (e.target instanceof Element && isFileInput(e.target)) uploadTarget = null;
}

function onFocusOut(e: FocusEvent): void {
  if (pendingFill && pendingFill.el === e.target) flushFill();
}

const KEY_ROWS = '[role=row], tr[tabindex], [role=treeitem], [role=gridcell], [role=option]';
function onKeyDown(e: KeyboardEvent): void {
  const t = e.target as Element | null;
  if (!t || !e.isTrusted || e.isComposing || inRecorder(t)) return;
  if (e.key !== 'Enter' && e.key !== ' ') return;
  if (e.key === 'Enter' && (t instanceof HTMLTextAreaElement || (t as HTMLElement).isContentEditable)) return;
  if (e.key === 'Enter' && ((isTextEntry(t) && !isFileInput(t)) || t.matches(KEY_ROWS))) {
    flushHeld();
    flushFill();
    enqueue({ kind: 'press', target: targetOf(t), value: literal('Enter') });
    suppressKeyClickUntil = Date.now() + 500;
    // Enter in a field of a form (not a picker, where it picks) submits it: a save like the button's
    const form = t instanceof HTMLInputElement && roleOf(t) !== 'combobox' ? t.form : null;
    if (form?.matches('[data-testid="form-view"]') && form.querySelector('button[type=submit]')) checkSaved(form);
    return;
  }
  const el = actionable(t);
  if (!clickIsNotAStep(el)) keyed = { el, target: targetOf(el), clicked: false };
}

function onKeyUp(e: KeyboardEvent): void {
  if (!keyed || (e.key !== 'Enter' && e.key !== ' ')) return;
  const k = keyed;
  // the click the key makes (if any) comes with or right after keyup
  setTimeout(() => {
    if (keyed === k) keyed = null;
    // React Aria acts on the key without a click event (a menu item may already be gone)
    if (!k.clicked && attached) holdClick(k.el, k.target);
  }, 50);
}

function onPopState(): void {
  flushHeld();
  flushFill();
  enqueue({ kind: 'navigate', value: literal(pagePath()) });
  seePage();
}

/** Remembers the page, so a load at another address is told apart from a reload. */
function seePage(): void {
  if (!stored) return;
  stored = { ...stored, lastPath: pagePath() };
  writeStored(stored);
}
function onPageHide(): void {
  flushHeld();
  flushFill();
  seePage();
}

const DOC_LISTENERS: Array<[string, EventListener]> = [
  ['pointerdown', onPointerDown as EventListener], ['click', onClick as EventListener], ['input', onInput], ['change', onChange], ['cancel', onCancel],
  ['focusout', onFocusOut as EventListener], ['keydown', onKeyDown as EventListener], ['keyup', onKeyUp as EventListener],
];
let attached = false;
function attach(): void {
  if (attached) return;
  attached = true;
  for (const [type, fn] of DOC_LISTENERS) document.addEventListener(type, fn, true);
  window.addEventListener('popstate', onPopState);
  window.addEventListener('pagehide', onPageHide);
}
function detach(): void {
  if (!attached) return;
  attached = false;
  flushHeld();
  flushFill();
  for (const [type, fn] of DOC_LISTENERS) document.removeEventListener(type, fn, true);
  window.removeEventListener('popstate', onPopState);
  window.removeEventListener('pagehide', onPageHide);
}
