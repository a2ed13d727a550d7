import { webNames } from '../../../kernel/modules/web-manifest.js';
import type { Registry } from '../../../kernel/registry/registry.js';

/**
 * The names the web client knows without any app's help: fw's own widgets
 * (web/src/widgets/display.tsx and inputs.tsx register them) and view types (web/src/views/). A
 * test holds the client's registrations to these lists, so the server can check views at boot
 * without running client code.
 */
export const BUILTIN_WIDGETS: readonly string[] = ['badge', 'date', 'datetime', 'money', 'filesize', 'image', 'download', 'textarea'];
export const BUILTIN_VIEW_TYPES: readonly string[] = ['list', 'form', 'kanban', 'search', 'graph', 'pivot', 'calendar'];

/** What a view may name: built-ins plus what the active apps' manifests declare (`web`). */
export interface ClientNames {
  widgets: ReadonlySet<string>;
  views: ReadonlySet<string>;
  pages: ReadonlySet<string>;
}

export function clientNamesOf(registry: Pick<Registry, 'apps'>): ClientNames {
  const apps = registry.apps.map((a) => a.manifest.web);
  return {
    widgets: new Set([...BUILTIN_WIDGETS, ...apps.flatMap((w) => webNames(w, 'widgets'))]),
    views: new Set([...BUILTIN_VIEW_TYPES, ...apps.flatMap((w) => webNames(w, 'views'))]),
    pages: new Set(apps.flatMap((w) => webNames(w, 'pages'))),
  };
}

/** The widget's name in `widget="name:argument"`. */
export const widgetName = (widget: string): string => (widget.includes(':') ? widget.slice(0, widget.indexOf(':')) : widget);
