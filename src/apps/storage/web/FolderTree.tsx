import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Dialog, Heading, Input, Label, Modal, TextField } from 'react-aria-components';
import { createDocument, deleteDocument, errorMessage, modelOf, recordsKey, request, rowsDocument, toast, useInvalidateModel, useModels, useAppT, useT, type Row } from '@fw/web';
import type { messages } from './messages.ts';

export type FolderChoice = { kind: 'all' } | { kind: 'root' } | { kind: 'folder'; id: string };

/** Every folder the caller can see (one query shared by the tree and the move menus). */
export function useFolders() {
  const models = useModels();
  const m = modelOf(models, 'storage.folder');
  return useQuery({
    queryKey: recordsKey(m.key, 'tree'),
    queryFn: async () => (await request<{ rows: Row[] }, Record<string, unknown>>(rowsDocument(m, 'id name parent { id }'), { limit: 500, offset: 0, orderBy: [{ name: 'asc' }] })).rows,
  });
}

/** The storage.folder tree: pick a folder, create one under the selected one, delete an empty one. */
export function FolderTree({ selected, onSelect, onDropDocument, dragType }: {
  selected: FolderChoice; onSelect: (c: FolderChoice) => void; onDropDocument: (docId: string, target: FolderChoice, label: string) => void; dragType: string;
}) {
  const t = useT();
  const st = useAppT<typeof messages>();
  const models = useModels();
  const m = modelOf(models, 'storage.folder');
  const invalidate = useInvalidateModel();
  const folders = useFolders();
  const [creating, setCreating] = useState(false);
  const [over, setOver] = useState<string | null>(null);
  const all = folders.data ?? [];
  const childrenOf = (id: string | null) => all.filter((f) => ((f.parent as { id: string } | null)?.id ?? null) === id);
  const selectedId = selected.kind === 'folder' ? selected.id : null;

  async function create(name: string) {
    setCreating(false);
    try {
      await request(createDocument(m), { input: { name, parent: selectedId } });
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
    await invalidate(m.key);
  }
  async function remove() {
    if (!selectedId) return;
    try {
      await request(deleteDocument(m), { id: selectedId });
      onSelect({ kind: 'all' });
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
    await invalidate(m.key);
  }

  const drop = (key: string, target: FolderChoice, label: string) => ({
    onDragOver: (e: React.DragEvent) => { if (e.dataTransfer.types.includes(dragType)) { e.preventDefault(); setOver(key); } },
    onDragLeave: () => setOver(null),
    onDrop: (e: React.DragEvent) => {
      const id = e.dataTransfer.getData(dragType);
      setOver(null);
      if (id) { e.preventDefault(); onDropDocument(id, target, label); }
    },
  });
  const item = (key: string, label: string, choice: FolderChoice, isSel: boolean, depth = 0) => (
    <button type="button" className={`folder${isSel ? ' active' : ''}${over === key ? ' over' : ''}`} style={{ paddingInlineStart: `${0.5 + depth * 0.9}rem` }}
      aria-current={isSel ? 'true' : undefined} onClick={() => onSelect(choice)} data-testid={`folder-${label}`} {...(choice.kind === 'all' ? {} : drop(key, choice, label))}>
      {label}
    </button>
  );
  const render = (parent: string | null, depth: number): React.ReactNode => childrenOf(parent).map((f) => (
    <li key={f.id}>
      {item(f.id, String(f.name), { kind: 'folder', id: f.id }, selectedId === f.id, depth)}
      <ul>{render(f.id, depth + 1)}</ul>
    </li>
  ));
  return (
    <nav className="folder-tree" aria-label={st('storage.documents.folders')} data-testid="folder-tree">
      <h2>{st('storage.documents.folders')}</h2>
      <ul>
        <li>{item('__all', st('storage.documents.all'), { kind: 'all' }, selected.kind === 'all')}</li>
        <li>{item('__root', st('storage.documents.root'), { kind: 'root' }, selected.kind === 'root')}</li>
        {render(null, 0)}
      </ul>
      <div className="folder-actions">
        <Button className="btn btn-ghost" onPress={() => setCreating(true)} data-testid="new-folder">{st('storage.documents.new_folder')}</Button>
        {selectedId && <Button className="btn btn-ghost" onPress={() => void remove()} data-testid="delete-folder">{st('storage.documents.delete_folder')}</Button>}
      </div>
      {creating && <NewFolder onCancel={() => setCreating(false)} onCreate={(n) => void create(n)} />}
    </nav>
  );
}

function NewFolder({ onCancel, onCreate }: { onCancel: () => void; onCreate: (name: string) => void }) {
  const t = useT();
  const st = useAppT<typeof messages>();
  const [name, setName] = useState('');
  return (
    <Modal isOpen onOpenChange={(o) => !o && onCancel()} isDismissable className="modal">
      <Dialog className="dialog">
        <form onSubmit={(e) => { e.preventDefault(); if (name.trim()) onCreate(name.trim()); }}>
          <Heading slot="title">{st('storage.documents.new_folder')}</Heading>
          <TextField className="field-stack" value={name} onChange={setName} autoFocus>
            <Label>{st('storage.documents.folder_name')}</Label>
            <Input className="input" data-testid="folder-name" />
          </TextField>
          <div className="dialog-actions">
            <Button className="btn" onPress={onCancel}>{t('common.cancel')}</Button>
            <Button type="submit" className="btn btn-primary" data-testid="folder-create">{t('common.save')}</Button>
          </div>
        </form>
      </Dialog>
    </Modal>
  );
}
