import { useState } from 'react';
import { downloadFile } from '../api/files.ts';
import { errorMessage } from '../app/errors.ts';
import { toast } from '../app/toast.tsx';
import { useT } from '../i18n/index.tsx';
import type { DisplayWidget } from './display.tsx';
import { imageUrl } from './image.tsx';

/**
 * `widget="download:<path template>"`: a file the server serves behind the bearer token (a
 * replay's Playwright trace: `download:/api/qa/runs/{id}/trace`). A plain link cannot send the
 * token, so the button fetches the file with it and hands it to the browser. The template reads
 * as `image`'s (`{id}`, `{value}`, a path on this server only); an empty value means no file.
 */
function DownloadButton({ url, name }: { url: string; name: string }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  return (
    <span className="download-widget">
      <button type="button" className="btn btn-small" disabled={busy} data-testid="download-widget" aria-label={t('download.button', { name })}
        onClick={() => {
          setBusy(true);
          void downloadFile(url, name).catch((err: unknown) => toast(errorMessage(t, err), 'error')).finally(() => setBusy(false));
        }}>
        {t('download.short')}
      </button>
      {' '}<span className="muted small mono" data-testid="download-name">{name}</span>
    </span>
  );
}

export const download: DisplayWidget = ({ value, record, arg }) => {
  const url = imageUrl(arg, record, value);
  if (!url) return <span className="muted">—</span>;
  const name = String(value).split(/[\\/]/).pop() || 'download';
  return <DownloadButton url={url} name={name} />;
};
