import { useQuery } from '@tanstack/react-query';
import { PageLoading } from '../../app/PageLoading.tsx';
import { Link, useBlocker, useNavigate, useParams } from '@tanstack/react-router';
import { createContext, useContext, useEffect, useMemo, useRef, useState, type ComponentType } from 'react';
import { Controller, useForm, useWatch, type UseFormReturn } from 'react-hook-form';
import { Button, Dialog, Heading, Modal, Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { resultMessage, type ResultMessage } from '../../app/result-message.ts';
import { ErrorPanel, NotFoundPanel } from '../../app/ErrorBoundary.tsx';
import { Chatter } from '../../chatter/Chatter.tsx';
import { errorMessage, fieldErrorsOf } from '../../app/errors.ts';
import { asFields, useBootstrap, useModels, type FormPlan, type PlanButton } from '../../app/meta.ts';
import { formActionOf } from '../../app/nav.ts';
import { actionSegment, listScope } from '../../app/search-params.ts';
import { dismiss, toast } from '../../app/toast.tsx';
import { useT } from '../../i18n/index.tsx';
import { watchModel } from '../../live/hub.ts';
import { anyWritable, useWritable } from '../../model/access.ts';
import { createDocument, defaultsOf, displayName, modelOf, oneDocument, selection, toInput, updateDocument, type FieldInfo, type Row } from '../../model/records.ts';
import { recordsKey, useInvalidateModel } from '../../model/useRecords.ts';
import { Display, enumLabel, widgetParts } from '../../widgets/display.tsx';
import { inputWidgetFor } from '../../widgets/inputs.tsx';
import type { ViewProps } from '../registry.ts';
import { filePayload, isFileButton, pickFile, runCommand } from './commands.ts';
import { afterLinesSaved, hasLineChanges, incompleteLine, LineSaveError, noLineChanges, OneToMany, saveLines, shownLines, type LineChanges, type LinesWritten } from './OneToMany.tsx';
import { holds, modifiersOf, watchedFields, type Modifiers } from './modifiers.ts';
import { buildTree, type TreeNode } from './tree.ts';
import { FormPager } from './FormPager.tsx';
import { RecordActions } from './RecordActions.tsx';

/** The values view modifiers read, live (only the fields some modifier names are watched). */
const ModifierValues = createContext<Record<string, unknown>>({});
const useModifier = (raw: unknown) => {
  const values = useContext(ModifierValues);
  const m: Modifiers = modifiersOf(raw);
  return { invisible: holds(m, 'invisible', values), readonly: holds(m, 'readonly', values), required: holds(m, 'required', values) };
};

type Values = Record<string, unknown>;
/** Values typed (and lines changed) in a new record's form while its create ran, by the new id: its own form takes them over. */
const typedDuringCreate = new Map<string, { values: Values; lines: Record<string, LineChanges>; lineErrors: Record<string, string> }>();
/**
 * A statusbar's steps: the values the view lists, and the current value too when it is not one of
 * them (a lost lead on new,qualified,won), as Odoo shows it: in the Enum's order, selected.
 */
function statusSteps(listed: readonly string[], current: unknown, all: readonly string[] | null | undefined): readonly string[] {
  if (typeof current !== 'string' || !current || listed.includes(current)) return listed;
  const at = all?.indexOf(current) ?? -1;
  if (at < 0 || !all) return [...listed, current];
  // before the first listed value that comes after it in the Enum
  const next = listed.findIndex((v) => all.indexOf(v) > at);
  return next < 0 ? [...listed, current] : [...listed.slice(0, next), current, ...listed.slice(next)];
}
/** The fields whose value in `now` is not the one in `sent`. */
const changedSince = (sent: Values, now: Values): Values =>
  Object.fromEntries(Object.entries(now).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(sent[k])));
/** What a model-specific extension of the form gets (connectors add their parameters panel). */
export interface FormExtensionProps { recordId: string | null; form: UseFormReturn<Values>; record: Row | null | undefined; reload: () => void }
interface Conflict { expected: number; actual: number; input: Values }

/**
 * The form view of a render plan: header (statusbar, command buttons), sheet (groups, notebook
 * pages, fields through the widget registry, One2Many lines), the chatter slot. Create, edit,
 * save and discard with a guard against leaving unsaved changes; a save against a revision that
 * changed elsewhere asks whether to reload or overwrite. A record nobody may write (the schema
 * has no update mutation for its model, or the plan no writable field) is shown read-only: no
 * Save or Discard, values through the display widgets, lines that open their own record.
 */
