import crypto from 'node:crypto';
import { checkAccess } from '../../../kernel/access.js';
import { delegateOf } from '../../../kernel/data/delegate.js';
import type { Env } from '../../../kernel/env.js';
import { invalidReference } from '../../../kernel/commands/crud.js';
import { AuthenticationRequired, FwError } from '../../../kernel/errors.js';
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
  /** `create` or `update` of a record (`model`, `values`, and `id` for an update); `other` for any other proposer. */
  operation: 'create' | 'update' | 'other';
  model: string | null;
  record_id: string | null;
  /** The updated record's name (its model's record_name) as the caller reads it; null for a create or a record they may not read. */
  record_name: string | null;
  /** Every field the write sets (or, for another proposer, every argument), in field order, never cut. */
  changes: ProposedChange[];
  /** The same as text: the tool, the target and one line per change. Never cut. */
  summary: string;
}

/**
 * One field the write sets: its value now (updates, when the caller may read it) and after.
 * `requested` (turns only) is false when the person's messages name neither the field nor the
 * value: a change the model may have taken from record text, shown as such to the person.
 */
export interface ProposedChange { field: string; before?: unknown; after: unknown; requested?: boolean }

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
  const target = await targetOf(env, args, ctx?.asked);
  const summary = summarise(b.tool.name, target);
  const id = crypto.randomUUID();
  await delegateOf(env.db, env.registry.model('ai.write.proposal')).create({
    data: {
      record_uuid: id, token_hash: sha256(token),
      conversation_id: ctx?.conversation_id ?? null, user_id: env.principal.user_id, tool: b.tool.name, command: b.command,
      arguments: args, arguments_hash: sha256(canonicalJson(args)), prompt_version_id: ctx?.prompt_version_id ?? null,
      summary, status: 'pending', expires_at: expires,
    },
  });
  return { status: 'confirmation_required', proposal_id: id, token, expires_at: expires.toISOString(), tool: b.tool.name, ...target, summary };
}

type Target = Pick<Proposal, 'operation' | 'model' | 'record_id' | 'record_name' | 'changes'>;

/**
 * What the write will change, in full: the person confirms exactly what they were shown. A cut
 * summary once hid `stage: "lost"` behind 500 characters of other values; nothing is cut now.
 * For an update, each field's current value is read as the caller (fields they may not read,
 * or a record they may not read, show no `before`; confirmation re-checks everything anyway).
 */
async function targetOf(env: Env, args: Record<string, unknown>, asked: string | undefined): Promise<Target> {
  const mark = (c: ProposedChange): ProposedChange => (asked === undefined ? c : { ...c, requested: mentions(asked, c.field, c.after) });
  const values = args.values;
  if (typeof args.model !== 'string' || !values || typeof values !== 'object' || Array.isArray(values)) {
    return { operation: 'other', model: null, record_id: null, record_name: null, changes: Object.keys(args).sort().map((field) => mark({ field, after: args[field] })) };
  }
  const id = typeof args.id === 'string' ? args.id : null;
  let current: Record<string, unknown> | null = null;
  if (id) {
    try {
      current = await env.dispatch<Record<string, unknown>>('fw.read_one', { model: args.model, id });
    } catch (err) {
      // a record the caller cannot read is refused now, as a missing one, not only at confirm
      if (err instanceof FwError && err.code === 'RECORD_NOT_FOUND') throw err;
      /* otherwise: the change is shown without its current value */
    }
  }
  await checkProposedReferences(env, args.model, values as Record<string, unknown>, current);
  const changes = Object.keys(values).sort().map((field) => {
    const after = (values as Record<string, unknown>)[field];
    return mark(current && field in current ? { field, before: current[field], after } : { field, after });
  });
  const nameField = env.registry.models.get(args.model)?.recordName;
  const named = current && nameField ? current[nameField] : null;
  const record_name = named === null || named === undefined || named === '' ? null : String(named);
  return { operation: id ? 'update' : 'create', model: args.model, record_id: id, record_name, changes };
}

/**
 * Each Reference the proposal writes must point at a record the caller may read, as fw.create and
 * fw.update check at confirm: refused now with the same 422 INVALID_REFERENCE a missing record
 * gets, so a proposal is no way to probe ids of other organizations. An update keeping a
 * Reference's current value is not checked again.
 */
async function checkProposedReferences(env: Env, modelKey: string, values: Record<string, unknown>, current: Record<string, unknown> | null): Promise<void> {
  const model = env.registry.models.get(modelKey);
  if (!model) return;
  for (const [name, value] of Object.entries(values)) {
    const field = model.fields.get(name);
    if (field?.type !== 'reference' || !field.target || typeof value !== 'string') continue;
    if (current && typeof current[name] === 'string' && (current[name] as string).toLowerCase() === value.toLowerCase()) continue;
    try {
      await env.dispatch('fw.read_one', { model: field.target, id: value, fields: ['record_uuid'] });
    } catch (err) {
      if (err instanceof FwError && (err.code === 'RECORD_NOT_FOUND' || err.code === 'ACCESS_DENIED')) throw invalidReference(model, name, value);
      throw err;
    }
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The field (`expected_revenue` or "expected revenue") or the value as a whole word of the person's text. */
function mentions(asked: string, field: string, value: unknown): boolean {
  const text = asked.toLowerCase();
  const words = [field, field.replace(/_/g, ' ')];
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') words.push(String(value));
  return words.some((w) => {
    const word = w.trim().toLowerCase();
    if (!word) return false;
    const start = /^\w/.test(word) ? '\\b' : '';
    const end = /\w$/.test(word) ? '\\b' : '';
    return new RegExp(`${start}${escape(word)}${end}`).test(text);
  });
}

const shown = (v: unknown) => (v === undefined ? '?' : JSON.stringify(v));

function summarise(tool: string, t: Target): string {
  const head = t.operation === 'other' ? `${tool}:` : `${tool}: ${t.operation} ${t.model}${t.record_name ? ` "${t.record_name}"` : ''}${t.record_id ? ` ${t.record_id}` : ''}`;
  const lines = t.changes.map((c) => `${t.operation === 'update' ? `- ${c.field}: ${shown(c.before)} → ${shown(c.after)}` : `- ${c.field}: ${shown(c.after)}`}${c.requested === false ? ' (not in your request)' : ''}`);
  return [head, ...lines].join('\n');
}
