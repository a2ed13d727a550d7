import { useNavigate } from '@tanstack/react-router';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Button, Dialog, Heading, Modal } from 'react-aria-components';
import { request } from '../../api/client.ts';
import { ErrorPanel } from '../../app/ErrorBoundary.tsx';
import { errorMessage } from '../../app/errors.ts';
import { asFields, planAggregates, useModels, type ListPlan } from '../../app/meta.ts';
import { actionSegment, listScope } from '../../app/search-params.ts';
import { toast } from '../../app/toast.tsx';
import { useT } from '../../i18n/index.tsx';
import { anyWritable, useInputFields, useWritable } from '../../model/access.ts';
import type { Where } from '../../model/domain.ts';
import { deleteManyDocument, modelOf, orderBy, rowsDocument, selection, updateManyDocument, type Row, defaultsOf } from '../../model/records.ts';
import { useCount, useInvalidateModel } from '../../model/useRecords.ts';
import { ControlPanel } from '../ControlPanel.tsx';
import type { ViewProps } from '../registry.ts';
import { ColumnPicker, useColumns } from './columns.tsx';
import { GroupedList } from './GroupedList.tsx';
import { Pager } from './Pager.tsx';
import { RecordTable } from './RecordTable.tsx';

// opened rarely: their own chunks, loaded when asked for
const ExportDialog = lazy(() => import('./ExportDialog.tsx'));
const ImportDialog = lazy(() => import('./ImportDialog.tsx'));

/**
 * What is selected: some records by id, or every record matching the search (`all`, acted on by
 * the server through the search's `where`, never by ids the client happened to load).
 */
interface Selection { ids: Set<string>; all: boolean }
const NONE: Selection = { ids: new Set(), all: false };

/**
 * The list view of a render plan: the plan's columns (optional ones toggled, reordered and
 * resized, remembered per user: ./columns.tsx), sort by header, a pager over the total, selection with bulk delete and archive (with
 * undo), group-by from the search view. Rows are virtualised and fetched in blocks, so a page of
 * 10,000 rows scrolls. "Select all" selects the page (every row of it, drawn or not), then offers
 * every record matching the search; the confirmation states how many records an action touches.
 */
