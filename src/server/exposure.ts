/**
 * Who may read the descriptions of the API: GraphQL introspection, the GraphiQL page and the
 * OpenAPI document. They help a developer and an attacker alike (every model, field, argument and
 * route, with its access level), so with `NODE_ENV=production` they default to signed-in callers
 * (introspection, OpenAPI) or to off (GraphiQL, a page a browser opens without a token); in
 * development they stay open. Each has its own setting to choose otherwise.
 */
import type { Principal } from '../kernel/env.js';
import { BootError } from '../kernel/errors.js';
import type { Settings } from '../kernel/settings.js';

/** `public`: anyone; `authenticated`: a caller with a valid bearer token; `off`: nobody. */
export type Exposure = 'public' | 'authenticated' | 'off';

const EXPOSURES: readonly string[] = ['auto', 'public', 'authenticated', 'off'];

const isProduction = (settings: Settings): boolean => settings.NODE_ENV === 'production';

/**
 * The exposure a setting asks for: `auto` (the default) is `authenticated` with
 * `NODE_ENV=production` and `public` otherwise. `legacy` maps the values an older form of the
 * setting took (`GRAPHQL_INTROSPECTION=true|false`). Anything else stops the boot.
 */
export function exposureOf(settings: Settings, name: string, raw: string, legacy: Record<string, Exposure> = {}): Exposure {
  const value = raw.trim().toLowerCase();
  if (Object.hasOwn(legacy, value)) return legacy[value]!;
  if (!EXPOSURES.includes(value)) throw new BootError(`setting ${name}="${raw}" must be one of ${EXPOSURES.join(', ')}`);
  if (value === 'auto') return isProduction(settings) ? 'authenticated' : 'public';
  return value as Exposure;
}

/** `auto` (the default) is off with `NODE_ENV=production`, on otherwise. */
export function switchOf(settings: Settings, name: string, raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (value === 'on') return true;
  if (value === 'off') return false;
  if (value === 'auto') return !isProduction(settings);
  throw new BootError(`setting ${name}="${raw}" must be one of auto, on, off`);
}

/** What an exposure says of a caller: allowed, or refused because anonymous, or refused for all. */
export function exposureAllows(exposure: Exposure, principal: Principal | null | undefined): 'allowed' | 'anonymous' | 'off' {
  if (exposure === 'off') return 'off';
  if (exposure === 'public' || (principal && principal.kind !== 'anonymous')) return 'allowed';
  return 'anonymous';
}
