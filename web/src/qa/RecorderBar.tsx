import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState, useSyncExternalStore, type FormEvent, type ReactNode } from 'react';
import { request } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { errorMessage } from '../app/errors.ts';
import { useBootstrap } from '../app/meta.ts';
import { useT } from '../i18n/index.tsx';
import { qaMessages, useQaT } from './messages.ts';
import { ActiveAppsDocument } from './api.ts';
import * as rec from './recorder.ts';
import './recorder.css';

const USECASE_KEY = /^[a-z0-9][a-z0-9_.-]{0,99}$/;

/** An error as a sentence: the QA codes have their own (`qa.error.<CODE>`), others read as the app's. */
function qaError(t: ReturnType<typeof useT>, qt: ReturnType<typeof useQaT>, err: unknown): string {
  if (err instanceof ApiError) {
    const id = `qa.error.${err.code}`;
    if (id in qaMessages) return qt(id as keyof typeof qaMessages);
  }
  return errorMessage(t, err);
}

/**
 * The floating recorder bar (lazy-loaded; not a modal: the page stays usable). Start a recording
 * (use case key, module, name), then every action on the page is a step (recorder.ts); pause,
 * add an assertion, a caption or a chapter, finish, and — for the qa role — promote it into a
 * use case. Everything inside carries `data-qa-recorder`, so the bar itself is never recorded.
 */
export default function RecorderBar({ onHide, canPromote }: { onHide: () => void; canPromote: boolean }) {
  const t = useT();
  const qt = useQaT();
  const s = useSyncExternalStore(rec.subscribe, rec.getState);
  useEffect(() => rec.init(), []);
  return (
    <section className="qa-bar" data-qa-recorder="" data-testid="qa-recorder" data-phase={s.phase} aria-label={qt('qa.bar')}>
      {s.phase === 'loading' && (
        <div className="qa-head">
          <span className="qa-dot" aria-hidden="true" />
          <span className="qa-title muted" aria-busy={!s.error}>{qt('qa.loading')}</span>
          <button type="button" className="btn-icon qa-hide" aria-label={qt('qa.hide')} title={qt('qa.hide')} onClick={onHide} data-testid="qa-hide">–</button>
        </div>
      )}
      {s.phase === 'setup' && <StartForm onHide={onHide} busy={s.busy} />}
      {s.phase === 'recording' && <Recording s={s} onHide={onHide} />}
      {s.phase === 'finished' && <Finished s={s} canPromote={canPromote} onHide={onHide} />}
      {s.lost.length > 0 && (
        <div className="qa-error" role="status" data-testid="qa-lost">
          <span>{qt('qa.lost', { fields: s.lost.map((l) => qt('qa.lost.field', { label: l.label, expected: l.expected, shown: l.shown ? `“${l.shown}”` : qt('qa.lost.empty') })).join('; ') })}</span>
          <button type="button" className="btn-icon" aria-label={qt('qa.dismiss')} onClick={rec.dismissLost}>×</button>
        </div>
      )}
      {s.error != null && (
        <div className="qa-error" role="alert" data-testid="qa-error">
          <span>{s.stuck ? qt('qa.error.stuck', { message: qaError(t, qt, s.error) }) : qaError(t, qt, s.error)}</span>
          {s.stuck
            ? <button type="button" className="btn btn-ghost" onClick={rec.retry} data-testid="qa-retry">{qt('qa.retry')}</button>
            : <button type="button" className="btn-icon" aria-label={qt('qa.dismiss')} onClick={rec.dismissError}>×</button>}
        </div>
      )}
    </section>
  );
}

function Head({ title, onHide, children }: { title: string; onHide: () => void; children?: ReactNode }) {
  const qt = useQaT();
  return (
    <div className="qa-head">
      {children}
      <strong className="qa-title">{title}</strong>
      <button type="button" className="btn-icon qa-hide" aria-label={qt('qa.hide')} title={qt('qa.hide')} onClick={onHide} data-testid="qa-hide">–</button>
    </div>
  );
}

