import { useState } from 'react';
import { Button, Dialog, FileTrigger, Heading, Modal } from 'react-aria-components';
import { ApiError } from '../../api/errors.ts';
import { inspectImport, runImport, type ImportReport, type Inspection, type RowError } from '../../api/transfer.ts';
import { errorMessage, rowErrorText } from '../../app/errors.ts';
import { toast } from '../../app/toast.tsx';
import { useT } from '../../i18n/index.tsx';
import { transferMessages, useTransferT } from './transfer-messages.ts';

/**
 * Import into a list's model: choose a CSV or XLSX file, check the column → field mapping (the
 * server suggests it by name and label), optionally a column that finds existing records to
 * update, test it (a dry run listing every row's problems by line, nothing written), then import.
 */
export interface ImportDialogProps {
  model: string;
  modelLabel: string;
  onClose: () => void;
  /** after rows were written */
  onImported: () => void;
}

/** An entry of a report's `errors` (the server's RowError), checked rather than assumed. */
function isRowError(e: unknown): e is RowError {
  return typeof e === 'object' && e !== null && 'line' in e && typeof e.line === 'number' && 'code' in e && typeof e.code === 'string'
    && 'message' in e && typeof e.message === 'string';
}

const ACCEPT = ['.csv', '.xlsx', 'text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'];

