import { useNavigate } from '@tanstack/react-router';
import { useMemo, useState } from 'react';
import { Button, Dialog, Heading, Modal } from 'react-aria-components';
import { request } from '../../api/client.ts';
import { ErrorPanel } from '../../app/ErrorBoundary.tsx';
import { errorMessage } from '../../app/errors.ts';
import { asFields, useModels, type ListPlan } from '../../app/meta.ts';
import { actionSegment } from '../../app/search-params.ts';
import { toast } from '../../app/toast.tsx';
import { useT } from '../../i18n/index.tsx';
import { anyWritable, useWritable } from '../../model/access.ts';
import { deleteManyDocument, modelOf, orderBy, selection } from '../../model/records.ts';
import { useCount, useInvalidateModel } from '../../model/useRecords.ts';
import { ControlPanel } from '../ControlPanel.tsx';
import type { ViewProps } from '../registry.ts';
import { ColumnPicker, useColumnVisibility } from './columns.tsx';
import { GroupedList } from './GroupedList.tsx';
import { Pager } from './Pager.tsx';
import { RecordTable } from './RecordTable.tsx';

/**
 * The list view of a render plan: the plan's columns (optional ones toggled and remembered per
 * user), sort by header, a pager over the total, selection with bulk delete, group-by from the
 * search view. Rows are virtualised and fetched in blocks, so a page of 10,000 rows scrolls.
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
  const [visible, setVisible] = useColumnVisibility(plan.view_id, fields);
  const columns = useMemo(() => plan.columns.map((c) => fields.find((f) => f.name === c)!).filter((f) => f && visible[f.name] !== false), [plan.columns, fields, visible]);
  const sel = useMemo(() => selection(fields, models), [fields, models]);
  const order = search.order ?? plan.default_order ?? undefined;
  const limit = search.limit ?? plan.limit ?? 80;
  const page = search.page ?? 1;
  const total = useCount(m, where);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirm, setConfirm] = useState(false);
  const invalidate = useInvalidateModel();
  const go = (patch: Record<string, unknown>) => navigate({ to: '.', search: (s: Record<string, unknown>) => ({ ...s, ...patch }) } as never);
  const open = (id: string) => navigate({ to: '/$org/$action/$record', params: { org, action: actionSegment(action.key), record: id }, search: {} });

  async function deleteSelected() {
    setConfirm(false);
    try {
      const r = await request<{ result: { count: number } }, { where: unknown }>(deleteManyDocument(m), { where: { id: { in: [...selected] } } });
      toast(t('list.deleted', { count: r.result.count }));
      setSelected(new Set());
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
    await invalidate(m.key);
  }

  return (
    <div className="view view-list">
      <ControlPanel title={plan.title} action={action} org={org} search={search} searchPlan={searchPlan} current="list" canCreate={can.create && anyWritable(fields)}>
        {selected.size > 0 && can.delete && (
          <>
            <span className="muted" data-testid="selected-count">{t('list.selected', { count: selected.size })}</span>
            <Button className="btn btn-danger" onPress={() => setConfirm(true)} data-testid="delete-selected">{t('list.delete_selected')}</Button>
          </>
        )}
      </ControlPanel>
      <div className="list-toolbar">
        <ColumnPicker fields={plan.columns.map((c) => fields.find((f) => f.name === c)!).filter(Boolean)} visible={visible} setVisible={setVisible} />
        {!search.group_by && total.data !== undefined && (
          <Pager page={page} limit={limit} total={total.data} />
        )}
      </div>
      {total.error ? (
        <ErrorPanel error={total.error} retry={() => void total.refetch()} />
      ) : search.group_by ? (
        <GroupedList model={m} groupBy={search.group_by} fields={fields} columns={columns} where={where} sel={sel} order={orderBy(order)} onOpen={open} />
      ) : (
        <RecordTable
          model={m} columns={columns} sel={sel} where={where} order={order} offset={(page - 1) * limit}
          count={Math.max(0, Math.min(limit, (total.data ?? 0) - (page - 1) * limit))}
          loadingTotal={total.isPending} filtered={Object.keys(where).length > 0}
          onSort={(o) => go({ order: o, page: undefined })} onOpen={open} selected={selected} setSelected={setSelected}
        />
      )}
      <Modal isOpen={confirm} onOpenChange={setConfirm} isDismissable className="modal">
        <Dialog role="alertdialog" className="dialog">
          <Heading slot="title">{t('list.confirm_delete', { count: selected.size })}</Heading>
          <div className="dialog-actions">
            <Button className="btn" onPress={() => setConfirm(false)}>{t('common.cancel')}</Button>
            <Button className="btn btn-danger" onPress={deleteSelected} data-testid="confirm-delete" autoFocus>{t('common.delete')}</Button>
          </div>
        </Dialog>
      </Modal>
    </div>
  );
}
