import type { DisplayWidget } from './display.tsx';
import type { InputWidget } from './inputs.tsx';

/**
 * The widget registry: what `widget="<name>"` on a view's field draws. fw's own widgets
 * (display.tsx, inputs.tsx) and the apps' (their web/ code, through @fw/web) register here the
 * same way. A widget may have a display form (list cells, kanban cards, read-only fields), an
 * input form (an editable form field), or both; a field whose widget has no form for the use
 * falls back to its type's.
 */
export interface WidgetDef { display?: DisplayWidget; input?: InputWidget }

export const widgetRegistry: { display: Record<string, DisplayWidget>; input: Record<string, InputWidget> } = { display: {}, input: {} };

/** A name registered twice for the same use: two apps (or an app and fw) would fight over it. */
export class DuplicateNameError extends Error {
  constructor(readonly kind: string, readonly name: string) {
    super(`${kind} "${name}" is already registered`);
    this.name = 'DuplicateNameError';
  }
}

export function registerWidget(name: string, def: WidgetDef): void {
  if (!def.display && !def.input) throw new Error(`widget "${name}" has neither a display nor an input form`);
  if (def.display && name in widgetRegistry.display) throw new DuplicateNameError('display widget', name);
  if (def.input && name in widgetRegistry.input) throw new DuplicateNameError('input widget', name);
  if (def.display) widgetRegistry.display[name] = def.display;
  if (def.input) widgetRegistry.input[name] = def.input;
}

/** Every registered widget name (either use). */
export const widgetNames = (): string[] => [...new Set([...Object.keys(widgetRegistry.display), ...Object.keys(widgetRegistry.input)])].sort();