export default function ListView({ plan, action, search, searchPlan, where, org }: ViewProps<ListPlan>) {
  const t = useT();
  const navigate = useNavigate();
  const models = useModels();
  const m = modelOf(models, plan.model);
  const fields = asFields(plan.fields);
  // New only when the model can be created at all (and the view has something to type); bulk
  // delete only when it can be deleted
  const can = useWritable(m);
  // the view's columns, arranged by the person (shown, order, widths)
  const planColumns = useMemo(() => plan.columns.map((c) => fields.find((f) => f.name === c)!).filter(Boolean), [plan.columns, plan.fields]); // eslint-disable-line react-hooks/exhaustive-deps
  const cols = useColumns(plan.view_id, planColumns);
  const columns = cols.shown;
  // an editable list's rows carry their revision: a row saved in place is checked against it
  const editable = plan.editable === 'top' || plan.editable === 'bottom' ? plan.editable : null;
  // New opens the action's form; without one (an editable list of its own), "Add a line" creates
  const hasForm = action.views.some((v) => v.type === 'form');
  const sel = useMemo(() => selection(fields, models) + (editable ? ' revision' : ''), [fields, models, editable]);
  const order = search.order ?? plan.default_order ?? undefined;
  const limit = search.limit ?? plan.limit ?? 80;
  const total = useCount(m, where);
  // a page past the end (an old link, the last page's rows deleted) is the last page that has
  // records (the first when there are none), in the URL too
  const asked = search.page ?? 1;
  const lastPage = total.data === undefined ? undefined : Math.max(1, Math.ceil(total.data / limit));
  const page = !search.group_by && lastPage !== undefined && asked > lastPage ? lastPage : asked;
  useEffect(() => {
    if (page !== asked) void navigate({ to: '.', search: (s: Record<string, unknown>) => ({ ...s, page: page > 1 ? page : undefined }), replace: true } as never);
  }, [page, asked]); // eslint-disable-line react-hooks/exhaustive-deps
  const [chosen, setChosen] = useState<Selection>(NONE);
  // the ids of the current page, once "select all" asked for them
  const [pageIds, setPageIds] = useState<string[] | null>(null);
  const [confirm, setConfirm] = useState(false);
  const [transfer, setTransfer] = useState<'export' | 'import' | null>(null);
  const invalidate = useInvalidateModel();
  // models whose update input has is_active can be archived (read from the schema)
  const archivable = !!useInputFields(m.names.updateInput, can.update)?.some((f) => f.name === 'is_active');
  const offset = (page - 1) * limit;
  const pageCount = Math.max(0, Math.min(limit, (total.data ?? 0) - offset));
  // another search, page or grouping is another set of records: the selection does not carry over
  const scope = JSON.stringify([where, page, limit, order, search.group_by]);
  useEffect(() => { setChosen(NONE); setPageIds(null); }, [scope]);
  const count = chosen.all ? total.data ?? 0 : chosen.ids.size;
  const targetWhere = (): Where => (chosen.all ? where : { id: { in: [...chosen.ids] } });
  const selected = chosen.all && pageIds ? new Set(pageIds) : chosen.ids;
  const setSelected = (ids: Set<string>) => setChosen({ ids, all: false });
  const pageSelected = !!pageIds && pageIds.length > 0 && pageIds.every((id) => selected.has(id));

  // the box is ticked at once while the page's ids are fetched (a box that waits for the server
  // looks broken, and a second click would undo the first)
  const [selecting, setSelecting] = useState(false);
  async function selectPage(on: boolean) {
    if (!on) { setChosen(NONE); return; }
    setSelecting(true);
    try {
      const r = await request<{ rows: Row[] }, Record<string, unknown>>(rowsDocument(m, 'id'), { where, orderBy: orderBy(order), limit: pageCount, offset });
      const ids = r.rows.map((x) => x.id);
      setPageIds(ids);
      setChosen({ ids: new Set(ids), all: false });
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    } finally {
      setSelecting(false);
    }
  }
  const go = (patch: Record<string, unknown>) => navigate({ to: '.', search: (s: Record<string, unknown>) => ({ ...s, ...patch }) } as never);
  const open = (id: string) => navigate({ to: '/$org/$action/$record', params: { org, action: actionSegment(action.key), record: id }, search: listScope(search, order) });

  async function deleteSelected() {
    setConfirm(false);
    try {
      const r = await request<{ result: { count: number } }, { where: unknown }>(deleteManyDocument(m), { where: targetWhere() });
      toast(t('list.deleted', { count: r.result.count }));
      setChosen(NONE);
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
    await invalidate(m.key);
  }

  /** Sets `is_active` on the records of `target`; returns the ids it changed. */
  const setActive = async (target: Where, active: boolean) =>
    (await request<{ result: { count: number; ids: string[] } }, Record<string, unknown>>(updateManyDocument(m), {
      where: { AND: [target, { is_active: { eq: !active } }] }, input: { is_active: active },
    })).result;

  async function archiveSelected() {
    try {
      const r = await setActive(targetWhere(), false);
      setChosen(NONE);
      // undo restores exactly the records this archived, whatever the search shows now
      toast(t('list.archived', { count: r.count }), 'info', {
        label: t('common.undo'), testId: 'undo-archive',
        run: () => void setActive({ id: { in: r.ids } }, true)
          .then((u) => toast(t('list.unarchived', { count: u.count })), (err) => toast(errorMessage(t, err), 'error'))
          .finally(() => void invalidate(m.key)),
      });
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
    await invalidate(m.key);
  }

  return (
    <div className="view view-list">
      <ControlPanel title={plan.title} action={action} org={org} search={search} searchPlan={searchPlan} current="list" canCreate={can.create && anyWritable(fields) && hasForm}>
        {(total.data ?? 0) > 0 && (
          <Button className="btn" onPress={() => setTransfer('export')} data-testid="export-open">{t('list.export')}</Button>
        )}
        {(can.create || can.update) && anyWritable(fields) && (
          <Button className="btn" onPress={() => setTransfer('import')} data-testid="import-open">{t('list.import')}</Button>
        )}
        {count > 0 && (can.delete || archivable) && (
          <>
            <span className="muted" data-testid="selected-count">{t('list.selected', { count })}</span>
            {archivable && <Button className="btn" onPress={() => void archiveSelected()} data-testid="archive-selected">{t('list.archive_selected')}</Button>}
            {can.delete && <Button className="btn btn-danger" onPress={() => setConfirm(true)} data-testid="delete-selected">{t('list.delete_selected')}</Button>}
          </>
        )}
      </ControlPanel>
      <div className="list-toolbar">
        <ColumnPicker cols={cols} />
        {!search.group_by && total.data !== undefined && (
          <Pager page={page} limit={limit} total={total.data} />
        )}
      </div>
      {pageSelected && !chosen.all && (total.data ?? 0) > pageIds!.length && (
        <div className="banner" data-testid="select-all-banner">
          <span>{t('list.page_selected', { count: pageIds!.length })}</span>
          <Button className="btn btn-ghost link-button" onPress={() => setChosen({ ids: new Set(), all: true })} data-testid="select-all-matching">
            {t('list.select_all_matching', { count: total.data ?? 0 })}
          </Button>
        </div>
      )}
      {chosen.all && (
        <div className="banner" data-testid="select-all-banner">
          <span>{t('list.all_selected', { count: total.data ?? 0 })}</span>
          <Button className="btn btn-ghost link-button" onPress={() => setChosen(NONE)} data-testid="clear-selection">{t('list.clear_selection')}</Button>
        </div>
      )}
      {total.error ? (
        <ErrorPanel error={total.error} retry={() => void total.refetch()} />
      ) : search.group_by ? (
        <GroupedList model={m} groupBy={search.group_by} fields={[...fields, ...asFields(searchPlan?.fields ?? [])]} columns={columns} where={where} sel={sel} order={orderBy(order)} onOpen={open}
          aggregates={planAggregates(plan.aggregates)} selected={chosen.ids} setSelected={setSelected} />
      ) : (
        <RecordTable label={plan.title}
          model={m} columns={columns} widths={cols.widths} onResize={cols.setWidth} onMove={cols.move} sel={sel}
          editable={editable && can.update ? editable : null} canCreate={can.create} canOpenForm={hasForm} newDefaults={defaultsOf(fields)} onSaved={() => invalidate(m.key)} where={where} order={order} offset={offset}
          count={pageCount}
          loadingTotal={total.isPending} filtered={Object.keys(where).length > 0}
          onSort={(o) => go({ order: o, page: undefined })} onOpen={open} selected={selected} setSelected={setSelected}
          pageSelected={pageSelected || chosen.all || selecting} onSelectPage={(on) => void selectPage(on)}
        />
      )}
      <Suspense fallback={null}>
        {transfer === 'export' && (
          <ExportDialog model={m.key} modelLabel={plan.title} columns={columns} where={where} order={order}
            selectedIds={chosen.all ? null : [...selected]} total={total.data ?? 0} onClose={() => setTransfer(null)} />
        )}
        {transfer === 'import' && (
          <ImportDialog model={m.key} modelLabel={plan.title} onClose={() => setTransfer(null)} onImported={() => void invalidate(m.key)} />
        )}
      </Suspense>
      <Modal isOpen={confirm} onOpenChange={setConfirm} isDismissable className="modal">
        <Dialog role="alertdialog" className="dialog">
          <Heading slot="title">{t('list.confirm_delete', { count })}</Heading>
          <div className="dialog-actions">
            {/* focus on Cancel, as the single record's dialog: Enter must not delete N records for good */}
            <Button className="btn" onPress={() => setConfirm(false)} data-testid="confirm-cancel" autoFocus>{t('common.cancel')}</Button>
            <Button className="btn btn-danger" onPress={deleteSelected} data-testid="confirm-delete">{t('common.delete')}</Button>
          </div>
        </Dialog>
      </Modal>
    </div>
  );
}
