import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { Button } from 'react-aria-components';
import { request } from '../api/client.ts';
import { ErrorPanel } from '../app/ErrorBoundary.tsx';
import { errorMessage } from '../app/errors.ts';
import { useModels } from '../app/meta.ts';
import { toast } from '../app/toast.tsx';
import { useT } from '../i18n/index.tsx';
import { chatterKey, MessagesDocument, PostDocument, type ChatterMessage } from './api.ts';
import './chatter.css';

/** Only links that stay links: a path on this server or http(s) (never `javascript:`). */
function safeHref(link: string | null | undefined): string | null {
  if (!link) return null;
  if (link.startsWith('/') && !link.startsWith('//')) return link;
  try {
    const u = new URL(link);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/**
 * The chatter of a form (the plan's `chatter: true`): the record's `ir.message` rows, newest
 * first (author, date, subject, body, link), and a box to post a comment (`irMessagePost`).
 * Nothing is shown when the user may not read `ir.message` (the bootstrap does not list it).
 * New messages appear by themselves: the query lives under `records/ir.message`, which the live
 * bridge refetches on every change of the model.
 */
export function Chatter({ model, recordId }: { model: string; recordId: string | null }) {
  const t = useT();
  const readable = useModels().has('ir.message');
  if (!readable) return null;
  return (
    <aside className="chatter" aria-label={t('form.chatter')} data-testid="chatter">
      <h2>{t('form.chatter')}</h2>
      {recordId ? <Thread model={model} recordId={recordId} /> : <p className="muted">{t('chatter.new')}</p>}
    </aside>
  );
}

function Thread({ model, recordId }: { model: string; recordId: string }) {
  const t = useT();
  const qc = useQueryClient();
  const id = useId();
  const key = chatterKey(model, recordId);
  const messages = useQuery({ queryKey: key, queryFn: async () => (await request(MessagesDocument, { model, id: recordId })).irMessages });
  const [body, setBody] = useState('');
  const [posting, setPosting] = useState(false);
  async function post() {
    const text = body.trim();
    if (!text || posting) return;
    setPosting(true);
    try {
      await request(PostDocument, { model, id: recordId, body: text });
      setBody('');
      toast(t('chatter.posted'));
      await qc.invalidateQueries({ queryKey: key });
    } catch (err) {
      toast(errorMessage(t, err), 'error');
    } finally {
      setPosting(false);
    }
  }
  return (
    <>
      <div className="chatter-compose">
        <label htmlFor={`${id}-body`} className="sr-only">{t('chatter.comment')}</label>
        <textarea id={`${id}-body`} className="input" rows={2} value={body} placeholder={t('chatter.placeholder')} data-testid="chatter-input"
          aria-describedby={`${id}-hint`} onChange={(e) => setBody(e.target.value)}
          onKeyDown={(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); void post(); } }} />
        <div className="chatter-compose-row">
          <span className="muted small" id={`${id}-hint`}>{t('chatter.hint')}</span>
          <Button className="btn btn-primary" isDisabled={!body.trim() || posting} onPress={() => void post()} data-testid="chatter-post">{t('chatter.post')}</Button>
        </div>
      </div>
      {messages.error ? <ErrorPanel error={messages.error} retry={() => void messages.refetch()} />
        : messages.isPending ? <p className="muted" aria-busy="true">{t('common.loading')}</p>
          : messages.data.length === 0 ? <p className="muted" data-testid="chatter-empty">{t('form.chatter.empty')}</p>
            : (
              <ol className="chatter-list" data-testid="chatter-messages">
                {messages.data.map((m) => <Message key={m.id} m={m} />)}
              </ol>
            )}
    </>
  );
}

/** A path of this client (not the API): followed without reloading the page. */
const inApp = (href: string) => href.startsWith('/') && !/^\/(api|graphql|health|assets)(\/|$|\?)/.test(href);

function Message({ m }: { m: ChatterMessage }) {
  const t = useT();
  const router = useRouter();
  const href = safeHref(m.link);
  const follow = (e: React.MouseEvent<HTMLAnchorElement>) => {
    if (!href || !inApp(href) || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    router.history.push(href);
  };
  const author = m.author_name || t(m.message_type === 'notification' ? 'chatter.system' : 'chatter.unknown');
  return (
    <li className={`chatter-msg chatter-${m.message_type}`} data-testid="chatter-message" data-type={m.message_type}>
      <div className="chatter-meta">
        <span className="chatter-avatar" aria-hidden="true">{author.slice(0, 1).toUpperCase()}</span>
        <strong data-testid="chatter-author">{author}</strong>
        <time dateTime={m.created_at_utc} className="muted small">
          {t.intl.formatDate(m.created_at_utc, { dateStyle: 'medium', timeStyle: 'short' })}
        </time>
        {m.message_type === 'notification' && <span className="badge">{t('chatter.notification')}</span>}
      </div>
      {m.subject && <p className="chatter-subject" data-testid="chatter-subject">{m.subject}</p>}
      <p className="chatter-body" data-testid="chatter-body">{m.body}</p>
      {href && <a className="chatter-link small" href={href} onClick={follow} data-testid="chatter-link">{t('chatter.link')}</a>}
    </li>
  );
}
