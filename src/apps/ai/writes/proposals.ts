import crypto from 'node:crypto';
import { checkAccess } from '../../../kernel/access.js';
import { delegateOf } from '../../../kernel/data/delegate.js';
import type { Env } from '../../../kernel/env.js';
import { AuthenticationRequired } from '../../../kernel/errors.js';
import { turnContext } from '../context.js';
import { WriteNotAllowed } from '../errors.js';
import { aiSettings } from '../settings.js';
import type { ToolBinding } from '../tools/carriers.js';
import { canonicalJson, sha256 } from './canonical.js';

export interface Proposal {
  status: 'confirmation_required';
  proposal_id: string;
  /** 256-bit, returned once; the server keeps only its SHA-256. */
  token: string;
  expires_at: string;
  tool: string;
  summary: string;
}

/** Writes of a proposer tool are refused unless the tool is on AI_WRITE_TOOLS_ALLOWLIST (empty = none). */
export function checkAllowed(env: Env, tool: string): void {
  if (!aiSettings(env.settings).AI_WRITE_TOOLS_ALLOWLIST.includes(tool)) {
    throw new WriteNotAllowed(`the AI tool ${tool} may not write: it is not on AI_WRITE_TOOLS_ALLOWLIST`, { tool });
  }
}

/**
 * A proposer tool never mutates: it records what it would do and hands back a confirmation token.
 * The write runs only when the person posts the token to …/confirm (src/apps/ai/writes/confirm.ts).
 */
export async function propose(env: Env, b: ToolBinding, args: Record<string, unknown>): Promise<Proposal> {
  if (env.principal.kind !== 'user' || !env.principal.user_id) throw new AuthenticationRequired('AI writes are proposed to and confirmed by a signed-in user');
  checkAllowed(env, b.tool.name);
  // fail early on what the caller could never confirm; permissions are checked again at confirm
  if (b.tool.model_argument && typeof args.model === 'string') checkAccess(env.registry.model(args.model), env.principal, b.tool.model_argument.op);
  const token = crypto.randomBytes(32).toString('base64url');
  const ttl = aiSettings(env.settings).AI_WRITE_CONFIRM_TOKEN_TTL_SECONDS;
  const expires = new Date(Date.now() + ttl * 1000);
  const ctx = turnContext.getStore();
  const summary = summarise(b.tool.name, args);
  const id = crypto.randomUUID();
  await delegateOf(env.db, env.registry.model('ai.write.proposal')).create({
    data: {
      record_uuid: id, token_hash: sha256(token),
      conversation_id: ctx?.conversation_id ?? null, user_id: env.principal.user_id, tool: b.tool.name, command: b.command,
      arguments: args, arguments_hash: sha256(canonicalJson(args)), prompt_version_id: ctx?.prompt_version_id ?? null,
      summary, status: 'pending', expires_at: expires,
    },
  });
  return { status: 'confirmation_required', proposal_id: id, token, expires_at: expires.toISOString(), tool: b.tool.name, summary };
}

function summarise(tool: string, args: Record<string, unknown>): string {
  const text = `${tool}: ${canonicalJson(args)}`;
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}