/**
 * A model's own form (connectors) may replace some fields of the plan with its extension, save
 * what the extension keeps in the form along with the record (`onSave`, after the record is
 * written) and leave out header buttons its extension replaces or that do not apply to the record.
 */
export interface FormCustomisation {
  extension?: ComponentType<FormExtensionProps>;
  hiddenFields?: readonly string[];
  onSave?: (id: string, values: Values, dirty: ReadonlySet<string>) => Promise<void>;
  headerButton?: (b: PlanButton, record: Row | null | undefined) => boolean;
}

export default function FormView({ plan, action, org, recordId, search, where, extension: Extension, hiddenFields, onSave, headerButton }: ViewProps<FormPlan> & FormCustomisation) {
  const t = useT();
  const navigate = useNavigate();
  const models = useModels();
  const m = modelOf(models, plan.model);
  const isNew = !recordId || recordId === 'new';
  const fields = asFields(plan.fields);
  const can = useWritable(m);
  const readOnly = !anyWritable(fields) || !(isNew ? can.create : can.update);
  const nested = useMemo(() => Object.fromEntries(plan.nodes.filter((n) => n.list && n.field).map((n) => [n.field!.name, n.list!.columns as readonly FieldInfo[]])), [plan.nodes]);
  // an archivable model's is_active is read even when the form does not show it (Archive or Unarchive)
  const sel = useMemo(() => {
    const base = selection(fields, models, nested);
    return m.archivable && !fields.some((f) => f.name === 'is_active') ? `${base} is_active` : base;
  }, [fields, models, nested, m.archivable]);
  const key = recordsKey(m.key, 'one', sel, recordId);
  const record = useQuery({
    queryKey: key,
    queryFn: async () => (await request<{ record: (Row & { revision: number }) | null }, { id: string }>(oneDocument(m, sel), { id: recordId! })).record,
    enabled: !isNew,
  });
  // a new record shows the model's defaults; they are not dirty, so an untouched one is left to
  // the server (which stores the same value, or the creation time for "now")
  const form = useForm<Values>({ defaultValues: isNew ? defaultsOf(fields) : {} });
  // the One2Many lines' unsaved changes by field: kept here (not in the lines' component) so a save
  // takes out what it wrote and leaves what was done while it ran; the ref is read by the save
  const lines = useRef<Record<string, LineChanges>>({});
  const [lineChanges, setLineChangesState] = useState<Record<string, LineChanges>>({});
  const setLines = (next: Record<string, LineChanges>) => { lines.current = next; setLineChangesState(next); };
  const linesDirty = Object.values(lineChanges).some(hasLineChanges);
  // the stored lines after a save of this form, until the record is read again (a form still dirty
  // does not take the refetch, and the lines it has are those it was loaded with)
  const [storedLines, setStoredLines] = useState<Record<string, Row[]>>({});
  // a line the server refused, said under its One2Many field until its lines change or the form
  // saves again (kept apart from react-hook-form's errors: an error on a name no input registers
  // would stay there and make every later Save invalid)
  const [lineErrors, setLineErrors] = useState<Record<string, string>>({});
  const linesView = useMemo(() => ({ changes: lineChanges, stored: storedLines, errors: lineErrors }), [lineChanges, storedLines, lineErrors]);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [saving, setSaving] = useState(false);
  const [remote, setRemote] = useState<'changed' | 'deleted' | null>(null);
  // whether the fields show the record as last read from the server: false from a save until the
  // refetch after it lands. QA replays read saved values back only then (`data-synced`), so a
  // value the save lost shows as lost instead of as what was typed (docs/qa.md)
  const [fromServer, setFromServer] = useState(false);
  const invalidate = useInvalidateModel();
  const dirty = form.formState.isDirty || linesDirty;
  // view modifiers: the fields their expressions read are watched, so they follow every edit
  const watched = useMemo(() => watchedFields([
    ...plan.nodes.map((n) => modifiersOf(n.modifiers)),
    ...(plan.header?.buttons ?? []).map((b) => modifiersOf(b.modifiers)),
  ]), [plan]);
  const watchedValues = useWatch({ control: form.control, name: watched });
  const modifierValues = useMemo(() => Object.fromEntries(watched.map((f, i) => [f, watchedValues[i]])), [watched, watchedValues]);

  // the revision the person's edits started from: a save is checked against it, not against a
  // refetch that happened meanwhile (that is what makes a conflict a conflict)
  const base = useRef<number | undefined>(undefined);
  const load = (data: Values & { revision?: number }) => {
    form.reset(data);
    base.current = data.revision;
    setLines({});
    setStoredLines({});
    setLineErrors({});
    setRemote(null);
    setFromServer(true);
  };
  useEffect(() => {
    // a refetch never overwrites unsaved edits (fields or lines); one that brought the same data (shared
    // structurally, so the same object) still counts as read back (dataUpdatedAt)
    if (record.data && !form.formState.isDirty && !linesDirty) {
      load(record.data);
      // typed while this record was being created: still unsaved, so dirty
      const typed = recordId ? typedDuringCreate.get(recordId) : undefined;
      if (typed) {
        typedDuringCreate.delete(recordId!);
        for (const [name, v] of Object.entries(typed.values)) form.setValue(name, v, { shouldDirty: true });
        setLines(typed.lines);
        setLineErrors(typed.lineErrors);
        setFromServer(false);
      }
    }
  }, [record.data, record.dataUpdatedAt]); // eslint-disable-line react-hooks/exhaustive-deps

  // the record changed elsewhere: an untouched form follows, a dirty one is told
  useEffect(() => {
    if (isNew) return;
    return watchModel(m, (c) => {
      if (c.id !== recordId) return;
      if (c.op === 'delete') setRemote('deleted');
      else if (form.formState.isDirty) setRemote('changed');
    });
  }, [m, recordId, isNew, form]);

  // a form opened from a list row, a kanban card or New takes the focus (the row or button that
  // had it is gone, leaving it on the page's body): the record's title, so a screen reader says
  // which record opened and Tab goes on into it; a new record's first input, to type at once.
  // Focus the person put somewhere meanwhile stays there.
  const formEl = useRef<HTMLFormElement>(null);
  const titleEl = useRef<HTMLSpanElement>(null);
  const focused = useRef(false);
  const shown = isNew || !!record.data;
  useEffect(() => {
    if (!shown || focused.current || !formEl.current) return;
    focused.current = true;
    const now = document.activeElement;
    if (now && now !== document.body && (formEl.current.contains(now) || now.closest('[role="dialog"], [role="alertdialog"]'))) return;
    const first = isNew ? formEl.current.querySelector<HTMLElement>('.sheet :is(input, textarea, select):not([disabled]):not([type="hidden"])') : null;
    (first ?? titleEl.current)?.focus();
  }, [shown, isNew]);

  // Ctrl+S (⌘S) saves, as in every editor; the browser's "save page" is not what anyone means here
  const submit = useRef<() => void>(() => {});
  // the names the last refused save set an error on
  const serverErrors = useRef<string[]>([]);
  submit.current = () => {
    if (readOnly || saving) return;
    // the server judges again what it refused: its errors never hold a Save back (one on a name no
    // input registers would stay in react-hook-form's errors and make every Save invalid, silently)
    if (serverErrors.current.length) form.clearErrors(serverErrors.current.splice(0));
    void form.handleSubmit((v) => save(v))();
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') { e.preventDefault(); submit.current(); }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // a deleted record's unsaved edits are gone with it: leaving is not blocked
  const leaving = useRef(false);
  // the guard stays on while a save runs: what is typed meanwhile is not saved by it
  const blocker = useBlocker({ shouldBlockFn: () => dirty && !leaving.current, enableBeforeUnload: () => dirty && !leaving.current, withResolver: true });
  // the list the form was opened from: its search and order, kept in the URL
  const scope = listScope(search);
  const openRecord = (id: string) => navigate({ to: '/$org/$action/$record', params: { org, action: actionSegment(action.key), record: id }, search: scope });

  // the error notices of this form's failed saves, taken back when the next save starts (it says its own)
  const saveErrors = useRef<number[]>([]);
  async function save(values: Values, revision?: number) {
    setSaving(true);
    // what the last save was told is answered by this one, whichever way it goes
    for (const e of saveErrors.current.splice(0)) dismiss(e);
    setLineErrors({});
    const dirtyFields = new Set(Object.keys(form.formState.dirtyFields));
    // the lines as they are now: what is done to them while the save runs is left for the next one
    const sentLines = lines.current;
    let id = recordId!;
    let created = false; // this save created the record
    let stored: number | undefined; // the revision this save wrote
    // the lines written so far, filled as they are written: a line that fails leaves the others
    const written: Record<string, LinesWritten> = {};
    /**
     * What a save wrote becomes the form's clean state, also when a line failed after the record
     * (or other lines) were written: the next save then updates the record it created and checks
     * the revision it wrote, instead of creating the record again or conflicting with itself.
     */
    const settle = async (complete: boolean, refusedLines: Record<string, string> = {}) => {
      // what was saved is the new clean state; what was typed while the save ran stays in the
      // fields and keeps the form dirty (keepValues: the dirty state is recomputed against the
      // saved values, so the guard protects it and the next save sends exactly it). A complete
      // save saved every value (an extension's too, through onSave); a failed one only the
      // record's, when it wrote it
      const own = new Set(fields.map((f) => f.name));
      if (complete) form.reset(values, { keepValues: true });
      else if (created || stored !== undefined) {
        // only the record's own fields were written: an extension's values stay unsaved
        for (const name of dirtyFields) {
          if (!own.has(name)) continue;
          const now = form.getValues(name);
          form.resetField(name, { defaultValue: values[name] });
          if (now !== values[name]) form.setValue(name, now, { shouldDirty: true });
        }
      }
      // the same for the lines: what this save wrote becomes the stored lines (the new ones with
      // their ids), what was not written or done to them meanwhile stays unsaved on top
      const left: Record<string, LineChanges> = {};
      const storedRows: Record<string, Row[]> = { ...storedLines };
      for (const [name, w] of Object.entries(written)) {
        const after = afterLinesSaved(storedRows[name] ?? (form.getValues(name) as Row[] | undefined) ?? [], sentLines[name]!, w, lines.current[name] ?? noLineChanges());
        storedRows[name] = after.rows;
        if (hasLineChanges(after.changes)) left[name] = after.changes;
      }
      setStoredLines(storedRows);
      for (const [name, c] of Object.entries(lines.current)) if (!(name in written) && hasLineChanges(c)) left[name] = c;
      setLines(left);
      setFromServer(false); // what was sent, until the refetch below brings what was stored
      // the next save is checked against the revision this one wrote (the refetch below brings it
      // too, but a form dirty again does not take the refetch); a save of lines alone keeps it
      if (stored !== undefined) base.current = stored;
      await invalidate(m.key);
      if (created) {
        // the new record's form (another instance) takes over what was typed during the create
        const typed = changedSince(values, form.getValues());
        // a save that failed after the create did not reach onSave: an extension's values go along unsaved
        if (!complete) for (const name of dirtyFields) if (!own.has(name)) typed[name] = form.getValues(name);
        if (Object.keys(typed).length || Object.keys(left).length) typedDuringCreate.set(id, { values: typed, lines: left, lineErrors: refusedLines });
        leaving.current = true; // this form goes; its edits travel with typedDuringCreate
        await navigate({ to: '/$org/$action/$record', params: { org, action: actionSegment(action.key), record: id }, search: {}, replace: true });
      }
    };
    // a line's number as the person counts them: among the lines shown (a removed one: among the stored ones)
    const placeOf = (name: string, lineId: string) => {
      const storedRows = storedLines[name] ?? (form.getValues(name) as Row[] | undefined) ?? [];
      const at = (rows: readonly Row[]) => rows.findIndex((r) => r.id === lineId) + 1;
      return at(shownLines(storedRows, sentLines[name] ?? noLineChanges())) || at(storedRows);
    };
    try {
      // a line missing a required value stops the save before anything is written
      const incomplete = incompleteLine(models, plan.nodes, sentLines, placeOf);
      if (incomplete) throw incomplete;
      if (isNew) {
        // untouched fields are left to the server's defaults
        const r = await request<{ record: { id: string; revision: number } }, { input: Values }>(createDocument(m), { input: toInput(fields, values, dirtyFields) });
        id = r.record.id;
        stored = r.record.revision;
        created = true;
      } else {
        // an extension's own values (dirty, but no field of the model) are not the record's
        const input = toInput(fields, values, dirtyFields);
        if (Object.keys(input).length || revision !== undefined) {
          const r = await request<{ record: { id: string; revision: number } }, { id: string; input: Values; revision: number | undefined }>(updateDocument(m), { id, input, revision: revision ?? base.current });
          stored = r.record.revision;
        }
      }
      await saveLines(models, plan.nodes, id, sentLines, written, placeOf);
      await onSave?.(id, values, dirtyFields);
      toast(t(isNew ? 'form.created' : 'form.saved'));
      await settle(true);
    } catch (caught) {
      // a refused line: what the server said is about that line, under its One2Many field, never
      // on the parent's fields of the same names
      const line = caught instanceof LineSaveError ? caught : null;
      const err = line ? line.error : caught;
      const refused = line ? { [line.field]: lineRefusal(t, line) } : {};
      // the record (or some lines) were written before the failure: that much is saved, and a new
      // record's form takes the refusal along
      if (created || stored !== undefined || Object.keys(written).length) await settle(false, refused).catch(() => undefined);
      setLineErrors(refused);
      if (line) {
        saveErrors.current.push(toast(refused[line.field]!, 'error'));
      } else if (err instanceof ApiError && err.code === 'STALE_REVISION') {
        setConflict({ expected: Number(err.details?.expected), actual: Number(err.details?.actual), input: values });
      } else if (err instanceof ApiError && err.status === 422 && Object.keys(err.fieldErrors()).length) {
        const { beside, underLines, unseen } = placeFieldErrors(err, fieldErrorsOf(t, err), fields, (name) => !!formEl.current?.querySelector(`[data-testid="field-${CSS.escape(name)}"]`));
        for (const [name, message] of Object.entries(beside)) form.setError(name, { type: 'server', message });
        serverErrors.current = Object.keys(beside);
        setLineErrors(underLines);
        saveErrors.current.push(toast([t('error.validation'), ...unseen].join(' '), 'error'));
      } else {
        saveErrors.current.push(toast(errorMessage(t, err), 'error'));
      }
    } finally {
      setSaving(false);
    }
  }

  async function runButton(b: PlanButton) {
    if (isNew || dirty) { toast(t('form.save_first'), 'error'); return; }
    let extra = {};
    if (isFileButton(b)) {
      const file = await pickFile(b.special_accept);
      if (!file) return; // cancelled: nothing is dispatched
      extra = await filePayload(file);
    }
    try {
      const result = (await runCommand(b.name, { id: recordId, ...extra })) as ResultMessage & { success?: boolean } | null;
      // a command that reports a message (a connection test) is shown with it, in the reader's language when it has an id
      const said = resultMessage(t.intl, result);
      if (said) toast(`${b.string}: ${said}`, result?.success === false ? 'error' : 'info');
      else toast(t('form.command_done', { name: b.string }));
      await invalidate(m.key);
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
  }

  if (!isNew && record.isPending) return <PageLoading />;
  // an id that is not a record id at all (a mistyped URL) is as missing as a deleted record
  if (!isNew && record.error instanceof ApiError && (record.error.status === 404 || record.error.status === 400 || record.error.status === 422)) {
    return <NotFoundPanel message={t('form.not_found')} />;
  }
  if (!isNew && record.error) return <ErrorPanel error={record.error} retry={() => void record.refetch()} />;
  if (!isNew && !record.data) return <NotFoundPanel message={t('form.not_found')} />;

  const title = isNew ? t('form.new_title', { model: m.description }) : displayName(m, record.data);
  const statusField = plan.header?.statusbar?.field;
  const status = statusField ? form.watch(statusField) : undefined;
  const statusInfo = fields.find((f) => f.name === statusField);
  return (
    <ModifierValues.Provider value={modifierValues}>
    <form ref={formEl} className="view view-form" onSubmit={(e) => { e.preventDefault(); submit.current(); }} noValidate data-testid="form-view" data-readonly={readOnly || undefined}
      data-synced={(!isNew && fromServer && !dirty && !saving) || undefined}>
      <div className="control-panel">
        <div className="cp-row">
          <nav aria-label="Breadcrumb" className="breadcrumb">
            <Link to="/$org/$action" params={{ org, action: actionSegment(action.key) }} search={scope} data-testid="breadcrumb-action">{action.name}</Link>
            <span aria-hidden="true"> / </span>
            <span data-testid="form-title" className="form-title" ref={titleEl} tabIndex={-1}>{title}</span>
          </nav>
          {!isNew && record.data?.is_active === false && m.archivable && <span className="badge" data-testid="form-archived">{t('form.archived_badge')}</span>}
          <div className="cp-spacer" />
          {!isNew && <FormPager model={m} recordId={recordId!} where={where} order={search.order} onGo={(id) => void openRecord(id)} />}
          {!isNew && (
            <RecordActions model={m} recordId={recordId!} name={title} dirty={dirty}
              active={m.archivable && typeof record.data?.is_active === 'boolean' ? record.data.is_active : undefined}
              onDuplicated={(id) => void openRecord(id)}
              onDeleted={() => { leaving.current = true; void navigate({ to: '/$org/$action', params: { org, action: actionSegment(action.key) }, search: scope }); }} />
          )}
          {readOnly ? <span className="badge" data-testid="form-readonly">{t('form.readonly')}</span> : (
            <>
              {dirty && <span className="dirty-mark" data-testid="dirty-mark">•</span>}
              <Button type="submit" className="btn btn-primary" isDisabled={saving} data-testid="form-save">{t('common.save')}</Button>
              <Button className="btn" isDisabled={!dirty || saving} data-testid="form-discard"
                onPress={() => load(record.data ?? {})}>{t('common.discard')}</Button>
            </>
          )}
        </div>
      </div>
      {remote && (
        <div className="banner" role="status" data-testid="remote-change">
          {t(remote === 'deleted' ? 'form.deleted_elsewhere' : 'form.changed_elsewhere')}
          {remote === 'changed' && <Button className="btn btn-ghost" data-testid="remote-reload" onPress={() => { void record.refetch().then((r) => r.data && load(r.data)); }}>{t('form.conflict.reload')}</Button>}
        </div>
      )}
      {plan.header && (
        <div className="form-header">
          <div className="form-buttons">
            {plan.header.buttons
              .filter((b) => !holds(modifiersOf(b.modifiers), 'invisible', modifierValues) && (!headerButton || headerButton(b, record.data)))
              .map((b) => (
              <Button key={b.name} className="btn" isDisabled={isNew} onPress={() => void runButton(b)} data-testid={`button-${b.name}`}>{b.string}</Button>
            ))}
          </div>
          {plan.header.statusbar && (
            <ol className="statusbar" aria-label={statusInfo?.label} data-testid="statusbar">
              {statusSteps(plan.header.statusbar.values, status, statusInfo?.values).map((v) => (
                <li key={v} className={v === status ? 'current' : undefined} aria-current={v === status ? 'step' : undefined}>
                  {plan.header!.statusbar!.clickable && !readOnly && v !== status ? (
                    // a stage is set like any field: the form becomes dirty and Save writes it
                    <button type="button" className="statusbar-step" data-testid={`statusbar-${v}`}
                      onClick={() => form.setValue(statusField!, v, { shouldDirty: true })}>{enumLabel(v, statusInfo)}</button>
                  ) : <span data-testid={`statusbar-${v}`}>{enumLabel(v, statusInfo)}</span>}
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
      <div className="sheet">
        {buildTree(plan.nodes, hiddenFields).map((n) => (
          <FormNodeView key={n.node.index} tree={n} form={form} recordId={isNew ? null : recordId!} readOnly={readOnly} onButton={runButton}
            lines={linesView} onLines={(name, next) => {
              setLines({ ...lines.current, [name]: next(lines.current[name] ?? noLineChanges()) });
              // the refused line is being changed: what was said of it no longer holds
              setLineErrors((e) => { if (!(name in e)) return e; const { [name]: _gone, ...rest } = e; return rest; });
            }} />
        ))}
      </div>
      {Extension && <Extension recordId={isNew ? null : recordId!} form={form} record={record.data} reload={() => void record.refetch()} />}
      {plan.chatter && <Chatter model={m.key} recordId={isNew ? null : recordId!} />}
      {/* Escape answers "Stay" (nothing is lost); on the conflict it closes and keeps the edits */}
      <Modal isOpen={blocker.status === 'blocked'} className="modal" onOpenChange={(open) => { if (!open) blocker.reset?.(); }}>
        <Dialog role="alertdialog" className="dialog" data-testid="dirty-dialog">
          <Heading slot="title">{t('form.dirty.title')}</Heading>
          <p>{t('form.dirty.body')}</p>
          <div className="dialog-actions">
            <Button className="btn" onPress={() => blocker.reset?.()} autoFocus data-testid="dirty-stay">{t('form.dirty.stay')}</Button>
            <Button className="btn btn-danger" onPress={() => blocker.proceed?.()} data-testid="dirty-leave">{t('form.dirty.leave')}</Button>
          </div>
        </Dialog>
      </Modal>
      <Modal isOpen={!!conflict} className="modal" onOpenChange={(open) => { if (!open) setConflict(null); }}>
        <Dialog role="alertdialog" className="dialog" data-testid="conflict-dialog">
          <Heading slot="title">{t('form.conflict.title')}</Heading>
          <p>{t('form.conflict.body', { expected: conflict?.expected ?? 0, actual: conflict?.actual ?? 0 })}</p>
          <div className="dialog-actions">
            <Button className="btn" data-testid="conflict-reload" onPress={() => { setConflict(null); void record.refetch().then((r) => r.data && load(r.data)); }}>{t('form.conflict.reload')}</Button>
            <Button className="btn btn-danger" data-testid="conflict-overwrite" onPress={() => { const c = conflict!; setConflict(null); void save(c.input, c.actual); }}>{t('form.conflict.overwrite')}</Button>
          </div>
        </Dialog>
      </Modal>
    </form>
    </ModifierValues.Provider>
  );
}

type OnLines = (field: string, next: (c: LineChanges) => LineChanges) => void;
interface LinesView { changes: Record<string, LineChanges>; stored: Record<string, Row[]>; errors: Record<string, string> }
function FormNodeView({ tree, form, recordId, readOnly, onButton, lines, onLines }: {
  tree: TreeNode; form: UseFormReturn<Values>; recordId: string | null; readOnly: boolean; onButton: (b: PlanButton) => void;
  lines: LinesView; onLines: OnLines;
}) {
  const { node, children } = tree;
  const mod = useModifier(node.modifiers);
  const values = useContext(ModifierValues);
  if (mod.invisible) return null;
  const kids = children.map((c) => <FormNodeView key={c.node.index} tree={c} form={form} recordId={recordId} readOnly={readOnly} onButton={onButton} lines={lines} onLines={onLines} />);
  // a page hidden by its modifier leaves the notebook (its tab too)
  const pages = children.filter((p) => !holds(modifiersOf(p.node.modifiers), 'invisible', values));
  switch (node.kind) {
    case 'group':
      return (
        <fieldset className="group">
          {node.string && <legend>{node.string}</legend>}
          <div className="group-grid">{kids}</div>
        </fieldset>
      );
    case 'notebook':
      return (
        <Tabs className="notebook">
          <TabList className="tablist" aria-label="Pages">
            {pages.map((p) => <Tab key={p.node.index} id={String(p.node.index)} className="tab">{p.node.string}</Tab>)}
          </TabList>
          {pages.map((p) => (
            <TabPanel key={p.node.index} id={String(p.node.index)} className="tabpanel">
              {p.children.map((c) => <FormNodeView key={c.node.index} tree={c} form={form} recordId={recordId} readOnly={readOnly} onButton={onButton} lines={lines} onLines={onLines} />)}
            </TabPanel>
          ))}
        </Tabs>
      );
    case 'separator':
      return <h3 className="separator">{node.string}</h3>;
    case 'button':
      return node.button ? <Button className="btn" onPress={() => onButton(node.button!)}>{node.button.string}</Button> : null;
    case 'field':
      return node.field ? (
        <FieldRow field={node.field as FieldInfo} form={form} list={node.list} recordId={recordId} readOnly={readOnly} lines={lines} onLines={onLines}
          modReadonly={mod.readonly} modRequired={mod.required} />
      ) : null;
    default:
      return <>{kids}</>;
  }
}

/**
 * Where each field error of a refused save is said. Beside its field when the form has the field
 * (react-hook-form's errors; shown once its page or modifier shows it); under a One2Many when it
 * names one (the lines' own slot: no input registers a One2Many). And in the save's notice, as
 * "Label: reason.", when the form does not show that field now (another notebook page, hidden by
 * a modifier, or not on the form at all, as a hook's error on a field the view leaves out): a
 * refusal nobody can see would leave the person no way to know what to change.
 */
function placeFieldErrors(err: ApiError, said: Record<string, string>, fields: readonly FieldInfo[], isShown: (name: string) => boolean): {
  beside: Record<string, string>; underLines: Record<string, string>; unseen: string[];
} {
  const beside: Record<string, string> = {};
  const underLines: Record<string, string> = {};
  const unseen: string[] = [];
  const labels = new Map(err.fieldProblems().filter((p) => p.field && p.label).map((p) => [p.field!, p.label!]));
  for (const [name, message] of Object.entries(said)) {
    const field = fields.find((f) => f.name === name);
    if (field?.type === 'one2many') underLines[name] = message;
    else if (field) beside[name] = message;
    if (!isShown(name)) {
      const label = field?.label ?? labels.get(name);
      unseen.push(label ? `${label}: ${message}` : message);
    }
  }
  return { beside, underLines, unseen };
}

/**
 * What was said of a refused line, as a person reads it: "Line 2: Name is required." (a required
 * column left empty), "Line 2: Name: Too long." (the server's field problems with the line model's
 * labels), or the error's sentence when it names no field.
 */
function lineRefusal(t: ReturnType<typeof useT>, line: LineSaveError): string {
  const err = line.error;
  const fields = err instanceof ApiError && err.status === 422 ? Object.entries(fieldErrorsOf(t, err)) : [];
  const label = (name: string) => line.columns.find((c) => c.name === name)?.label ?? name;
  const problems = line.missing.length ? line.missing.map((c) => t('form.required', { label: c.label })).join(' ')
    : fields.length ? fields.map(([name, message]) => `${label(name)}: ${message}`).join(' ') : errorMessage(t, err);
  return t('form.line_refused', { n: line.line, problems });
}

function FieldRow({ field: declared, form, list, recordId, readOnly, lines, onLines, modReadonly = false, modRequired = false }: {
  field: FieldInfo; form: UseFormReturn<Values>; list: FormPlan['nodes'][number]['list']; recordId: string | null; readOnly: boolean;
  lines: LinesView; onLines: OnLines;
  /** the view's readonly/required modifiers, evaluated on the current values */
  modReadonly?: boolean; modRequired?: boolean;
}) {
  const field = useMemo(() => ({ ...declared, readonly: !!declared.readonly || modReadonly, required: !!declared.required || modRequired }), [declared, modReadonly, modRequired]);
  const t = useT();
  const models = useModels();
  const boot = useBootstrap();
  const { org } = useParams({ strict: false }) as { org: string };
  const id = `f-${field.name}`;
  const err = form.formState.errors[field.name]?.message as string | undefined;
  if (field.type === 'one2many') {
    const refused = lines.errors[field.name];
    return (
      <div className="field field-wide" data-testid={`field-${field.name}`}>
        <span className="label" id={`${id}-label`}>{field.label}</span>
        {/* the lines and what was said of them share the value's column */}
        <div className="o2m-value">
          <OneToMany field={field} list={list} rows={lines.stored[field.name] ?? (form.watch(field.name) as Row[] | undefined) ?? []} changes={lines.changes[field.name]} recordId={recordId} readOnly={readOnly} onChange={(next) => onLines(field.name, next)} />
          {refused && <p className="field-error" id={`${id}-err`} role="alert" data-testid={`error-${field.name}`}>{refused}</p>}
        </div>
      </div>
    );
  }
  const Input = inputWidgetFor(field);
  // only a value shown is watched (watching an input would render the whole form on each keystroke)
  const value = field.readonly || readOnly ? form.watch(field.name) : undefined;
  // a Reference shown read-only opens its record, when an action shows the target model in a form
  const ref = field.type === 'reference' && value && typeof value === 'object' ? (value as Row) : null;
  const target = ref && field.relation ? formActionOf(boot.actions, field.relation) : undefined;
  const wide = field.type === 'text' || field.type === 'json' || widgetParts(field.widget)[0] === 'image';
  const shown = <Display field={field} value={value} models={models} record={recordId ? { id: recordId } : undefined} />;
  return (
    <div className={`field${wide ? ' field-wide' : ''}`} data-testid={`field-${field.name}`}>
      <label htmlFor={id} className="label">{field.label}{field.required && !readOnly && <span aria-hidden="true" className="req"> *</span>}</label>
      <div className="value">
        {field.readonly || readOnly ? (
          <span id={id} className={`shown shown-${field.type}`}>
            {ref && target ? (
              <Link to="/$org/$action/$record" params={{ org, action: actionSegment(target.key), record: ref.id }} search={{}} data-testid={`link-${field.name}`}>{shown}</Link>
            ) : shown}
          </span>
        ) : (
          <Controller name={field.name} control={form.control}
            rules={{ validate: (v) => !field.required || field.type === 'boolean' || (v !== null && v !== undefined && v !== '') || t('form.required', { label: field.label }) }}
            render={({ field: c }) => <>{Input({ field, id, value: c.value, onChange: c.onChange, onBlur: c.onBlur, invalid: !!err, describedBy: [err && `${id}-err`, field.help && `${id}-help`].filter(Boolean).join(' ') || undefined })}</>} />
        )}
        {field.help && !(field.readonly || readOnly) && <p className="field-help muted small" id={`${id}-help`} data-testid={`help-${field.name}`}>{field.help}</p>}
        {err && <p className="field-error" id={`${id}-err`} role="alert" data-testid={`error-${field.name}`}>{err}</p>}
      </div>
    </div>
  );
}
