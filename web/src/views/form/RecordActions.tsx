import { useState } from 'react';
import { Button, Dialog, Heading, Menu, MenuItem, MenuTrigger, Modal, Popover } from 'react-aria-components';
import { request } from '../../api/client.ts';
import { errorMessage } from '../../app/errors.ts';
import { toast } from '../../app/toast.tsx';
import { useT } from '../../i18n/index.tsx';
import { useInputFields, useWritable } from '../../model/access.ts';
import { deleteDocument, updateDocument, type ModelInfo } from '../../model/records.ts';
import { useInvalidateModel } from '../../model/useRecords.ts';
import { runCommand } from './commands.ts';

type ActionKey = 'duplicate' | 'archive' | 'unarchive' | 'delete';

/**
 * The form's Actions menu for a saved record: Duplicate (`fw.copy`, the model's copyable fields),
 * Archive or Unarchive (a model with `is_active` whose update input has it) and Delete after a
 * confirmation. Each is offered only when the schema has the mutation behind it: Delete needs
 * delete, Archive needs update, Duplicate needs create. A form with unsaved changes is saved
 * first for Duplicate and Archive (they act on the stored record); Delete discards them.
 */
export function RecordActions({ model, recordId, name, active, dirty, onDuplicated, onDeleted }: {
  model: ModelInfo; recordId: string; name: string;
  /** the record's is_active, when the model is archivable and the form read it */
  active: boolean | undefined;
  dirty: boolean;
  onDuplicated: (id: string) => void;
  onDeleted: () => void;
}) {
  const t = useT();
  const can = useWritable(model);
  const invalidate = useInvalidateModel();
  const [confirm, setConfirm] = useState(false);
  const updateInput = useInputFields(model.names.updateInput, can.update && !!model.archivable);
  const archivable = !!model.archivable && active !== undefined && !!updateInput?.some((f) => f.name === 'is_active');
  const items: ActionKey[] = [
    ...(can.create ? ['duplicate' as const] : []),
    ...(archivable ? [active ? 'archive' as const : 'unarchive' as const] : []),
    ...(can.delete ? ['delete' as const] : []),
  ];
  if (!items.length) return null;

  async function run(key: ActionKey) {
    if (key === 'delete') { setConfirm(true); return; }
    if (dirty) { toast(t('form.save_first'), 'error'); return; }
    try {
      if (key === 'duplicate') {
        const copy = (await runCommand('fw.copy', { model: model.key, id: recordId })) as { id: string };
        toast(t('form.duplicated'));
        await invalidate(model.key);
        onDuplicated(copy.id);
      } else {
        await request(updateDocument(model), { id: recordId, input: { is_active: key === 'unarchive' } });
        toast(t(key === 'archive' ? 'form.archived' : 'form.unarchived'));
        await invalidate(model.key);
      }
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    }
  }

  async function remove() {
    setConfirm(false);
    try {
      await request(deleteDocument(model), { id: recordId });
    } catch (err) {
      toast(errorMessage(t, err), 'error');
      return;
    }
    toast(t('form.deleted'));
    onDeleted();
    await invalidate(model.key);
  }

  return (
    <>
      <MenuTrigger>
        <Button className="btn btn-ghost" data-testid="record-actions" aria-label={t('form.actions')}>⚙ {t('form.actions')}</Button>
        <Popover className="popover" placement="bottom end">
          <Menu className="menu" onAction={(k) => void run(k as ActionKey)}>
            {items.map((k) => (
              <MenuItem key={k} id={k} className={`menu-item${k === 'delete' ? ' menu-danger' : ''}`} data-testid={`record-${k}`}>{t(`form.action.${k}`)}</MenuItem>
            ))}
          </Menu>
        </Popover>
      </MenuTrigger>
      <Modal isOpen={confirm} onOpenChange={setConfirm} isDismissable className="modal">
        <Dialog role="alertdialog" className="dialog" data-testid="delete-dialog">
          <Heading slot="title">{t('form.confirm_delete', { name })}</Heading>
          <p>{t('form.confirm_delete.body')}</p>
          <div className="dialog-actions">
            <Button className="btn" onPress={() => setConfirm(false)} autoFocus data-testid="delete-cancel">{t('common.cancel')}</Button>
            <Button className="btn btn-danger" onPress={() => void remove()} data-testid="delete-confirm">{t('common.delete')}</Button>
          </div>
        </Dialog>
      </Modal>
    </>
  );
}
