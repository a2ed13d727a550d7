import type { HookDecl } from '../app.js';
import { BootError } from '../errors.js';
import { didYouMean } from './closest.js';
import type { LoadedApp, ResolvedCommand } from './registry.js';

const TRACKED_POINT = /^post\.(.+)\.[a-z_]+$/;

/**
 * Every event name something may emit: the events apps declare (`AppModule.events`), the `emit`
 * effects commands declare, and `<model>.field_changed` for each model a post hook tracks fields
 * of (the kernel emits it). The kernel emits no other event of its own.
 */
export function knownEvents(apps: readonly LoadedApp[], commands: ReadonlyMap<string, ResolvedCommand>): Set<string> {
  const known = new Set<string>();
  for (const app of apps) {
    for (const e of app.module.events ?? []) known.add(e);
    for (const h of app.module.hooks ?? []) {
      const tracked = trackedModel(h);
      if (tracked) known.add(`${tracked}.field_changed`);
    }
  }
  for (const c of commands.values()) for (const e of c.effects ?? []) if ('emit' in e) known.add(e.emit);
  return known;
}

function trackedModel(h: HookDecl): string | null {
  const m = h.track_fields?.length ? TRACKED_POINT.exec(h.point) : null;
  return m ? m[1] : null;
}

/**
 * An event handler listening to a name nothing emits would wait forever without a word (a typo
 * such as `helpdesk.ticket.feild_changed`): the boot stops, naming the app's file and the handler,
 * with the nearest known event.
 */
export function checkEventHandlers(apps: readonly LoadedApp[], known: ReadonlySet<string>): void {
  for (const app of apps) {
    for (const h of app.module.eventHandlers ?? []) {
      if (known.has(h.event)) continue;
      throw new BootError(`src/apps/${app.name}/index.ts: event handler ${h.id} listens to "${h.event}", which no loaded app emits `
        + `(an app lists the events it emits in \`events\`; a command in its effects; <model>.field_changed needs a post hook with track_fields)`
        + didYouMean(h.event, known), { app: app.name, handler: h.id, event: h.event });
    }
  }
}
