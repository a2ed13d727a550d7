import type { CommandDecl } from '../../kernel/app.js';
import { f } from '../../kernel/declare.js';
import { delegateOf } from '../../kernel/data/delegate.js';
import type { Env } from '../../kernel/env.js';
import { AccessDenied, BadRequest, Conflict, FwError, NotFound } from '../../kernel/errors.js';
import { cancelTurns, isRunningHere } from './cancel.js';
import { kernelOf } from './context.js';
import { MessageTooLong } from './errors.js';
import { AiCancelResult, AiCatalogue, AiTurn, AiUndoResult, AiUsageDay, AiWriteResult } from './outputs.js';
import { DEFAULT_TEMPLATE, resolvePrompt, templateByKey } from './prompts.js';
import { aiSettings } from './settings.js';
import { catalogueFor } from './tools/catalogue.js';
import { runTurn } from './turn.js';
import { confirmWrite, undoWrite } from './writes/confirm.js';

type Rec = Record<string, unknown>;

async function packByKey(env: Env, key: string): Promise<Rec> {
  const pack = await delegateOf(env.db, env.registry.model('ai.skill.pack')).findUnique({ where: { key } });
  if (!pack || pack.is_active === false) throw new NotFound(`no active skill pack "${key}"`, { skill_pack: key }, 'AI_SKILL_PACK_NOT_FOUND');
  return pack;
}

/** Starts a conversation owned by the caller, pinned to the prompt version resolved now. */
async function start(env: Env, p: Rec): Promise<Rec> {
  if (env.principal.kind !== 'user' || !env.principal.user_id) throw new AccessDenied('conversations belong to a signed-in user');
  const pack = p.skill_pack ? await packByKey(env, String(p.skill_pack)) : null;
  const templateId = pack ? String(pack.template_id) : await templateByKey(env, DEFAULT_TEMPLATE);
  const prompt = await resolvePrompt(env, templateId);
  const created = await env.sudo().dispatch<Rec>('fw.create', {
    model: 'ai.conversation',
    values: { title: p.title ?? null, user_id: env.principal.user_id, skill_pack_id: pack?.record_uuid ?? null, prompt_version_id: prompt.version_id },
  });
  return env.dispatch('fw.read_one', { model: 'ai.conversation', id: String(created.id) });
}

async function openConversation(env: Env, id: string): Promise<Rec> {
  const conv = await env.dispatch<Rec>('fw.read_one', { model: 'ai.conversation', id });
  if (conv.status === 'closed') throw new Conflict('this conversation is closed', { id }, 'AI_CONVERSATION_CLOSED');
  return conv;
}

/**
 * A message longer than AI_MAX_MESSAGE_CHARS is refused before anything is stored, reserved or
 * sent: a pasted 400 KB document would otherwise go to the provider whole, and be paid for.
 */
function checkLength(env: Env, text: string, field: string): void {
  const max = aiSettings(env.settings).AI_MAX_MESSAGE_CHARS;
  if (text.length <= max) return;
  const chars = [...text].length;
  if (chars > max) throw new MessageTooLong(`the message has ${chars} characters; at most ${max} are sent to the assistant (AI_MAX_MESSAGE_CHARS)`, { field, chars, max_chars: max });
}

/**
 * A message refused before anything of it was stored (empty, too long, a guard, the budget, a
 * provider not configured) leaves the conversation as it was; one that was empty before is
 * deleted rather than left behind empty, and the error says so (`details.conversation_deleted`),
 * so a client that started it for this message starts a new one with the next. A conversation
 * with a turn running elsewhere, or with any message, is kept. Returns whether it was deleted.
 */
async function dropIfEmpty(env: Env, id: string, err: unknown): Promise<boolean> {
  if (isRunningHere(env.tenant, id)) return false;
  if (await delegateOf(env.db, env.registry.model('ai.message')).count({ where: { conversation_id: id } })) return false;
  // as the system: the person may not hold the delete right on conversations, and this is cleanup
  await env.sudo().dispatch('fw.delete', { model: 'ai.conversation', id });
  if (err instanceof FwError) Object.assign(err, { details: { ...err.details, conversation_deleted: true } });
  return true;
}

const isoDay = /^\d{4}-\d{2}-\d{2}$/;