function StartForm({ onHide, busy }: { onHide: () => void; busy: boolean }) {
  const qt = useQaT();
  const id = useId();
  const apps = useQuery({ queryKey: ['qa', 'active-apps'], queryFn: () => request(ActiveAppsDocument), staleTime: Infinity });
  const tenant = useBootstrap().tenant_id;
  const modules = (apps.data?.presentationBootstrap?.active_apps ?? []).map((a) => a.name).filter((n) => n !== 'qa');
  const [key, setKey] = useState('');
  const [module, setModule] = useState('');
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const chosen = module || (modules.includes('base') ? 'base' : modules[0] ?? '');
  const keyInvalid = touched && !USECASE_KEY.test(key);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (!USECASE_KEY.test(key) || !chosen) return;
    await rec.start({ usecase_key: key, module: chosen, name: name.trim() });
  }
  return (
    <form className="qa-form" onSubmit={(e) => void submit(e)} noValidate>
      <Head title={qt('qa.start.title')} onHide={onHide}><span className="qa-dot" aria-hidden="true" /></Head>
      <div className="qa-fields">
        <label htmlFor={`${id}-key`}>{qt('qa.usecase_key')}</label>
        <input id={`${id}-key`} className="input" value={key} onChange={(e) => setKey(e.target.value.trim())} onBlur={() => setTouched(true)}
          placeholder="org.create" autoComplete="off" spellCheck={false} aria-invalid={keyInvalid || undefined}
          aria-describedby={keyInvalid ? `${id}-key-err` : undefined} data-testid="qa-usecase-key" autoFocus />
        <label htmlFor={`${id}-module`}>{qt('qa.module')}</label>
        <select id={`${id}-module`} className="input" value={chosen} onChange={(e) => setModule(e.target.value)} data-testid="qa-module">
          {modules.map((m) => <option key={m} value={m}>{m}</option>)}
        </select>
        <label htmlFor={`${id}-name`}>{qt('qa.name')}</label>
        <input id={`${id}-name`} className="input" value={name} onChange={(e) => setName(e.target.value)} placeholder={qt('qa.name.placeholder')}
          autoComplete="off" data-testid="qa-name" />
      </div>
      {keyInvalid && <p className="qa-field-error" id={`${id}-key-err`}>{qt('qa.usecase_key.invalid')}</p>}
      {/* recording is not a rehearsal: what the person does now is saved in this tenant (issue 32 item 4) */}
      <p className="qa-line muted small" data-testid="qa-start-writes-here">{qt('qa.start.writes_here', { tenant })}</p>
      <div className="qa-actions">
        <button type="submit" className="btn btn-primary" disabled={busy || !chosen} data-testid="qa-start">
          <span className="qa-dot" aria-hidden="true" />{qt('qa.start')}
        </button>
      </div>
    </form>
  );
}

type Panel = null | 'caption' | 'chapter';

function Recording({ s, onHide }: { s: rec.RecorderState; onHide: () => void }) {
  const t = useT();
  const qt = useQaT();
  const [panel, setPanel] = useState<Panel>(null);
  const r = s.recording!;
  return (
    <>
      <Head title={r.name} onHide={onHide}>
        <span className={`qa-dot${s.paused ? ' paused' : ' live'}`} aria-hidden="true" />
        <span className="qa-state" data-testid="qa-state">{qt(s.paused ? 'qa.state.paused' : 'qa.state.recording')}</span>
      </Head>
      <p className="qa-line">
        <span className="qa-key mono">{r.usecase_key}</span>
        <span className="qa-sep" aria-hidden="true">·</span>
        <span data-testid="qa-count" data-count={s.count} aria-live="polite">{qt('qa.steps', { count: s.count })}</span>
        {s.queued > 0 && <span className="muted" data-testid="qa-queued"> {qt('qa.queued', { count: s.queued })}</span>}
      </p>
      {s.lastStep && (
        <p className="qa-line muted small" data-testid="qa-last">
          {s.lastStep.caption ? qt('qa.last_caption', { kind: s.lastStep.kind, caption: s.lastStep.caption }) : qt('qa.last', { kind: s.lastStep.kind })}
        </p>
      )}
      <div className="qa-actions" role="toolbar" aria-label={qt('qa.bar')}>
        <button type="button" className="btn" onClick={s.paused ? rec.resume : rec.pause} data-testid="qa-pause">{qt(s.paused ? 'qa.resume' : 'qa.pause')}</button>
        <button type="button" className={`btn${s.picking ? ' active' : ''}`} aria-pressed={s.picking} disabled={s.paused}
          onClick={() => { setPanel(null); if (s.picking) rec.stopPicking(); else rec.startPicking(); }} data-testid="qa-assert">{qt('qa.assert')}</button>
        <button type="button" className="btn" aria-expanded={panel === 'caption'} disabled={!s.lastStep}
          onClick={() => setPanel(panel === 'caption' ? null : 'caption')} data-testid="qa-caption">{qt('qa.caption')}</button>
        <button type="button" className="btn" aria-expanded={panel === 'chapter'} disabled={s.paused}
          onClick={() => setPanel(panel === 'chapter' ? null : 'chapter')} data-testid="qa-chapter">{qt('qa.chapter')}</button>
        <button type="button" className="btn btn-primary" disabled={s.busy} onClick={() => void rec.finish()} data-testid="qa-finish">{qt('qa.finish')}</button>
      </div>
      {s.picking && <p className="qa-hint" role="status" data-testid="qa-picking">{qt('qa.assert.hint')}</p>}
      {s.picked && (
        <div className="qa-panel" data-testid="qa-picked">
          <p className="qa-line">{qt('qa.assert.picked', { target: s.picked.description })}</p>
          <div className="qa-actions">
            <button type="button" className="btn" onClick={() => rec.assertPicked('visible')} data-testid="qa-assert-visible">{qt('qa.assert.visible')}</button>
            {s.picked.text && (
              <button type="button" className="btn" onClick={() => rec.assertPicked('text')} data-testid="qa-assert-text">
                {qt('qa.assert.text', { text: s.picked.text.length > 40 ? `${s.picked.text.slice(0, 40)}…` : s.picked.text })}
              </button>
            )}
            <button type="button" className="btn btn-ghost" onClick={rec.cancelPicked}>{t('common.cancel')}</button>
          </div>
        </div>
      )}
      {panel && <TextPanel kind={panel} onDone={() => setPanel(null)} />}
    </>
  );
}

