import { delegateOf } from '../../kernel/data/delegate.js';
import type { Env } from '../../kernel/env.js';
import { NotFound } from '../../kernel/errors.js';

/** The template a conversation without a skill pack uses (seeded by the ai app). */
export const DEFAULT_TEMPLATE = 'assistant';

export interface ResolvedPrompt { template_id: string; version_id: string; version: number; body: string }

/**
 * Prompt resolution as the spec states it: among the template's versions, the highest `version`
 * flagged `is_default`. Every tenant has its own database, so a tenant overrides a shipped prompt
 * by adding a higher default version row to the same template.
 */
export async function resolvePrompt(env: Env, templateId: string): Promise<ResolvedPrompt> {
  const row = await delegateOf(env.db, env.registry.model('ai.prompt.version')).findFirst({
    where: { template_id: templateId, is_default: true }, orderBy: { version: 'desc' },
  });
  if (!row) throw new NotFound('the prompt template has no default version', { template_id: templateId }, 'AI_PROMPT_NOT_FOUND');
  return { template_id: templateId, version_id: String(row.record_uuid), version: Number(row.version), body: String(row.body) };
}

export async function templateByKey(env: Env, key: string): Promise<string> {
  const row = await delegateOf(env.db, env.registry.model('ai.prompt.template')).findUnique({ where: { key }, select: { record_uuid: true } });
  if (!row) throw new NotFound(`no prompt template "${key}"`, { key }, 'AI_PROMPT_NOT_FOUND');
  return String(row.record_uuid);
}
