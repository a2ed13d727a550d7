import type { Env } from '../../kernel/env.js';
import { SOURCE_LANGUAGE } from './views/translations.js';

/**
 * The language the caller reads (docs/views.md#translations): the user's `lang` preference (the
 * one `me` answers); English for a caller that is no user (anonymous, system). A principal from a
 * session carries it (cached with the session, which a preference change forgets, so the next
 * request reads the new one); any other user principal (a test's, a command line's) has it read
 * as the system: a role that may not read res.user still has a language.
 */
export async function callerLanguage(env: Env): Promise<string> {
  const { principal } = env;
  const id = principal.user_id;
  if (!id) return SOURCE_LANGUAGE;
  if (principal.lang !== undefined) return principal.lang ?? SOURCE_LANGUAGE;
  const u = await env.sudo().dispatch<Record<string, unknown> | null>('fw.read_one', { model: 'res.user', id, fields: ['lang'] });
  return typeof u?.lang === 'string' ? u.lang : SOURCE_LANGUAGE;
}
