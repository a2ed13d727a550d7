import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useRouterState } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { bootstrapKey, meKey, useModels } from '../app/meta.ts';
import { toast } from '../app/toast.tsx';
import { onTokens, readTokens } from '../auth/session.ts';
import { useT } from '../i18n/index.tsx';
import { liveIsUp, onLiveStatus, onReload, onResync, reconnectLive, startLive, watchModel } from './hub.ts';

/**
 * Mounted once in the shell: joins the browser's live connection, refreshes what is shown of a
 * model when its records change elsewhere, and follows `web.client.reload` (an organization's
 * slug changed → this tab moves to the new slug; a dirty form asks first through its guard).
 */
export function LiveBridge({ slug, orgId }: { slug: string; orgId: string | null }) {
  const t = useT();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const models = useModels();
  const pathname = useRouterState({ select: (s) => s.location.pathname });

  useEffect(() => startLive(slug), [slug]);
  useEffect(() => onResync(() => void qc.invalidateQueries({ queryKey: ['records'] })), [qc]);

  // a model is watched once some view has queried it (['records', <model>, …]); a change
  // refetches what is on screen. Models nobody looks at cost the server no subscription
  useEffect(() => {
    const offs = new Map<string, () => void>();
    const watch = (key: readonly unknown[]) => {
      const m = key[0] === 'records' ? models.get(String(key[1])) : undefined;
      if (!m || offs.has(m.key)) return;
      offs.set(m.key, watchModel(m, () => void qc.invalidateQueries({ queryKey: ['records', m.key] })));
    };
    const cache = qc.getQueryCache();
    for (const q of cache.getAll()) watch(q.queryKey);
    const unsubscribe = cache.subscribe((e) => { if (e.type === 'added') watch(e.query.queryKey); });
    return () => { unsubscribe(); offs.forEach((off) => off()); };
  }, [models, qc]);

  useEffect(() => onReload((r) => {
    const p = r.payload;
    // fw dev replaced the server after a change: the page loads again with the new views and code
    if (p?.reason === 'fw_dev_restart') return void window.location.reload();
    if (p?.reason !== 'org_slug_changed' || !p.new_slug) return;
    void qc.invalidateQueries({ queryKey: meKey });
    void qc.invalidateQueries({ queryKey: bootstrapKey });
    // only the tabs showing the organization whose slug changed move
    const parts = pathname.split('/');
    if (p.org_id !== orgId || parts[1] !== slug || slug === p.new_slug) return;
    parts[1] = p.new_slug;
    toast(t('live.reload_slug', { slug: p.new_slug }));
    void navigate({ to: parts.join('/') + location.search, replace: true } as never);
  }), [pathname, slug, orgId, qc, navigate, t]);

  return null;
}

/** How long the connection must stay down before the banner shows (a server restart's blip does not flash it). */
const BANNER_DELAY_MS = 1500;

/**
 * A banner while the live connection is down: what is on screen may be out of date, changes
 * made elsewhere do not arrive, and the client is reconnecting (or reconnects now on request).
 * When the connection is back, every shown query is fetched again (the resync) and the banner goes.
 *
 * A tab whose session ended (signed out in another tab) but that stayed open (a form with unsaved
 * changes answers the move to /login with the browser's "leave page?") is not offline: the banner
 * says the session ended and offers to sign in in a new tab. That login reaches this tab through
 * the session channel; the banner goes, the live connection is made again, and Save works.
 */
export function LiveStatusBanner() {
  const t = useT();
  const [down, setDown] = useState(false);
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    let over = false;
    return onTokens((tokens) => {
      // signed in again after the end (not a routine refresh): the live connection is made anew
      if (tokens && over) reconnectLive();
      over = !tokens;
      setEnded(over);
    });
  }, []);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const follow = (up: boolean) => {
      clearTimeout(timer);
      if (up) setDown(false);
      else timer = setTimeout(() => setDown(true), BANNER_DELAY_MS);
    };
    if (!liveIsUp()) follow(false);
    const off = onLiveStatus(follow);
    return () => { off(); clearTimeout(timer); };
  }, []);
  if (ended && !readTokens()) {
    return (
      <div className="banner banner-offline" role="alert" data-testid="session-ended-banner">
        <span>{t('live.session_ended')}</span>
        <a className="btn btn-ghost link-button" href="/login" target="_blank" rel="noopener" data-testid="session-sign-in">{t('live.sign_in')}</a>
      </div>
    );
  }
  if (!down) return null;
  return (
    <div className="banner banner-offline" role="status" data-testid="offline-banner">
      <span>{t('live.down')}</span>
      <Button className="btn btn-ghost link-button" onPress={() => reconnectLive()} data-testid="offline-reconnect">{t('live.reconnect')}</Button>
    </div>
  );
}
