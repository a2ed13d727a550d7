import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { Button, Dialog, Heading, Input, Label, Modal, TextField } from 'react-aria-components';
import { Display, actionSegment, errorMessage, fetchWithToken, fromResponse, runCommand, useModels, useAppT, useT, type FieldInfo, type Row } from '@fw/web';
import { VersionTable } from './VersionHistory.tsx';
import type { messages } from './messages.ts';

/** How a document can be shown in the page, by its content type. */
export function previewKind(contentType: unknown): 'image' | 'pdf' | 'text' | 'none' {
  const type = String(contentType ?? '').toLowerCase().split(';')[0]!.trim();
  if (type.startsWith('image/')) return 'image';
  if (type === 'application/pdf') return 'pdf';
  if (type.startsWith('text/') || /^application\/([\w.-]+\+)?(json|xml|yaml|x-yaml|javascript|x-sh|sql)$/.test(type)) return 'text';
  return 'none';
}

/**
 * The current version's bytes as a blob URL: an `<img>` or a frame cannot send the bearer token,
 * so the download is fetched with it. A PDF blob is typed as PDF whatever the server says, so the
 * frame only ever runs the browser's PDF viewer, never a document of this origin.
 */
function useBlobUrl(path: string, kind: 'image' | 'pdf' | null, version: unknown) {
  const [state, setState] = useState<{ url: string } | { error: unknown } | null>(null);
  useEffect(() => {
    if (!kind) return;
    let live = true;
    let url: string | null = null;
    setState(null);
    void (async () => {
      const res = await fetchWithToken(path);
      if (!res.ok) throw await fromResponse(res);
      const blob = await res.blob();
      const typed = kind === 'pdf' ? new Blob([blob], { type: 'application/pdf' }) : blob;
      if (!live) return;
      url = URL.createObjectURL(typed);
      setState({ url });
    })().catch((error: unknown) => { if (live) setState({ error }); });
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [path, kind, version]);
  return state;
}

function Preview({ doc }: { doc: Row }) {
  const t = useT();
  const st = useAppT<typeof messages>();
  const kind = previewKind(doc.content_type);
  const label = String(doc.name);
  const blob = useBlobUrl(`/api/storage/documents/${doc.id}/download`, kind === 'image' || kind === 'pdf' ? kind : null, doc.current_version);
  const text = useQuery({
    queryKey: ['records', 'storage.document', 'text', doc.id, doc.current_version],
    queryFn: async () => String(((await runCommand('storage.document.read_text', { id: doc.id })) as { text?: unknown } | null)?.text ?? ''),
    enabled: kind === 'text',
    retry: false,
  });
  let body: React.ReactNode;
  if (kind === 'none') {
    body = <p className="muted" data-testid="preview-none">{st('storage.documents.no_preview', { type: String(doc.content_type ?? '—') })}</p>;
  } else if (kind === 'text') {
    body = text.error ? <p className="muted" role="alert" data-testid="preview-error">{errorMessage(t, text.error)}</p>
      : text.isPending ? <p className="muted" aria-busy="true">{st('storage.documents.preview_loading')}</p>
      : <pre className="doc-preview-text" data-testid="preview-text" tabIndex={0} aria-label={`${st('storage.documents.preview')}: ${label}`}>{text.data}</pre>;
  } else if (!blob) {
    body = <p className="muted" aria-busy="true">{st('storage.documents.preview_loading')}</p>;
  } else if ('error' in blob) {
    body = <p className="muted" role="alert" data-testid="preview-error">{errorMessage(t, blob.error)}</p>;
  } else if (kind === 'image') {
    body = <img className="doc-preview-image" src={blob.url} alt={label} data-testid="preview-image" />;
  } else {
    body = <iframe className="doc-preview-pdf" src={blob.url} title={`${st('storage.documents.preview')}: ${label}`} data-testid="preview-pdf" />;
  }
  return <div className="doc-preview" data-testid="document-preview" data-kind={kind}>{body}</div>;
}

/**
 * A document opened from its row: what it is (metadata), what it holds (a preview: images inline,
 * PDFs in the browser's viewer, text as text, anything else a download), its versions, and what
 * can be done with it (rename, download, archive or restore, delete).
 */
export function DocumentDetails({ doc, fields, org, actionKey, onClose, onRename, onDownload, onArchive, onDelete }: {
  doc: Row; fields: readonly FieldInfo[]; org: string; actionKey: string; onClose: () => void;
  onRename: (name: string) => Promise<boolean>; onDownload: (version?: number) => void; onArchive: (active: boolean) => void; onDelete: () => void;
}) {
  const t = useT();
  const st = useAppT<typeof messages>();
  const models = useModels();
  const [name, setName] = useState(String(doc.name ?? ''));
  useEffect(() => setName(String(doc.name ?? '')), [doc.name]);
  const archived = doc.is_active === false;
  const meta = fields.filter((f) => f.name !== 'name' && f.name in doc);
  const changed = name.trim() !== '' && name.trim() !== String(doc.name);
  return (
    <Modal isOpen onOpenChange={(o) => !o && onClose()} isDismissable className="modal modal-wide">
      <Dialog className="dialog doc-details" data-testid="document-details">
        <Heading slot="title">
          {String(doc.name)}
          {archived && <span className="badge" data-testid="details-archived"> {st('storage.documents.archived_badge')}</span>}
        </Heading>
        <div className="doc-details-grid">
          <div className="doc-details-side">
            <form className="doc-rename" onSubmit={(e) => { e.preventDefault(); if (changed) void onRename(name.trim()); }}>
              <TextField className="field-stack" value={name} onChange={setName}>
                <Label>{st('storage.documents.name')}</Label>
                <Input className="input" data-testid="details-name" />
              </TextField>
              <Button type="submit" className="btn" isDisabled={!changed} data-testid="details-rename">{st('storage.documents.rename')}</Button>
            </form>
            <dl className="doc-meta" data-testid="details-meta">
              {meta.map((f) => (
                <div key={f.name}>
                  <dt>{f.label}</dt>
                  <dd><Display field={f} value={doc[f.name]} models={models} record={doc} /></dd>
                </div>
              ))}
            </dl>
            <div className="doc-actions">
              <Button className="btn btn-primary" onPress={() => onDownload()} data-testid="details-download">{st('storage.documents.download')}</Button>
              <Button className="btn" onPress={() => onArchive(archived)} data-testid={archived ? 'details-unarchive' : 'details-archive'}>
                {st(archived ? 'storage.documents.unarchive' : 'storage.documents.archive')}
              </Button>
              <Button className="btn btn-danger" onPress={onDelete} data-testid="details-delete">{st('storage.documents.delete')}</Button>
            </div>
            <Link className="small" to="/$org/$action/$record" params={{ org, action: actionSegment(actionKey), record: doc.id }} search={{}} data-testid="details-open-record">
              {st('storage.documents.open_record')}
            </Link>
          </div>
          <section className="doc-details-preview" aria-label={st('storage.documents.preview')}>
            <Preview doc={doc} />
          </section>
        </div>
        <h3 className="separator">{st('storage.documents.versions')}</h3>
        <VersionTable doc={doc} onDownload={(n) => onDownload(n)} />
        <div className="dialog-actions"><Button className="btn" onPress={onClose} slot="close" data-testid="details-close">{t('common.close')}</Button></div>
      </Dialog>
    </Modal>
  );
}

/** Deleting is for good: the confirmation names the document and says how many versions go with it. */
export function ConfirmDelete({ doc, onCancel, onConfirm }: { doc: Row; onCancel: () => void; onConfirm: () => void }) {
  const t = useT();
  const st = useAppT<typeof messages>();
  return (
    <Modal isOpen onOpenChange={(o) => !o && onCancel()} isDismissable className="modal">
      <Dialog role="alertdialog" className="dialog" data-testid="delete-dialog">
        <Heading slot="title">{st('storage.documents.delete_title', { name: String(doc.name) })}</Heading>
        <p>{st('storage.documents.delete_body', { count: Number(doc.version_count ?? doc.current_version ?? 1) })}</p>
        <div className="dialog-actions">
          <Button className="btn" onPress={onCancel} autoFocus data-testid="delete-cancel">{t('common.cancel')}</Button>
          <Button className="btn btn-danger" onPress={onConfirm} data-testid="delete-confirm">{st('storage.documents.delete')}</Button>
        </div>
      </Dialog>
    </Modal>
  );
}
