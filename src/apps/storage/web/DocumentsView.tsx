import { useMemo, useState } from 'react';
import { Button, Checkbox, Dialog, Heading, Input, Label, Menu, MenuItem, MenuTrigger, Modal, Popover, TextField } from 'react-aria-components';
import { ControlPanel, Display, Pager, andWhere, asFields, deleteDocument, displayName, downloadFile, errorMessage, modelOf, orderBy, pickFile, request, runCommand, selection, toast, updateDocument, uploadFile, useBlock, useCount, useInvalidateModel, useModels, useAppT, useT, type ListPlan, type Row, type ViewProps } from '@fw/web';
import { ConfirmDelete, DocumentDetails } from './DocumentDetails.tsx';
import { FolderTree, useFolders, type FolderChoice } from './FolderTree.tsx';
import { VersionHistory } from './VersionHistory.tsx';
import type { messages } from './messages.ts';

const DRAG_TYPE = 'application/x-fw-document';

/**
 * Documents: a folder tree beside the list, uploads by drag and drop or picker with a progress
 * bar, download, new versions with a change note, the version history; a document row dragged
 * onto a folder moves it there. A row opens the document's details (metadata, preview, versions,
 * rename, archive or restore, delete); archived documents are hidden unless asked for.
 */
export default function DocumentsView({ plan, action, search, searchPlan, where, org }: ViewProps<ListPlan>) {
  const t = useT();
  const st = useAppT<typeof messages>();
  const models = useModels();
  const m = modelOf(models, plan.model);
  const hasFolders = models.has('storage.folder');
  const [folder, setFolder] = useState<FolderChoice>({ kind: 'all' });
  const fields = asFields(plan.fields);
  // the folder shows in the row's move menu, so it needs no column of its own here
  const columns = plan.columns.map((c) => fields.find((f) => f.name === c)!).filter((f) => f && f.optional !== 'hide' && !(hasFolders && f.name === 'folder'));
  const sel = useMemo(() => `${selection(fields, models)} current_version version_count original_filename content_type is_active${models.has('storage.folder') ? ' folder { id }' : ''}`, [fields, models]);
  const [showArchived, setShowArchived] = useState(false);
  const scoped = andWhere([where, folder.kind === 'folder' ? { folder: { eq: folder.id } } : folder.kind === 'root' && hasFolders ? { folder: { eq: null } } : null,
    showArchived ? null : { is_active: { eq: true } }]);
  const limit = plan.limit ?? 50;
  const page = search.page ?? 1;
  const total = useCount(m, scoped);
  const rows = useBlock(m, sel, scoped, orderBy(search.order ?? plan.default_order), (page - 1) * limit, limit);
  const invalidate = useInvalidateModel();
  const [progress, setProgress] = useState<{ name: string; fraction: number } | null>(null);
  const [dropping, setDropping] = useState(false);
  const [versionOf, setVersionOf] = useState<Row | null>(null);
  const [historyOf, setHistoryOf] = useState<Row | null>(null);
  // the opened document is followed by id, so a rename or a new version shows in the panel
  const [openId, setOpenId] = useState<string | null>(null);
  const opened = openId ? (rows.data ?? []).find((r) => r.id === openId) ?? null : null;
  const [deleting, setDeleting] = useState<Row | null>(null);

  async function upload(files: File[], docId?: string, changeNote?: string) {
    for (const file of files) {
      setProgress({ name: file.name, fraction: 0 });
      try {
        const path = docId ? `/api/storage/documents/${docId}/versions` : '/api/storage/documents';
        // a new document is filed in the selected folder as it is uploaded
        const target = !docId && folder.kind === 'folder' ? folder.id : undefined;
        await uploadFile(path, file, { change_note: changeNote, folder: target }, (fraction) => setProgress({ name: file.name, fraction }));
        toast(st('storage.upload.done', { name: file.name }));
      } catch (err) {
        toast(errorMessage(t, err), 'error');
      }
    }
    setProgress(null);
    await invalidate(m.key);
  }

  async function moveTo(docId: string, target: FolderChoice, label: string) {
    try {
      await request(updateDocument(m), { id: docId, input: { folder: target.kind === 'folder' ? target.id : null } });
      toast(st('storage.documents.moved', { folder: label }));
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
    await invalidate(m.key);
  }

  async function rename(doc: Row, name: string): Promise<boolean> {
    try {
      await request(updateDocument(m), { id: doc.id, input: { name } });
      toast(st('storage.documents.renamed', { name }));
      await invalidate(m.key);
      return true;
    } catch (err) {
      toast(errorMessage(t, err), 'error');
      return false;
    }
  }

  async function setArchived(doc: Row, archive: boolean) {
    try {
      await runCommand(archive ? 'storage.document.archive' : 'storage.document.unarchive', { id: doc.id });
      toast(st(archive ? 'storage.documents.archived' : 'storage.documents.unarchived', { name: String(doc.name) }));
      // an archived document leaves the list unless archived ones are shown: so does its panel
      if (archive && !showArchived) setOpenId(null);
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
    await invalidate(m.key);
  }

  async function remove(doc: Row) {
    setDeleting(null);
    try {
      await request(deleteDocument(m), { id: doc.id });
      toast(st('storage.documents.deleted', { name: String(doc.name) }));
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
    await invalidate(m.key);
  }

  async function download(doc: Row, version?: number) {
    try {
      await downloadFile(version ? `/api/storage/documents/${doc.id}/versions/${version}/download` : `/api/storage/documents/${doc.id}/download`, String(doc.original_filename ?? doc.name));
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
  }

  return (
    <div className="view view-documents">
      <ControlPanel title={plan.title} action={action} org={org} search={search} searchPlan={searchPlan} current="list" canCreate={false}>
        <Button className="btn btn-primary" data-testid="upload-button"
          onPress={() => void pickFile(null).then((f) => f && upload([f]))}>{st('storage.documents.upload')}</Button>
      </ControlPanel>
      <div className="documents-layout">
        {hasFolders && <FolderTree selected={folder} onSelect={setFolder} onDropDocument={(id, target, label) => void moveTo(id, target, label)} dragType={DRAG_TYPE} />}
        <div
          className={`dropzone${dropping ? ' dropping' : ''}`} data-testid="dropzone"
          onDragOver={(e) => { if (e.dataTransfer.types.includes('Files')) { e.preventDefault(); setDropping(true); } }}
          onDragLeave={() => setDropping(false)}
          onDrop={(e) => { if (!e.dataTransfer.files.length) return; e.preventDefault(); setDropping(false); void upload([...e.dataTransfer.files]); }}
        >
          {progress && (
            <div className="upload-progress" data-testid="upload-progress">
              <label htmlFor="upload-bar">{st('storage.upload.progress', { name: progress.name, percent: progress.fraction })}</label>
              <progress id="upload-bar" max={1} value={progress.fraction} />
            </div>
          )}
          {dropping && <div className="drop-hint">{st('storage.upload.drop')}</div>}
          <div className="list-toolbar">
            <span className="muted small">{st('storage.upload.drop')}</span>
            <Checkbox className="checkbox show-archived" isSelected={showArchived} onChange={setShowArchived} data-testid="show-archived">
              <span className="checkbox-box" aria-hidden="true" />{st('storage.documents.show_archived')}
            </Checkbox>
            {total.data !== undefined && (
              <Pager page={page} limit={limit} total={total.data} />
            )}
          </div>
          {total.data === 0 ? <p className="empty" data-testid="list-empty">{t('list.empty')}</p> : (
            <table className="records" data-testid="documents-table">
              <thead><tr>{columns.map((c) => <th key={c.name}>{c.label}</th>)}<th><span className="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {(rows.data ?? []).map((r) => (
                  <tr key={r.id} draggable data-testid="document-row" tabIndex={0}
                    onDragStart={(e) => { e.dataTransfer.setData(DRAG_TYPE, r.id); e.dataTransfer.effectAllowed = 'move'; }}
                    className={r.is_active === false ? "archived" : undefined}
                    onClick={(e) => { if (!(e.target as Element).closest('button, select, a, input')) setOpenId(r.id); }}
                    onKeyDown={(e) => { if (e.key === 'Enter' && e.target === e.currentTarget) setOpenId(r.id); }}>
                    {columns.map((c, i) => (
                      <td key={c.name}>
                        <Display field={c} value={r[c.name]} models={models} />
                        {i === 0 && r.is_active === false && <span className="badge badge-archived" data-testid="row-archived">{st('storage.documents.archived_badge')}</span>}
                      </td>
                    ))}
                    <td className="row-actions" onClick={(e) => e.stopPropagation()}>
                      <Button className="btn btn-ghost" onPress={() => void download(r)} data-testid="doc-download" aria-label={`${st('storage.documents.download')} ${displayName(m, r)}`}>{st('storage.documents.download')}</Button>
                      <MenuTrigger>
                        <Button className="btn btn-ghost" aria-label={`${st('storage.documents.more')} ${displayName(m, r)}`} data-testid="doc-more">⋯</Button>
                        <Popover className="popover">
                          <Menu className="menu" onAction={(key) => {
                            if (key === 'version') setVersionOf(r);
                            else if (key === 'history') setHistoryOf(r);
                            else if (key === 'archive') void setArchived(r, r.is_active !== false);
                            else if (key === 'delete') setDeleting(r);
                          }}>
                            <MenuItem id="version" className="menu-item" data-testid="doc-new-version">{st('storage.documents.new_version')}</MenuItem>
                            <MenuItem id="history" className="menu-item" data-testid="doc-history">{st('storage.documents.versions')}</MenuItem>
                            <MenuItem id="archive" className="menu-item" data-testid="doc-archive">{st(r.is_active === false ? 'storage.documents.unarchive' : 'storage.documents.archive')}</MenuItem>
                            <MenuItem id="delete" className="menu-item" data-testid="doc-delete">{st('storage.documents.delete')}</MenuItem>
                          </Menu>
                        </Popover>
                      </MenuTrigger>
                      {hasFolders && <MoveTo doc={r} onMove={(target, label) => void moveTo(r.id, target, label)} />}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>
      {versionOf && <NewVersionDialog doc={versionOf} onClose={() => setVersionOf(null)} onUpload={(f, note) => { setVersionOf(null); void upload([f], versionOf.id, note); }} />}
      {opened && !deleting && (
        <DocumentDetails doc={opened} fields={fields} org={org} actionKey={action.key} onClose={() => setOpenId(null)}
          onRename={(name) => rename(opened, name)} onDownload={(n) => void download(opened, n)}
          onArchive={(active) => void setArchived(opened, !active)} onDelete={() => setDeleting(opened)} />
      )}
      {deleting && <ConfirmDelete doc={deleting} onCancel={() => setDeleting(null)} onConfirm={() => { setOpenId(null); void remove(deleting); }} />}
      {historyOf && <VersionHistory doc={historyOf} onClose={() => setHistoryOf(null)} onDownload={(n) => void download(historyOf, n)} />}
    </div>
  );
}

function NewVersionDialog({ doc, onClose, onUpload }: { doc: Row; onClose: () => void; onUpload: (f: File, note: string) => void }) {
  const t = useT();
  const st = useAppT<typeof messages>();
  const [note, setNote] = useState('');
  const [file, setFile] = useState<File | null>(null);
  return (
    <Modal isOpen onOpenChange={(o) => !o && onClose()} isDismissable className="modal">
      <Dialog className="dialog" data-testid="version-dialog">
        <Heading slot="title">{st('storage.documents.new_version')}: {String(doc.name)}</Heading>
        <label className="field-stack">
          <span>{st('storage.upload.pick')}</span>
          <input type="file" data-testid="version-file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        </label>
        <TextField className="field-stack" value={note} onChange={setNote}>
          <Label>{st('storage.documents.change_note')}</Label>
          <Input className="input" data-testid="version-note" />
        </TextField>
        <div className="dialog-actions">
          <Button className="btn" onPress={onClose}>{t('common.cancel')}</Button>
          <Button className="btn btn-primary" isDisabled={!file} onPress={() => file && onUpload(file, note)} data-testid="version-upload">{st('storage.documents.upload')}</Button>
        </div>
      </Dialog>
    </Modal>
  );
}

/** Moving without a mouse: the same move as dragging the row onto a folder. */
function MoveTo({ doc, onMove }: { doc: Row; onMove: (target: FolderChoice, label: string) => void }) {
  const st = useAppT<typeof messages>();
  const folders = useFolders();
  const current = (doc.folder as { id: string } | null | undefined)?.id ?? '';
  return (
    <select className="input move-to" aria-label={`${st('storage.documents.move')} ${String(doc.name)}`} value={current} data-testid="doc-move"
      onClick={(e) => e.stopPropagation()}
      onChange={(e) => {
        const id = e.target.value;
        const label = id ? String(folders.data?.find((f) => f.id === id)?.name ?? id) : st('storage.documents.root');
        onMove(id ? { kind: 'folder', id } : { kind: 'root' }, label);
      }}>
      <option value="">{st('storage.documents.root')}</option>
      {(folders.data ?? []).map((f) => <option key={f.id} value={f.id}>{String(f.name)}</option>)}
    </select>
  );
}
