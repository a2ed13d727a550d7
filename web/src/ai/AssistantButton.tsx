import { lazy, Suspense, useState } from 'react';
import { Button } from 'react-aria-components';
import { useBootstrap } from '../app/meta.ts';
import { useT } from '../i18n/index.tsx';

const load = () => import('./AssistantPanel.tsx');
const AssistantPanel = lazy(load);

/**
 * The header's "Assistant" button. It shows only when the server runs the AI layer (the
 * bootstrap then lists the `ai.conversation` model); the drawer's code (its own chunk) is fetched
 * when the pointer or the focus reaches the button, so the initial bundle carries only this.
 */
export function AssistantButton() {
  const t = useT();
  const enabled = useBootstrap().models.some((m) => m.key === 'ai.conversation');
  const [open, setOpen] = useState(false);
  const [mounted, setMounted] = useState(false);
  if (!enabled) return null;
  const preload = () => void load().catch(() => {});
  return (
    <>
      <Button className="btn btn-ghost" aria-haspopup="dialog" aria-expanded={open} data-testid="assistant-button"
        onHoverStart={preload} onFocus={preload} onPress={() => { setMounted(true); setOpen(true); }}>
        <span aria-hidden="true">✦</span>{t('ai.assistant')}
      </Button>
      {mounted && (
        <Suspense fallback={null}>
          <AssistantPanel isOpen={open} onOpenChange={setOpen} />
        </Suspense>
      )}
    </>
  );
}
