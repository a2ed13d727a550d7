import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Button } from 'react-aria-components';
import { useT } from '../i18n/index.tsx';
import { Composer } from './Composer.tsx';
import { useConversations } from './ConversationList.tsx';
import { aiErrorMessage } from './errors.ts';
import { usePacks } from './packs.ts';
import { clearError, closeConversation, NEW, setPack, useAi, watch } from './session.ts';
import { Thread } from './Thread.tsx';

/** The selected conversation: its header, its thread (or a new one's welcome), the last error and the composer. */
export function ThreadPane() {
  const t = useT();
  const qc = useQueryClient();
  const selected = useAi((s) => s.selected);
  const error = useAi((s) => s.errors[s.selected]);
  const conv = useConversations().data?.find((c) => c.id === selected);
  const closed = conv?.status === 'closed';
  // the turn's events stream while the conversation is on screen (and while its turn runs)
  useEffect(() => (selected !== NEW ? watch(selected) : undefined), [selected]);
  const tokens = (conv?.input_tokens ?? 0) + (conv?.output_tokens ?? 0);
  return (
    <section className="ai-pane" aria-labelledby="ai-pane-title">
      <div className="ai-pane-head">
        <h3 id="ai-pane-title" className="ai-pane-title" data-testid="ai-pane-title">
          {selected === NEW ? t('ai.new') : conv?.title || t('ai.untitled')}
        </h3>
        {conv?.skill_pack_id && <span className="badge">{conv.skill_pack_id.name}</span>}
        {tokens > 0 && (
          <span className="muted small ai-usage" data-testid="ai-usage">
            {t('ai.usage', { tokens: t.intl.formatNumber(tokens), usd: t.intl.formatNumber(conv?.usd ?? 0, { style: 'currency', currency: 'USD', maximumFractionDigits: 4 }) })}
          </span>
        )}
        {conv && !closed && (
          <Button className="btn btn-ghost small" onPress={() => void closeConversation(qc, conv.id)} data-testid="ai-end">{t('ai.end')}</Button>
        )}
      </div>
      {selected === NEW ? <Welcome /> : <Thread id={selected} />}
      {error != null && (
        <div className="ai-error" role="alert" data-testid="ai-error">
          <span>{aiErrorMessage(t, error)}</span>
          <button type="button" className="btn-icon" aria-label={t('ai.error.dismiss')} onClick={() => clearError(selected)}>×</button>
        </div>
      )}
      {closed ? <p className="ai-closed muted" data-testid="ai-closed">{t('ai.closed')}</p> : <Composer />}
    </section>
  );
}

/** A conversation not started yet: what the assistant does, and the skill pack it starts with. */
function Welcome() {
  const t = useT();
  const { list, value } = usePacks();
  const current = list.find((p) => p.key === value);
  return (
    <div className="ai-welcome" data-testid="ai-welcome">
      <span className="ai-welcome-mark" aria-hidden="true">✦</span>
      <h4>{t('ai.welcome.title')}</h4>
      <p className="muted">{t('ai.welcome.body')}</p>
      {list.length > 0 && (
        <div className="ai-pack">
          <label htmlFor="ai-pack">{t('ai.skill_pack')}</label>
          <select id="ai-pack" className="input" value={value ?? ''} onChange={(e) => setPack(e.target.value)} data-testid="ai-pack">
            {list.map((p) => <option key={p.key} value={p.key}>{p.name}</option>)}
          </select>
          {current?.description && <p className="muted small">{current.description}</p>}
        </div>
      )}
    </div>
  );
}
