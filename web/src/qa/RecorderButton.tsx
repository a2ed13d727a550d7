import { lazy, Suspense, useEffect, useState, useSyncExternalStore } from 'react';
import { Button } from 'react-aria-components';
import { useBootstrap, useMe } from '../app/meta.ts';
import { useT } from '../i18n/index.tsx';
import { activeRecordingId, attachFromUrl, isLive, subscribeStored } from './session.ts';

const load = () => import('./RecorderBar.tsx');
const RecorderBar = lazy(load);

/**
 * The header's "Record" toggle. It shows only when the server runs QA automation (the bootstrap
 * then lists `qa.recording`) and the user's role may record (admin, qa). The recorder bar (its
 * own chunk) opens by itself when this tab is attached to a recording: one in progress before a
 * reload, or `?qa_recording=<uuid>` in the URL (what `fw e2e record` prints).
 */
export function RecorderButton() {
  const t = useT();
  const boot = useBootstrap();
  const me = useMe();
  // what the user holds, groups included: an admin given qa.tester records and promotes too
  const holds = boot.user?.holds ?? [me.role];
  const allowed = boot.models.some((m) => m.key === 'qa.recording') && (holds.includes('admin') || holds.includes('qa'));
  const [open, setOpen] = useState(() => allowed && !!activeRecordingId());
  const live = useSyncExternalStore(subscribeStored, isLive);
  useEffect(() => {
    // after a sign-in the URL with ?qa_recording= is reached without a page load
    if (allowed && (attachFromUrl() || activeRecordingId())) setOpen(true);
  }, [allowed]);
  if (!allowed) return null;
  const preload = () => void load().catch(() => {});
  return (
    <>
      <Button className="btn btn-ghost" data-qa-recorder="" data-testid="qa-record-toggle" data-live={live || undefined} aria-pressed={open}
        onHoverStart={preload} onFocus={preload} onPress={() => setOpen(!open)}>
        <span aria-hidden="true" style={{ color: live ? 'var(--danger)' : 'var(--muted)' }}>●</span>{t('qa.record')}
      </Button>
      {open && (
        <Suspense fallback={null}>
          <RecorderBar onHide={() => setOpen(false)} canPromote={holds.includes('qa')} />
        </Suspense>
      )}
    </>
  );
}
