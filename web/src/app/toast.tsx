import { useSyncExternalStore } from 'react';

/** Short notices in one polite live region (screen readers announce them). */
export interface Toast { id: number; text: string; tone: 'info' | 'error'; action?: ToastAction }
/** A button on the notice (Undo): pressing it runs `run` and dismisses the notice. */
export interface ToastAction { label: string; run: () => void; testId?: string }
let toasts: Toast[] = [];
let seq = 0;
const subs = new Set<() => void>();
const emit = () => subs.forEach((s) => s());

/** Shows a notice; its id lets the caller take it back (`dismiss`) once it no longer holds. */
export function toast(text: string, tone: Toast['tone'] = 'info', action?: ToastAction): number {
  const id = ++seq;
  toasts = [...toasts, { id, text, tone, action }];
  emit();
  // a notice with an action stays long enough to reach it
  setTimeout(() => dismiss(id), tone === 'error' || action ? 10_000 : 4000);
  return id;
}
export function dismiss(id: number) {
  if (!toasts.some((x) => x.id === id)) return;
  toasts = toasts.filter((x) => x.id !== id);
  emit();
}

export function Toaster() {
  const list = useSyncExternalStore((cb) => { subs.add(cb); return () => subs.delete(cb); }, () => toasts);
  return (
    <div className="toaster" role="status" aria-live="polite" data-testid="toaster">
      {list.map((x) => (
        <div key={x.id} className={`toast toast-${x.tone}`} role={x.tone === 'error' ? 'alert' : undefined} data-testid={`toast-${x.tone}`}>
          <span>{x.text}</span>
          {x.action && (
            <button type="button" className="btn btn-ghost toast-action" data-testid={x.action.testId}
              onClick={() => { dismiss(x.id); x.action!.run(); }}>{x.action.label}</button>
          )}
          <button type="button" className="btn-icon" aria-label="Dismiss" onClick={() => dismiss(x.id)}>×</button>
        </div>
      ))}
    </div>
  );
}
