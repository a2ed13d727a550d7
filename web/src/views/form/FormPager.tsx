import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Button } from 'react-aria-components';
import { request } from '../../api/client.ts';
import { useT } from '../../i18n/index.tsx';
import type { Where } from '../../model/domain.ts';
import { countDocument, orderBy, rowsDocument, type ModelInfo, type Row } from '../../model/records.ts';
import { BLOCK, recordsKey } from '../../model/useRecords.ts';

/**
 * The most records a form steps through: the ids of the list it came from are read in blocks of
 * the API's largest page, so a list longer than this has no pager (it would cost a read of every id).
 */
export const PAGER_MAX = 20 * BLOCK;

/** The ids of the records `where` selects, in `order` (null when there are more than PAGER_MAX). */
async function listIds(m: ModelInfo, where: Where, order: string | undefined): Promise<string[] | null> {
  const total = (await request<{ total: number }, { where: Where }>(countDocument(m), { where })).total;
  if (total > PAGER_MAX) return null;
  const ids: string[] = [];
  for (let offset = 0; offset < total; offset += BLOCK) {
    const r = await request<{ rows: Row[] }, Record<string, unknown>>(rowsDocument(m, 'id'), { where, orderBy: orderBy(order), limit: BLOCK, offset });
    ids.push(...r.rows.map((x) => x.id));
  }
  return ids;
}

/** Alt+P / Alt+N, as in Odoo: Alt+← and Alt+→ are the browser's Back and Forward. */
const isKey = (e: KeyboardEvent, code: 'KeyP' | 'KeyN') => e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && e.code === code;

/**
 * "3 / 17" with previous and next: the form steps through the records of the list it was opened
 * from (its search and order travel in the URL), wrapping at both ends as Odoo's pager does.
 */
export function FormPager({ model, recordId, where, order, onGo }: {
  model: ModelInfo; recordId: string; where: Where; order: string | undefined; onGo: (id: string) => void;
}) {
  const t = useT();
  const ids = useQuery({ queryKey: recordsKey(model.key, 'ids', where, order), queryFn: () => listIds(model, where, order) });
  const list = ids.data ?? null;
  const index = list ? list.findIndex((id) => id.toLowerCase() === recordId.toLowerCase()) : -1;
  const step = (by: number) => { if (list && index >= 0 && list.length > 1) onGo(list[(index + by + list.length) % list.length]); };
  const stepRef = useRef(step);
  stepRef.current = step;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isKey(e, 'KeyP')) { e.preventDefault(); stepRef.current(-1); }
      if (isKey(e, 'KeyN')) { e.preventDefault(); stepRef.current(1); }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  // a record outside the list (opened from elsewhere, or archived meanwhile) has no place in it
  if (!list || index < 0 || list.length < 2) return null;
  return (
    <nav className="form-pager" aria-label={t('form.pager')} data-testid="form-pager">
      <span className="muted" data-testid="form-pager-value">{t('form.pager.value', { index: index + 1, total: list.length })}</span>
      <Button className="btn btn-ghost" onPress={() => step(-1)} aria-label={t('form.pager.previous')} aria-keyshortcuts="Alt+P" data-testid="form-previous">‹</Button>
      <Button className="btn btn-ghost" onPress={() => step(1)} aria-label={t('form.pager.next')} aria-keyshortcuts="Alt+N" data-testid="form-next">›</Button>
    </nav>
  );
}
