import type { HookContext, HookDecl } from '../../kernel/app.js';
import { FwError, ValidationError } from '../../kernel/errors.js';

/**
 * A use case stays on the platform: the replay browser types the sandbox's credentials and
 * `QA_SECRET_*` values into whatever page it is on, so neither its start page nor a navigate
 * step may lead to another site, a `file:` URL or a `javascript:` URL.
 */

/** Where `target` (a path, or an absolute URL) leads from `base`, or null when that is not base's origin. */
export function onOrigin(target: string, base: string): URL | null {
  let url: URL;
  try {
    url = new URL(target, base);
  } catch {
    return null;
  }
  // `file:`, `javascript:` and `data:` URLs have an opaque origin ("null"), never base's
  return url.origin === new URL(base).origin ? url : null;
}

/** Stands for "the app" when a use case is written: the origin it will be replayed on is not known yet. */
const ANY_APP = 'http://app.invalid';

export const START_PATH_CODE = 'QA_START_PATH_NOT_SAME_ORIGIN';

/**
 * Checked where a use case (or the recording it comes from) is written: `start_path` must be a
 * path on the app (`/default/…`, or relative). An absolute URL is refused even when it names the
 * server's own origin: a use case is replayed against the base URL of the replay (a sandbox, CI),
 * so only a path means the same page everywhere.
 */
export function checkStartPath(value: unknown): void {
  // resolved against a stand-in origin, only a path (or a relative one) stays on it
  if (typeof value !== 'string' || onOrigin(value, ANY_APP)) return;
  const message = `start_path must be a path on the app, such as /default/…: "${value}" leads to another origin`;
  throw new ValidationError(message, { errors: [{ field: 'start_path', code: START_PATH_CODE, message }] }, START_PATH_CODE);
}

/**
 * Checked again by replay and polish right before the browser opens the start page, on the
 * path as interpolated with the run's variables: the URL to open on `base`, or a
 * QA_START_PATH_NOT_SAME_ORIGIN error (the use case ends as an error, nothing is opened).
 */
export function startUrl(start: string, base: string): URL {
  const url = onOrigin(start, base);
  if (!url) throw new FwError(START_PATH_CODE, 422, `the start page "${start}" is not on ${new URL(base).origin}: a replay stays on the platform`);
  return url;
}

const checkPayload = (ctx: HookContext): void => {
  if ('start_path' in ctx.payload) checkStartPath(ctx.payload.start_path);
};

/** Every write of a use case or a recording, the generic CRUD routes included. */
export const startPathHooks: HookDecl[] = ['qa.usecase', 'qa.recording'].flatMap((model) => [
  { point: `pre.${model}.create`, handler: checkPayload },
  { point: `pre.${model}.update`, handler: checkPayload },
]);