export default function ImportDialog({ model, modelLabel, onClose, onImported }: ImportDialogProps) {
  const t = useT();
  const tt = useTransferT();
  const [file, setFile] = useState<File | null>(null);
  const [inspection, setInspection] = useState<Inspection | null>(null);
  const [mapping, setMapping] = useState<Array<string | null>>([]);
  const [key, setKey] = useState<string | null>(null);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [busy, setBusy] = useState<number | null>(null);

  async function choose(files: FileList | null) {
    const f = files?.[0];
    if (!f) return;
    setBusy(0);
    setReport(null);
    try {
      const i = await inspectImport(model, f, setBusy);
      setFile(f);
      setInspection(i);
      setMapping(i.columns.map((c) => c.field));
      setKey(i.key);
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    } finally {
      setBusy(null);
    }
  }

  async function go(dryRun: boolean) {
    if (!file) return;
    setBusy(0);
    try {
      const r = await runImport(model, file, mapping, key, dryRun, setBusy);
      setReport(r);
      if (!dryRun) onImported();
      // a real run that stopped after writing some batches stays open, its report showing why
      if (!dryRun && r.committed) {
        toast(tt('import.done', { created: r.created, updated: r.updated }));
        onClose();
      }
    } catch (err) {
      // a real run that wrote nothing is refused with the same report as a dry run
      const details = err instanceof ApiError && err.code === 'IMPORT_FAILED' ? err.details : undefined;
      if (details && Array.isArray(details.errors)) {
        setReport({ dry_run: false, rows: Number(details.rows), created: 0, updated: 0, errors: details.errors.filter(isRowError), committed: false });
      } else toast(errorMessage(t, err), 'error');
    } finally {
      setBusy(null);
    }
  }

  const mapped = mapping.filter((m): m is string => !!m);
  const fieldLabel = (name: string) => inspection?.fields.find((f) => f.name === name)?.label ?? name;
  const missing = (inspection?.fields ?? []).filter((f) => f.required && !mapped.includes(f.name) && !mapped.includes('id'));
  return (
    <Modal isOpen onOpenChange={(open) => { if (!open) onClose(); }} isDismissable={busy === null} className="modal modal-wide">
      <Dialog className="dialog transfer-dialog" data-testid="import-dialog">
        <Heading slot="title">{tt('import.title', { model: modelLabel })}</Heading>
        <div className="import-file">
          <FileTrigger acceptedFileTypes={ACCEPT} onSelect={(files) => void choose(files)}>
            <Button className="btn" isDisabled={busy !== null} data-testid="import-choose">{file ? tt('import.other_file') : tt('import.choose')}</Button>
          </FileTrigger>
          {file && inspection && (
            <span className="muted" data-testid="import-file-name">{tt('import.file', { name: file.name, rows: inspection.rows })}</span>
          )}
        </div>
        {!inspection && <p className="muted">{tt('import.hint')}</p>}
        {inspection && (
          <>
            <div className="table-scroll import-mapping">
              <table className="records">
                <caption className="sr-only">{tt('import.mapping')}</caption>
                <thead>
                  <tr><th scope="col">{tt('import.column')}</th><th scope="col" className="sample">{tt('import.sample')}</th><th scope="col">{tt('import.field')}</th></tr>
                </thead>
                <tbody>
                  {inspection.columns.map((c, i) => (
                    <tr key={c.index} data-testid="import-column">
                      <th scope="row">{c.header || tt('import.untitled', { n: i + 1 })}</th>
                      <td className="muted sample">{inspection.sample[0]?.[i] ?? ''}</td>
                      <td>
                        <select className="input" aria-label={tt('import.field_for', { column: c.header || String(i + 1) })} value={mapping[i] ?? ''}
                          data-testid={`import-map-${i}`}
                          onChange={(e) => { const next = [...mapping]; next[i] = e.target.value || null; setMapping(next); setReport(null); }}>
                          <option value="">{tt('import.skip')}</option>
                          {inspection.fields.map((f) => (
                            <option key={f.name} value={f.name} disabled={mapping.includes(f.name) && mapping[i] !== f.name}>{f.label}</option>
                          ))}
                        </select>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <label className="import-key">
              {tt('import.key')}{' '}
              <select className="input" value={key ?? ''} data-testid="import-key" onChange={(e) => { setKey(e.target.value || null); setReport(null); }}>
                <option value="">{tt('import.key_none')}</option>
                {mapped.filter((m) => m !== 'id').map((m) => <option key={m} value={m}>{fieldLabel(m)}</option>)}
              </select>
            </label>
            {missing.length > 0 && <p className="muted" data-testid="import-missing">{tt('import.missing', { fields: missing.map((f) => f.label).join(', ') })}</p>}
          </>
        )}
        {busy !== null && <progress className="transfer-progress" max={1} value={busy} aria-label={tt('import.uploading')} data-testid="import-progress" />}
        {report && (
          <div className="import-report" data-testid="import-report" role="status">
            <p>
              {report.dry_run ? tt('import.dry_summary', { created: report.created, updated: report.updated, errors: report.errors.length })
                : tt('import.failed_summary', { written: report.created + report.updated, errors: report.errors.length })}
            </p>
            {report.errors.length > 0 && (
              <div className="table-scroll import-errors">
                <table className="records">
                  <caption className="sr-only">{tt('import.errors')}</caption>
                  <thead><tr><th scope="col" className="num">{tt('import.line')}</th><th scope="col">{tt('import.column')}</th><th scope="col">{tt('import.problem')}</th></tr></thead>
                  <tbody>
                    {report.errors.map((e, i) => (
                      <tr key={i} data-testid="import-error">
                        <td className="num">{e.line}</td><td>{e.column ?? ''}</td><td>{rowErrorText(t, e, transferMessages)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </div>
        )}
        <div className="dialog-actions">
          <Button className="btn" onPress={onClose} isDisabled={busy !== null} data-testid="import-cancel">{t('common.cancel')}</Button>
          <Button className="btn" onPress={() => void go(true)} isDisabled={!inspection || busy !== null || !mapped.length} data-testid="import-test">{tt('import.test')}</Button>
          <Button className="btn btn-primary" onPress={() => void go(false)} isDisabled={!inspection || busy !== null || !mapped.length || !!report?.errors.length} data-testid="import-run">{tt('import.run')}</Button>
        </div>
      </Dialog>
    </Modal>
  );
}
