import { useEffect, useState } from 'react';
import { fetchWithToken } from '../api/files.ts';
import { useT } from '../i18n/index.tsx';
import type { DisplayWidget } from './display.tsx';

/**
 * `widget="image:<path template>"`: an image the server serves behind the bearer token (a
 * replayed step's screenshot: `image:/api/qa/run-steps/{id}/screenshot`). An `<img src>` cannot
 * send the token, so the image is fetched with it and shown from a blob URL. `{id}` is the
 * record's id and `{value}` the field's value (both URL-encoded); an empty value means there is
 * no image. Only a path on this server is fetched: the token never leaves for another origin.
 * In a list cell the image is a thumbnail (the row opens the record); in a form it is shown
 * whole, with a link that opens it at full size.
 */
export function imageUrl(template: string | undefined, record: { id?: unknown } | undefined, value: unknown): string | null {
  if (!template || value === null || value === undefined || value === '') return null;
  if (!template.startsWith('/') || template.startsWith('//')) return null;
  if (template.includes('{id}') && (record?.id === undefined || record.id === null || record.id === '')) return null;
  return template
    .replaceAll('{id}', encodeURIComponent(String(record?.id ?? '')))
    .replaceAll('{value}', encodeURIComponent(String(value)));
}

type Loaded = { status: 'loaded'; blob: Blob } | { status: 'missing' } | { status: 'failed' };

/** Fetched images by URL, kept for the session (a list scrolled back does not fetch them again). */
const cache = new Map<string, Promise<Loaded>>();
const CACHE_MAX = 200;

function load(url: string): Promise<Loaded> {
  let p = cache.get(url);
  if (!p) {
    p = (async (): Promise<Loaded> => {
      const res = await fetchWithToken(url);
      if (res.status === 404) return { status: 'missing' };
      if (!res.ok || !(res.headers.get('content-type') ?? '').startsWith('image/')) return { status: 'failed' };
      return { status: 'loaded', blob: await res.blob() };
    })().catch((): Loaded => ({ status: 'failed' }));
    cache.set(url, p);
    // a failure is not remembered: the next render tries again
    void p.then((r) => { if (r.status === 'failed') cache.delete(url); });
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value as string);
  }
  return p;
}

function AuthImage({ url, label }: { url: string; label: string }) {
  const t = useT();
  const [state, setState] = useState<{ status: 'loading' } | { status: 'missing' | 'failed' } | { status: 'loaded'; src: string }>({ status: 'loading' });
  useEffect(() => {
    let live = true;
    let src: string | null = null;
    setState({ status: 'loading' });
    void load(url).then((r) => {
      if (!live) return;
      if (r.status === 'loaded') {
        src = URL.createObjectURL(r.blob);
        setState({ status: 'loaded', src });
      } else {
        setState({ status: r.status });
      }
    });
    return () => {
      live = false;
      if (src) URL.revokeObjectURL(src);
    };
  }, [url]);
  if (state.status === 'loading') {
    return <span className="img-widget img-loading" role="img" aria-label={t('image.loading', { label })} aria-busy="true" data-testid="image-widget" data-state="loading" />;
  }
  if (state.status !== 'loaded') {
    return <span className="muted" data-testid="image-widget" data-state={state.status}>{t(state.status === 'missing' ? 'image.missing' : 'image.failed')}</span>;
  }
  return (
    <span className="img-widget" data-testid="image-widget" data-state="loaded">
      <img src={state.src} alt={label} className="img-widget-img" />
      <a className="img-widget-open small" href={state.src} target="_blank" rel="noopener" data-testid="image-open">{t('image.open')}</a>
    </span>
  );
}

export const image: DisplayWidget = ({ field, value, record, arg }) => {
  const url = imageUrl(arg, record, value);
  if (!url) return <span className="muted">—</span>;
  return <AuthImage key={url} url={url} label={field.label} />;
};
