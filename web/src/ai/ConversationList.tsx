import { useQuery } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { request } from '../api/client.ts';
import { useMe } from '../app/meta.ts';
import { useT } from '../i18n/index.tsx';
import { aiKeys, ConversationsDocument } from './api.ts';
import { aiErrorMessage } from './errors.ts';
import { NEW, select, useAi } from './session.ts';

export type Conversation = NonNullable<Awaited<ReturnType<typeof fetchConversations>>>[number];
const fetchConversations = async (user: string) => (await request(ConversationsDocument, { user })).aiConversations;

export function useConversations() {
  const me = useMe();
  return useQuery({ queryKey: aiKeys.conversations, queryFn: () => fetchConversations(me.id) });
}

/** The person's conversations, newest first, and the button that starts a new one. */
export function ConversationList() {
  const t = useT();
  const q = useConversations();
  const selected = useAi((s) => s.selected);
  const when = (iso: string) => {
    const d = new Date(iso);
    return d.toDateString() === new Date().toDateString()
      ? t.intl.formatTime(d, { timeStyle: 'short' })
      : t.intl.formatDate(d, { dateStyle: 'medium' });
  };
  return (
    <nav className="ai-list" aria-label={t('ai.conversations')}>
      <Button className="btn btn-primary ai-new" onPress={() => select(NEW)} data-testid="ai-new">
        <span aria-hidden="true">+</span>{t('ai.new')}
      </Button>
      <h3 className="ai-list-title">{t('ai.conversations')}</h3>
      {q.isError && <p className="form-error small" role="alert">{aiErrorMessage(t, q.error)}</p>}
      {q.isSuccess && q.data.length === 0 && <p className="muted small">{t('ai.no_conversations')}</p>}
      <ul className="ai-convs">
        {(q.data ?? []).map((c) => (
          <li key={c.id}>
            <button type="button" className={`ai-conv${c.id === selected ? ' active' : ''}`} aria-current={c.id === selected ? 'true' : undefined}
              onClick={() => select(c.id)} data-testid="ai-conversation">
              <span className="ai-conv-title">{c.title || t('ai.untitled')}</span>
              <span className="ai-conv-meta">
                {when(c.updated_at_utc)}{c.status === 'closed' ? ` · ${t('ai.ended')}` : ''}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
