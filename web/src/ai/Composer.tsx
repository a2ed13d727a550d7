import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Button } from 'react-aria-components';
import { useT } from '../i18n/index.tsx';
import { usePacks } from './packs.ts';
import { NEW, send, setDraft, stop, useAi } from './session.ts';

/** The message box: Enter sends, Shift+Enter starts a new line; nothing is sent while a turn runs, which Stop ends. */
export function Composer() {
  const t = useT();
  const qc = useQueryClient();
  const key = useAi((s) => s.selected);
  const draft = useAi((s) => s.drafts[s.selected] ?? '');
  const busy = useAi((s) => !!s.turns[s.selected]);
  const pack = usePacks().value;
  const input = useRef<HTMLTextAreaElement>(null);
  // the caret is in the box when the drawer opens or another conversation is shown
  useEffect(() => { input.current?.focus(); }, [key]);
  const submit = () => { if (!busy && draft.trim()) void send(qc, draft, pack); };
  return (
    <form className="ai-composer" onSubmit={(e) => { e.preventDefault(); submit(); }}>
      <label htmlFor="ai-input" className="sr-only">{t('ai.message')}</label>
      <textarea id="ai-input" ref={input} className="input ai-input" rows={3} value={draft} placeholder={t('ai.placeholder')}
        readOnly={busy} aria-disabled={busy || undefined} aria-describedby="ai-hint" data-testid="ai-input"
        onChange={(e) => setDraft(key, e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) { e.preventDefault(); submit(); }
        }} />
      <div className="ai-composer-row">
        <span id="ai-hint" className="muted small">{t('ai.hint')}</span>
        <span className="ai-composer-actions">
          {busy && key !== NEW && <Button className="btn" onPress={() => void stop(key)} data-testid="ai-stop">{t('ai.stop')}</Button>}
          <Button type="submit" className="btn btn-primary" isDisabled={busy || !draft.trim()} data-testid="ai-send">{t('ai.send')}</Button>
        </span>
      </div>
    </form>
  );
}
