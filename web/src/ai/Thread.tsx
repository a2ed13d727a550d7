import { useQuery } from '@tanstack/react-query';
import { useLayoutEffect, useMemo, useRef } from 'react';
import { useT } from '../i18n/index.tsx';
import { messagesQuery } from './api.ts';
import { aiErrorMessage } from './errors.ts';
import { ProposalCard } from './ProposalCard.tsx';
import { useAi } from './session.ts';
import { threadItems, type ThreadItem } from './items.ts';
import { ToolChips } from './ToolChips.tsx';

/**
 * A conversation's messages as a log: the person's on the right, the assistant's on the left,
 * tool calls as chips, proposals as cards. It follows new content while scrolled to the bottom.
 * The answer streaming in is not announced token by token (aria-live off); the stored message
 * that replaces it is.
 */
export function Thread({ id }: { id: string }) {
  const t = useT();
  const q = useQuery(messagesQuery(id));
  const turn = useAi((s) => s.turns[id]);
  const proposals = useAi((s) => s.proposals[id]);
  const items = useMemo(() => threadItems(q.data ?? [], turn, proposals ?? []), [q.data, turn, proposals]);
  const box = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  useLayoutEffect(() => { stick.current = true; }, [id]);
  useLayoutEffect(() => {
    if (stick.current && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [items]);
  return (
    <div className="ai-thread" ref={box} role="log" aria-label={t('ai.messages')} tabIndex={0} data-testid="ai-thread"
      aria-busy={!!turn} onScroll={(e) => { const el = e.currentTarget; stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48; }}>
      {q.isPending && <p className="muted small">{t('common.loading')}</p>}
      {q.isError && <p className="form-error small">{aiErrorMessage(t, q.error)}</p>}
      {items.map((item) => <Item key={item.key} item={item} conversation={id} />)}
    </div>
  );
}

function Item({ item, conversation }: { item: ThreadItem; conversation: string }) {
  const t = useT();
  switch (item.kind) {
    case 'user':
      return (
        <div className={`ai-msg ai-msg-user${item.pending ? ' pending' : ''}`} data-testid="ai-msg-user">
          <span className="sr-only">{t('ai.you')}: </span>{item.text}
        </div>
      );
    case 'assistant':
      return (
        <div className={`ai-msg ai-msg-bot${item.streaming ? ' streaming' : ''}`} data-testid={item.streaming ? 'ai-streaming' : 'ai-msg-assistant'}
          aria-live={item.streaming ? 'off' : undefined}>
          <span className="sr-only">{t('ai.title')}: </span>{item.text}
          {item.flags && <span className="ai-flags">{t('ai.flagged', { guards: item.flags.join(', ') })}</span>}
          {item.stopped && <span className="ai-flags" data-testid="ai-stopped">{t('ai.stopped')}</span>}
        </div>
      );
    case 'tools':
      return <ToolChips calls={item.calls} />;
    case 'proposal':
      return <ProposalCard conversation={conversation} proposal={item.proposal} />;
    case 'thinking':
      return (
        <div className="ai-msg ai-msg-bot ai-thinking" data-testid="ai-thinking">
          <span className="ai-dots" aria-hidden="true"><i /><i /><i /></span>
          <span className="sr-only">{t('ai.thinking')}</span>
        </div>
      );
  }
}
