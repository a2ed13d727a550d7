import { useNavigate } from '@tanstack/react-router';
import { Button } from 'react-aria-components';
import { useT } from '../../i18n/index.tsx';

/** "1–80 of 1,000" with previous/next; the page lives in the URL (`?page=`, absent for the first). */
export function Pager({ page, limit, total }: { page: number; limit: number; total: number }) {
  const t = useT();
  const navigate = useNavigate();
  const go = (p: number) => navigate({ to: '.', search: (s: Record<string, unknown>) => ({ ...s, page: p > 1 ? p : undefined }) } as never);
  const from = Math.min((page - 1) * limit + 1, total);
  const to = Math.min(page * limit, total);
  return (
    <div className="pager" data-testid="pager">
      <span aria-live="polite" data-testid="pager-range">{t('list.pager', { from, to, total })}</span>
      <Button className="btn btn-ghost" aria-label={t('list.pager.prev')} isDisabled={page <= 1} onPress={() => go(page - 1)} data-testid="pager-prev">‹</Button>
      <Button className="btn btn-ghost" aria-label={t('list.pager.next')} isDisabled={to >= total} onPress={() => go(page + 1)} data-testid="pager-next">›</Button>
    </div>
  );
}
