import type { Env } from '../../kernel/env.js';
import { SOURCE_LANGUAGE } from './views/translations.js';

/**
 * The language the caller reads (docs/views.md#translations): the user's `lang` preference (the
 * one `me` answers); English for a caller that is no user (anonymous, system). Read as the system:
 * a role that may not read res.user still has a language.
 */
export async function callerLanguage(env: Env): Promise<string> {
  const id = env.principal.user_id;
  if (!id) return SOURCE_LANGUAGE;
  const u = await env.sudo().dispatch<Record<string, unknown> | null>('fw.read_one', { model: 'res.user', id, fields: ['lang'] });
  return typeof u?.lang === 'string' ? u.lang : SOURCE_LANGUAGE;
}
