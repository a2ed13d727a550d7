import { useMemo, useState } from 'react';
import { Button, Dialog, Heading, Input, Label, Modal, SearchField } from 'react-aria-components';
import { useIntl } from 'react-intl';
import { ErrorPanel } from '../app/ErrorBoundary.tsx';
import { asFields, useBootstrap, useModels, usePlan } from '../app/meta.ts';
import { useT } from '../i18n/index.tsx';
import { displayName, nameSearchWhere, orderBy, selection, type FieldInfo, type ModelInfo, type Row } from '../model/records.ts';
import { useBlock, useCount } from '../model/useRecords.ts';
import { Display } from './display.tsx';

/**
 * The dialog's messages, beside it (its chunk loads on first use), as the transfer dialogs' are
 * (web/src/views/list/transfer-messages.ts); a catalogue carrying the same ids wins.
 */
const messages = {
  'reference.more.title': 'Search: {model}',
  'reference.more.search': 'Search',
  'reference.more.choose': 'Choose {name}',
  'reference.more.empty': 'No match',
} as const;

const PAGE = 20;

/**
 * "Search more…" of a Reference picker: the target model's records in a searchable, paged table
 * (the columns of its list view when it has one, else its record name); choosing a row picks it.
 * A plain table rather than the list's RecordTable, whose selection, sorting and pager live in
 * the URL of the page behind the dialog.
 */
export default function SearchMoreDialog({ target, title, initial, onChoose, onClose }: {
  target: ModelInfo; title: string; initial: string; onChoose: (rec: Row) => void; onClose: () => void;
}) {
  const t = useT();
  const intl = useIntl();
  const mt = (id: keyof typeof messages, values?: Record<string, string>) => intl.formatMessage({ id, defaultMessage: messages[id] }, values);
  const boot = useBootstrap();
  const models = useModels();
  const [text, setText] = useState(initial);
  const [page, setPage] = useState(0);
  const listId = boot.views.find((v) => v.model === target.key && v.type === 'list')?.view_id;
  const plan = usePlan(listId);
  const listPlan = plan.data?.__typename === 'ListPlan' ? plan.data : null;
  const columns = useMemo((): readonly FieldInfo[] => {
    const fields = listPlan ? asFields(listPlan.fields).filter((f) => listPlan.columns.includes(f.name)) : [];
    const named = target.record_name !== 'id' && target.record_name !== 'record_uuid';
    // the record name first: it is what the picker shows once chosen
    const name = fields.find((f) => f.name === target.record_name) ?? (named ? { name: target.record_name, label: target.description, type: 'char' } : null);
    return name ? [name, ...fields.filter((f) => f !== name)] : fields;
  }, [listPlan, target]);
  const sel = useMemo(() => selection(columns, models), [columns, models]);
  const where = nameSearchWhere(target, text) ?? {};
  const order = orderBy(listPlan?.default_order);
  const ready = !listId || !plan.isPending;
  const rows = useBlock(target, sel, where, order, page * PAGE, PAGE, ready);
  const total = useCount(target, where);
  const count = total.data ?? 0;
  const from = Math.min(page * PAGE + 1, count);
  const to = Math.min((page + 1) * PAGE, count);

  return (
    <Modal isOpen isDismissable onOpenChange={(open) => { if (!open) onClose(); }} className="modal modal-wide">
      <Dialog className="dialog search-more-dialog" data-testid="search-more-dialog">
        <Heading slot="title">{mt('reference.more.title', { model: title })}</Heading>
        <SearchField value={text} onChange={(v) => { setText(v); setPage(0); }} className="field search-more-field" autoFocus>
          <Label>{mt('reference.more.search')}</Label>
          <Input className="input" data-testid="search-more-input" />
        </SearchField>
        {rows.error && <ErrorPanel error={rows.error} retry={() => void rows.refetch()} />}
        <div className="search-more-table">
          <table className="records" data-testid="search-more-table" aria-busy={rows.isFetching}>
            <thead>
              <tr>{columns.map((c) => <th key={c.name} scope="col">{c.label}</th>)}</tr>
            </thead>
            <tbody>
              {(rows.data ?? []).map((r) => (
                <tr key={r.id} data-testid="search-more-row" onClick={() => onChoose(r)}>
                  {columns.map((c, i) => (
                    <td key={c.name}>
                      {i === 0
                        // the row's button: what a keyboard and a screen reader choose with
                        ? <Button className="link-button" aria-label={mt('reference.more.choose', { name: displayName(target, r) })} onPress={() => onChoose(r)}>{displayName(target, r)}</Button>
                        : <Display field={c} value={r[c.name]} models={models} record={r} />}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          {rows.data?.length === 0 && <p className="muted pad" data-testid="search-more-empty">{mt('reference.more.empty')}</p>}
        </div>
        <div className="dialog-actions">
          <div className="pager" data-testid="search-more-pager">
            <span aria-live="polite" data-testid="search-more-range">{t('list.pager', { from, to, total: count })}</span>
            <Button className="btn btn-ghost" aria-label={t('list.pager.prev')} isDisabled={page === 0} onPress={() => setPage(page - 1)} data-testid="search-more-prev">‹</Button>
            <Button className="btn btn-ghost" aria-label={t('list.pager.next')} isDisabled={to >= count} onPress={() => setPage(page + 1)} data-testid="search-more-next">›</Button>
          </div>
          <span className="cp-spacer" />
          <Button className="btn" onPress={onClose} data-testid="search-more-cancel">{t('common.cancel')}</Button>
        </div>
      </Dialog>
    </Modal>
  );
}