export const aiCommands: CommandDecl[] = [
  {
    name: 'ai.conversation.start',
    op: 'create',
    returns: 'record',
    description: 'Start a conversation (optionally with a skill pack); GraphQL and REST create go through it',
    input: { skill_pack: f.char(100, { description: 'Skill pack key' }), title: f.char(200) },
    handler: start,
  },
  {
    name: 'ai.conversation.send_message',
    op: 'read', record: true, transaction: false, returns: 'json', output: AiTurn,
    description: 'Send a message and run one turn: the answer, tool calls and any writes awaiting confirmation',
    input: { role: f.enum(['user'], { default: 'user' }), content: f.text({ required: true }) },
    handler: async (env, p) => {
      const conv = await openConversation(env, String(p.id));
      const id = String(conv.id);
      try {
        if (!String(p.content).trim()) throw new BadRequest('content is empty', { field: 'content' }, 'VALIDATION_FAILED');
        checkLength(env, String(p.content), 'content');
        return await runTurn(env, id, String(p.content), 'turn');
      } catch (err) {
        await dropIfEmpty(env, id, err);
        throw err;
      }
    },
  },
  {
    name: 'ai.conversation.confirm',
    op: 'read', record: true, returns: 'json',
    output: AiWriteResult,
    description: 'Confirm a proposed write with its token: the write runs once and its provenance is recorded',
    input: { token: f.char(200, { required: true }), approval_case_id: f.char(100, { description: 'Your approval reference, kept on the provenance row' }) },
    handler: async (env, p) => confirmWrite(env, String(p.id).toLowerCase(), String(p.token), p.approval_case_id as string | undefined),
  },
  {
    name: 'ai.conversation.undo',
    op: 'read', record: true, returns: 'json',
    output: AiUndoResult,
    description: 'Undo a confirmed AI write if the record has not changed since',
    input: { provenance_id: f.uuid({ required: true }) },
    handler: async (env, p) => undoWrite(env, String(p.id).toLowerCase(), String(p.provenance_id)),
  },
  {
    name: 'ai.conversation.cancel',
    op: 'read', record: true, transaction: false, returns: 'json', output: AiCancelResult,
    description: "Stop the conversation's running turn: the provider request is aborted, the turn ends with AI_TURN_ABORTED and nothing is charged beyond the usage the provider reported",
    handler: async (env, p) => {
      const conv = await env.dispatch<Rec>('fw.read_one', { model: 'ai.conversation', id: p.id });
      return { status: await cancelTurns(kernelOf(env.registry), env.tenant, String(conv.id)) };
    },
  },
  {
    name: 'ai.conversation.close',
    op: 'read', record: true, returns: 'record',
    description: 'Close a conversation (no further messages)',
    handler: async (env, p) => {
      await env.dispatch('fw.read_one', { model: 'ai.conversation', id: p.id });
      await delegateOf(env.db, env.registry.model('ai.conversation')).update({ where: { record_uuid: String(p.id).toLowerCase() }, data: { status: 'closed' } });
      return env.dispatch('fw.read_one', { model: 'ai.conversation', id: p.id });
    },
  },
  {
    name: 'ai.invoke',
    transaction: false, returns: 'json', output: AiTurn,
    description: 'One prompt, one composed answer: a conversation that closes after its turn',
    input: { prompt: f.text({ required: true }), skill_pack: f.char(100) },
    handler: async (env, p) => {
      if (!String(p.prompt).trim()) throw new BadRequest('prompt is empty', { field: 'prompt' }, 'VALIDATION_FAILED');
      checkLength(env, String(p.prompt), 'prompt');
      const conv = await env.transaction((tx) => start(tx, { skill_pack: p.skill_pack, title: String(p.prompt).slice(0, 200) }));
      try {
        return await runTurn(env, String(conv.id), String(p.prompt), 'invoke');
      } catch (err) {
        await dropIfEmpty(env, String(conv.id), err);
        throw err;
      } finally {
        await env.transaction(async (tx) => delegateOf(tx.db, tx.registry.model('ai.conversation')).updateMany({ where: { record_uuid: String(conv.id) }, data: { status: 'closed' } }));
      }
    },
  },
  {
    name: 'ai.catalogue',
    mutates: false, returns: 'json', output: AiCatalogue,
    description: 'The tool catalogue offered to you (optionally narrowed to a skill pack)',
    input: { skill_pack: f.char(100) },
    handler: async (env, p) => {
      const pack = p.skill_pack ? await packByKey(env, String(p.skill_pack)) : null;
      const only = Array.isArray(pack?.tools) && (pack!.tools as unknown[]).length ? (pack!.tools as string[]) : undefined;
      return { tools: await catalogueFor(kernelOf(env.registry), env.principal, { only }) };
    },
  },
  {
    name: 'ai.usage',
    mutates: false, returns: 'json', output: AiUsageDay,
    description: "A day's AI usage aggregated by principal and by tool (yours only, unless you are an admin)",
    input: { tenant: f.char(100), day: f.char(10, { required: true }) },
    handler: async (env, p) => {
      const day = String(p.day);
      if (!isoDay.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) throw new BadRequest('day must be a date, YYYY-MM-DD', { field: 'day' }, 'VALIDATION_FAILED');
      if (p.tenant !== undefined && p.tenant !== env.tenant) throw new AccessDenied('usage of another tenant is not visible with this token', { tenant: p.tenant });
      const sum = { input_tokens: 'sum', output_tokens: 'sum', usd: 'sum', reserved_usd: 'sum', latency_ms: 'sum' };
      const byPrincipal = await env.dispatch<{ groups: Rec[] }>('fw.read_group', { model: 'ai.usage.log', domain: [['day', '=', day]], groupby: ['principal_id'], aggregates: sum });
      const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString();
      const byTool = await env.dispatch<{ groups: Rec[] }>('fw.read_group', {
        model: 'ai.message', groupby: ['tool_name'],
        domain: [['role', '=', 'tool'], ['created_at_utc', '>=', `${day}T00:00:00.000Z`], ['created_at_utc', '<', next]],
      });
      const totals = byPrincipal.groups.reduce<Rec>((t, g) => ({
        calls: Number(t.calls) + Number(g.count), usd: Math.round((Number(t.usd) + Number(g.usd_sum ?? 0)) * 1e8) / 1e8,
        input_tokens: Number(t.input_tokens) + Number(g.input_tokens_sum ?? 0), output_tokens: Number(t.output_tokens) + Number(g.output_tokens_sum ?? 0),
      }), { calls: 0, usd: 0, input_tokens: 0, output_tokens: 0 });
      return {
        tenant: env.tenant, day, totals,
        by_principal: byPrincipal.groups.map((g) => ({ principal_id: g.principal_id ?? null, turns: g.count, input_tokens: g.input_tokens_sum ?? 0, output_tokens: g.output_tokens_sum ?? 0, usd: g.usd_sum ?? 0, reserved_usd: g.reserved_usd_sum ?? 0, latency_ms: g.latency_ms_sum ?? 0 })),
        by_tool: byTool.groups.map((g) => ({ tool: g.tool_name ?? null, calls: g.count })),
      };
    },
  },
];