function TextPanel({ kind, onDone }: { kind: 'caption' | 'chapter'; onDone: () => void }) {
  const qt = useQaT();
  const id = useId();
  const [text, setText] = useState('');
  async function submit(e: FormEvent) {
    e.preventDefault();
    const v = text.trim();
    if (!v) return;
    if (kind === 'chapter') rec.chapter(v.slice(0, 500));
    else if (!(await rec.caption(v.slice(0, 500)))) return;
    onDone();
  }
  return (
    <form className="qa-panel qa-inline" onSubmit={(e) => void submit(e)}>
      <label htmlFor={id} className="sr-only">{qt(kind === 'caption' ? 'qa.caption.label' : 'qa.chapter.label')}</label>
      <input id={id} className="input" value={text} onChange={(e) => setText(e.target.value)} maxLength={500} autoFocus autoComplete="off"
        placeholder={qt(kind === 'caption' ? 'qa.caption.placeholder' : 'qa.chapter.label')} data-testid={`qa-${kind}-input`}
        onKeyDown={(e) => { if (e.key === 'Escape') onDone(); }} />
      <button type="submit" className="btn btn-primary" disabled={!text.trim()} data-testid={`qa-${kind}-save`}>{qt('qa.add')}</button>
    </form>
  );
}

function Finished({ s, canPromote, onHide }: { s: rec.RecorderState; canPromote: boolean; onHide: () => void }) {
  const qt = useQaT();
  const id = useId();
  const r = s.recording!;
  const [key, setKey] = useState(r.usecase_key);
  const [name, setName] = useState(r.name);
  const close = () => { rec.close(); onHide(); };
  return (
    <>
      <Head title={r.name} onHide={onHide}><span className="qa-dot done" aria-hidden="true" /></Head>
      <p className="qa-line" data-testid="qa-status" data-status={r.status}>{qt('qa.finished', { count: s.count, key: r.usecase_key })}</p>
      {r.status === 'promoted' && r.promoted && (
        <p className="qa-line qa-ok" role="status" data-testid="qa-promoted">{qt('qa.promoted', { key: r.promoted.key, version: r.promoted.version })}</p>
      )}
      {r.status === 'finalised' && canPromote && (
        <form className="qa-form" onSubmit={(e) => { e.preventDefault(); if (USECASE_KEY.test(key)) void rec.promote({ usecase_key: key, name: name.trim() }); }}>
          <div className="qa-fields">
            <label htmlFor={`${id}-key`}>{qt('qa.promote.key')}</label>
            <input id={`${id}-key`} className="input" value={key} onChange={(e) => setKey(e.target.value.trim())} autoComplete="off" spellCheck={false}
              aria-invalid={!USECASE_KEY.test(key) || undefined} data-testid="qa-promote-key" />
            <label htmlFor={`${id}-name`}>{qt('qa.promote.name')}</label>
            <input id={`${id}-name`} className="input" value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" data-testid="qa-promote-name" />
          </div>
          <div className="qa-actions">
            <button type="submit" className="btn btn-primary" disabled={s.busy || !USECASE_KEY.test(key)} data-testid="qa-promote">{qt('qa.promote')}</button>
            <button type="button" className="btn" onClick={close} data-testid="qa-close">{qt('qa.close')}</button>
          </div>
        </form>
      )}
      {r.status === 'finalised' && !canPromote && <p className="qa-line muted small" data-testid="qa-promote-hint">{qt('qa.promote.qa_only')}</p>}
      {!(r.status === 'finalised' && canPromote) && (
        <div className="qa-actions">
          <button type="button" className="btn" onClick={close} data-testid="qa-close">{qt('qa.close')}</button>
        </div>
      )}
    </>
  );
}
