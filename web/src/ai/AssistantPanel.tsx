import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Button, Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useT } from '../i18n/index.tsx';
import { ConversationList } from './ConversationList.tsx';
import { bindQueryClient } from './session.ts';
import { ThreadPane } from './ThreadPane.tsx';
import './assistant.css';

/**
 * The assistant drawer (lazy-loaded): the person's conversations on the left, the selected one
 * on the right (messages, tool chips, proposals, composer). A modal dialog sliding in from the
 * right edge: Escape or a click outside closes it and focus returns to the header button; the
 * state (selection, drafts, a running turn, proposals) outlives it (session.ts).
 */
export default function AssistantPanel({ isOpen, onOpenChange }: { isOpen: boolean; onOpenChange: (open: boolean) => void }) {
  const t = useT();
  const qc = useQueryClient();
  useEffect(() => bindQueryClient(qc), [qc]);
  return (
    <ModalOverlay isOpen={isOpen} onOpenChange={onOpenChange} isDismissable className="ai-overlay">
      <Modal className="ai-drawer">
        <Dialog className="ai-dialog" data-testid="assistant-panel">
          {({ close }) => (
            <>
              <header className="ai-head">
                <span className="ai-mark" aria-hidden="true">✦</span>
                <Heading slot="title" className="ai-title">{t('ai.title')}</Heading>
                <Button className="btn-icon ai-close" aria-label={t('ai.close')} onPress={close} data-testid="assistant-close">×</Button>
              </header>
              <div className="ai-body">
                <ConversationList />
                <ThreadPane />
              </div>
            </>
          )}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
