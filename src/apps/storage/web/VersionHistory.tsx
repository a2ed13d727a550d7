import { useQuery } from '@tanstack/react-query';
import { Button, Dialog, Heading, Modal } from 'react-aria-components';
import { FormattedDate } from 'react-intl';
import { Display, recordsKey, request, useModels, useAppT, useT, type Row } from '@fw/web';
import { graphql } from '@fw/gql';
import type { messages } from './messages.ts';

const VersionsDocument = graphql(`
  query DocumentVersions($doc: ID!) {
    storageDocumentVersions(where: { document_id: { eq: $doc } }, orderBy: [{ version_number: desc }], limit: 500) {
      id version_number original_filename file_size change_note created_at_utc uploaded_by { id name }
    }
  }
`);

/** The versions of a document, newest first, each with its download (the history dialog and the details panel). */
export function VersionTable({ doc, onDownload }: { doc: Row; onDownload: (n: number) => void }) {
  const st = useAppT<typeof messages>();
  const models = useModels();
  const versions = useQuery({ queryKey: recordsKey('storage.document_version', 'of', doc.id, doc.current_version), queryFn: () => request(VersionsDocument, { doc: doc.id }) });
  return (
    <table className="records compact" data-testid="version-table">
      <tbody>
        {(versions.data?.storageDocumentVersions ?? []).map((v) => (
          <tr key={v.id} data-testid="version-row">
            <td>{st('storage.documents.version', { n: v.version_number })}</td>
            <td>{v.original_filename}</td>
            <td><Display field={{ name: 'file_size', label: '', type: 'integer', widget: 'filesize' }} value={v.file_size} models={models} /></td>
            <td data-testid="version-note-cell">{v.change_note ?? ''}</td>
            <td><FormattedDate value={v.created_at_utc} dateStyle="medium" timeStyle="short" /></td>
            <td>{v.uploaded_by?.name ?? ''}</td>
            <td><Button className="btn btn-ghost" onPress={() => onDownload(v.version_number)} data-testid={`version-download-${v.version_number}`}
              aria-label={`${st('storage.documents.download')} ${st('storage.documents.version', { n: v.version_number })}`}>{st('storage.documents.download')}</Button></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function VersionHistory({ doc, onClose, onDownload }: { doc: Row; onClose: () => void; onDownload: (n: number) => void }) {
  const t = useT();
  const st = useAppT<typeof messages>();
  return (
    <Modal isOpen onOpenChange={(o) => !o && onClose()} isDismissable className="modal modal-wide">
      <Dialog className="dialog" data-testid="history-dialog">
        <Heading slot="title">{st('storage.documents.versions')}: {String(doc.name)}</Heading>
        <VersionTable doc={doc} onDownload={onDownload} />
        <div className="dialog-actions"><Button className="btn" onPress={onClose} slot="close">{t('common.close')}</Button></div>
      </Dialog>
    </Modal>
  );
}
