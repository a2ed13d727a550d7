import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Button } from 'react-aria-components';
import { Link, useParams } from '@tanstack/react-router';
import { useBootstrap, useModels } from '../app/meta.ts';
import { formActionOf } from '../app/nav.ts';
import { actionSegment } from '../app/search-params.ts';
import { useT } from '../i18n/index.tsx';
import { aiErrorMessage } from './errors.ts';
import { confirm, dismiss, undo, type Proposal } from './session.ts';

const shown = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * A write the assistant proposed: nothing is written until the person confirms. Confirm runs it
 * (once: the token is single-use); once applied it can be undone while the record is unchanged.
 */
export function ProposalCard({ conversation, proposal: p }: { conversation: string; proposal: Proposal }) {
  const t = useT();
  const qc = useQueryClient();
  const title = useId();
  const models = useModels();
  const boot = useBootstrap();
  const { org } = useParams({ strict: false }) as { org?: string };
  // the record an update changes, named and linked to its form when the client has one
  const target = p.operation === 'update' && p.model && p.record_id && org ? formActionOf(boot.actions, p.model) : undefined;
  const recordName = p.record_name ?? p.record_id ?? '';
  const expiresAt = new Date(p.expires_at).getTime();
  const [now, setNow] = useState(Date.now());
  const waiting = p.state === 'pending' || p.state === 'confirming';
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => setNow(Date.now()), 15_000);
    const end = setTimeout(() => setNow(Date.now()), Math.max(0, expiresAt - Date.now()) + 50);
    return () => { clearInterval(timer); clearTimeout(end); };
  }, [waiting, expiresAt]);
  const expired = waiting && now >= expiresAt;
  const minutes = Math.max(1, Math.ceil((expiresAt - now) / 60_000));
  return (
    <section className={`ai-proposal ai-proposal-${expired ? 'expired' : p.state}`} aria-labelledby={title} data-testid="ai-proposal" data-state={p.state}>
      <div className="ai-proposal-head">
        <h4 id={title}>{t('ai.proposal.title')}</h4>
        <span className="mono small muted">{p.tool}</span>
      </div>
      {p.operation === 'create' && p.model && <p>{t('ai.proposal.create', { model: models.get(p.model)?.description ?? p.model })}</p>}
      {p.operation === 'update' && p.model && (
        <p data-testid="ai-proposal-target">
          {t('ai.proposal.update', { model: models.get(p.model)?.description ?? p.model })}{' '}
          {target && org && p.record_id
            ? <Link to="/$org/$action/$record" params={{ org, action: actionSegment(target.key), record: p.record_id }} search={{}} data-testid="ai-proposal-record">{recordName}</Link>
            : <strong data-testid="ai-proposal-record">{recordName}</strong>}
        </p>
      )}
      {/* every change the write makes, never cut: the person confirms exactly what they see */}
      <dl className="ai-values" data-testid="ai-proposal-values">
        {p.changes.map((c) => (
          <div key={c.field} data-testid="ai-proposal-change" data-field={c.field}>
            <dt>{c.field}</dt>
            <dd>
              {p.operation === 'update' && (
                <>
                  <span className="ai-before">{shown(c.before)}</span>
                  <span aria-hidden="true"> → </span>
                  <span className="sr-only">{t('ai.proposal.becomes')}</span>
                </>
              )}
              {shown(c.after)}
              {c.requested === false && <span className="ai-unrequested" data-testid="ai-unrequested"> {t('ai.proposal.unrequested')}</span>}
            </dd>
          </div>
        ))}
      </dl>
      {waiting && !expired && (
        <p className="muted small">
          {t('ai.proposal.expires', { minutes, time: t.intl.formatTime(expiresAt, { timeStyle: 'short' }) })}
        </p>
      )}
      {p.error != null && <p className="form-error small" role="alert" data-testid="ai-proposal-error">{aiErrorMessage(t, p.error)}</p>}
      <div className="ai-proposal-actions">
        {expired && <span className="muted">{t('ai.proposal.expired')}</span>}
        {waiting && !expired && (
          <>
            <Button className="btn btn-primary" isDisabled={p.state === 'confirming'} onPress={() => void confirm(qc, conversation, p.proposal_id)} data-testid="ai-confirm">
              {t('ai.proposal.confirm')}
            </Button>
            <Button className="btn" isDisabled={p.state === 'confirming'} onPress={() => dismiss(conversation, p.proposal_id)} data-testid="ai-dismiss">
              {t('ai.proposal.dismiss')}
            </Button>
          </>
        )}
        {(p.state === 'applied' || p.state === 'undoing') && (
          <>
            <span className="ai-applied" data-testid="ai-applied"><span aria-hidden="true">✓ </span>{t('ai.proposal.applied')}</span>
            <Button className="btn" isDisabled={p.state === 'undoing'} onPress={() => void undo(qc, conversation, p.proposal_id)} data-testid="ai-undo">
              {t('ai.proposal.undo')}
            </Button>
          </>
        )}
        {p.state === 'undone' && <span className="muted" data-testid="ai-undone">{t('ai.proposal.undone')}</span>}
      </div>
    </section>
  );
}
