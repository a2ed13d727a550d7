import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Button, Dialog, Heading, Modal } from 'react-aria-components';
import { exportFields, exportRecords, type ExportProgress, type TransferFormat } from '../../api/transfer.ts';
import { errorMessage } from '../../app/errors.ts';
import { toast } from '../../app/toast.tsx';
import { useT } from '../../i18n/index.tsx';
import { useTransferT } from './transfer-messages.ts';
import type { Where } from '../../model/domain.ts';
import type { FieldInfo } from '../../model/records.ts';

/**
 * Export from a list: CSV or XLSX, the selected records or every record matching the search,
 * the visible columns or a chosen set. The server streams the file (References as record
 * names); the dialog shows how far it has come and hands the browser the file.
 */
export interface ExportDialogProps {
  model: string;
  modelLabel: string;
  columns: readonly FieldInfo[];
  where: Where;
  order?: string;
  /** the ids of the selected records, when some (not "every match") are selected */
  selectedIds: string[] | null;
  total: number;
  onClose: () => void;
}

export default function ExportDialog({ model, modelLabel, columns, where, order, selectedIds, total, onClose }: ExportDialogProps) {
  const t = useT();
  const tt = useTransferT();
  const [format, setFormat] = useState<TransferFormat>('csv');
  const [scope, setScope] = useState<'selected' | 'all'>(selectedIds?.length ? 'selected' : 'all');
  const [which, setWhich] = useState<'visible' | 'chosen'>('visible');
  const fields = useQuery({ queryKey: ['export-fields', model], queryFn: () => exportFields(model), staleTime: 60_000 });
  const exportable = new Set(fields.data?.map((f) => f.name) ?? []);
  const visible = columns.map((c) => c.name).filter((n) => !fields.data || exportable.has(n));
  const [chosen, setChosen] = useState<Set<string>>(() => new Set(visible));
  const [progress, setProgress] = useState<ExportProgress | null>(null);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const names = which === 'visible' ? visible : (fields.data ?? []).map((f) => f.name).filter((n) => chosen.has(n));
  const count = scope === 'selected' && selectedIds ? selectedIds.length : total;

  async function run() {
    abort.current = new AbortController();
    setProgress({ rows: 0, total: count, bytes: 0 });
    try {
      await exportRecords(model, {
        format, fields: names, order,
        ...(scope === 'selected' && selectedIds ? { ids: selectedIds } : { where }),
      }, setProgress, abort.current.signal);
      toast(tt('export.done', { count }));
      onClose();
    } catch (err) {
      if (abort.current?.signal.aborted) return;
      toast(errorMessage(t, err), 'error');
      setProgress(null);
    }
  }

  const fraction = progress && progress.rows !== null && progress.total > 0 ? Math.min(1, progress.rows / progress.total) : null;
  return (
    <Modal isOpen onOpenChange={(open) => { if (!open) onClose(); }} isDismissable={!progress} className="modal">
      <Dialog className="dialog transfer-dialog" data-testid="export-dialog">
        <Heading slot="title">{tt('export.title', { model: modelLabel })}</Heading>
        <fieldset className="choice" disabled={!!progress}>
          <legend>{tt('export.format')}</legend>
          <label><input type="radio" name="format" checked={format === 'csv'} onChange={() => setFormat('csv')} data-testid="export-format-csv" /> CSV</label>
          <label><input type="radio" name="format" checked={format === 'xlsx'} onChange={() => setFormat('xlsx')} data-testid="export-format-xlsx" /> {tt('export.xlsx')}</label>
        </fieldset>
        <fieldset className="choice" disabled={!!progress}>
          <legend>{tt('export.records')}</legend>
          {!!selectedIds?.length && (
            <label><input type="radio" name="scope" checked={scope === 'selected'} onChange={() => setScope('selected')} data-testid="export-scope-selected" /> {tt('export.selected', { count: selectedIds.length })}</label>
          )}
          <label><input type="radio" name="scope" checked={scope === 'all'} onChange={() => setScope('all')} data-testid="export-scope-all" /> {tt('export.all', { count: total })}</label>
        </fieldset>
        <fieldset className="choice" disabled={!!progress}>
          <legend>{tt('export.columns')}</legend>
          <label><input type="radio" name="columns" checked={which === 'visible'} onChange={() => setWhich('visible')} data-testid="export-columns-visible" /> {tt('export.visible', { count: visible.length })}</label>
          <label><input type="radio" name="columns" checked={which === 'chosen'} onChange={() => setWhich('chosen')} data-testid="export-columns-chosen" /> {tt('export.choose')}</label>
          {which === 'chosen' && (
            <div className="field-choices" data-testid="export-field-choices">
              {(fields.data ?? []).map((f) => (
                <label key={f.name}>
                  <input type="checkbox" checked={chosen.has(f.name)} data-testid={`export-field-${f.name}`}
                    onChange={(e) => setChosen((s) => { const n = new Set(s); if (e.target.checked) n.add(f.name); else n.delete(f.name); return n; })} />
                  {' '}{f.label}
                </label>
              ))}
            </div>
          )}
        </fieldset>
        {progress && (
          <div className="transfer-progress" data-testid="export-progress">
            <progress max={1} value={fraction ?? undefined} aria-label={tt('export.progress_label')} />
            <span className="muted">
              {progress.rows !== null ? tt('export.progress_rows', { rows: progress.rows, total: progress.total }) : tt('export.progress_bytes', { kb: Math.round(progress.bytes / 1024) })}
            </span>
          </div>
        )}
        <div className="dialog-actions">
          <Button className="btn" onPress={() => { abort.current?.abort(); onClose(); }} data-testid="export-cancel">{t('common.cancel')}</Button>
          <Button className="btn btn-primary" onPress={() => void run()} isDisabled={!!progress || names.length === 0} data-testid="export-run">{tt('export.run')}</Button>
        </div>
      </Dialog>
    </Modal>
  );
}
