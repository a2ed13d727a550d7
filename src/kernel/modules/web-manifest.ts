import type { AppManifest, WebManifest } from '../app.js';
import { BootError } from '../errors.js';

const KINDS = ['widgets', 'views', 'pages'] as const;
export type WebKind = (typeof KINDS)[number];

/** `<prefix>.<name>` in lower-case identifiers; a page name has exactly those two parts (view ids have three or more). */
const NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/**
 * The prefix an app's client names start with: its domain for a domain app (`crm.sales` →
 * `crm`), else its own name. Names are global to the client, so the prefix keeps two apps apart.
 */
export const webPrefixOf = (app: string): string => (app.includes('.') ? app.slice(0, app.indexOf('.')) : app);

/**
 * Checks a manifest's optional `web` key: only `widgets`, `views` and `pages`, each a list of
 * names carrying the app's prefix, no name twice. Throws a BootError naming the manifest file.
 */
export function checkWebManifest(m: AppManifest, where: string): void {
  if (m.web === undefined) return;
  const web = m.web as unknown;
  if (typeof web !== 'object' || web === null || Array.isArray(web)) throw new BootError(`${where}: web must be an object of widgets, views, pages`);
  const seen = new Set<string>();
  for (const [kind, names] of Object.entries(web)) {
    if (!(KINDS as readonly string[]).includes(kind)) throw new BootError(`${where}: unknown web key "${kind}" (keys: ${KINDS.join(', ')})`);
    if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) throw new BootError(`${where}: web.${kind} must be a list of names`);
    for (const name of names as string[]) {
      const prefix = webPrefixOf(m.name);
      if (!NAME.test(name)) throw new BootError(`${where}: web.${kind} name "${name}" must read <prefix>.<name> in lower-case letters, digits and _`);
      if (!name.startsWith(`${prefix}.`)) throw new BootError(`${where}: web.${kind} name "${name}" must start with the app's prefix "${prefix}."`);
      if (kind === 'pages' && name.split('.').length !== 2) throw new BootError(`${where}: web.pages name "${name}" must have two parts (${prefix}.<name>)`);
      if (seen.has(name)) throw new BootError(`${where}: web name "${name}" is declared twice`);
      seen.add(name);
    }
  }
}

/** The names of one kind an app declares (none when it has no web key). */
export const webNames = (web: WebManifest | undefined, kind: WebKind): readonly string[] => web?.[kind] ?? [];
