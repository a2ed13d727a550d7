import crypto from 'node:crypto';
import { delegateOf } from '../../../kernel/data/delegate.js';
import type { Env } from '../../../kernel/env.js';
import { AuthenticationRequired, BadRequest, FwError, NotFound } from '../../../kernel/errors.js';
import { ConfirmationExpired, ConfirmationInvalid, ConfirmationUsed, UndoConflict, WriteCapReached } from '../errors.js';
import { aiSettings } from '../settings.js';
import { canonicalJson, sha256, utcDay } from './canonical.js';
import { checkAllowed } from './proposals.js';

type Rec = Record<string, unknown>;

/** One lock per tenant and day around cap checks, so concurrent confirms cannot both pass a cap. */
async function lockWrites(env: Env, day: string): Promise<void> {
  // SQLite runs a tenant's write transactions one at a time already
  if (env.provider !== 'postgresql') return;
  const key = `ai.writes:${day}`;
  await env.db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
}

function userOf(env: Env): string {
  if (env.principal.kind !== 'user' || !env.principal.user_id) throw new AuthenticationRequired('AI writes are confirmed by a signed-in user');
  return env.principal.user_id;
}

/**
 * Runs a proposed write once. In one transaction: the proposal moves pending → executed with a
 * conditional update (so of 20 concurrent confirms exactly one gets the row), the caller's
 * permissions, the allow-list and the daily caps are checked again, the command runs as the
 * caller, and the provenance row is written. Any refusal rolls all of it back.
 */
export async function confirmWrite(env: Env, conversationId: string, token: string, approvalCaseId?: string): Promise<Rec> {
  const user = userOf(env);
  const proposals = delegateOf(env.db, env.registry.model('ai.write.proposal'));
  const row = await proposals.findUnique({ where: { token_hash: sha256(token) } });
  if (!row || row.user_id !== user || (row.conversation_id !== null && row.conversation_id !== conversationId)) throw new ConfirmationInvalid();
  if (row.status !== 'pending') throw new ConfirmationUsed();
  if ((row.expires_at as Date).getTime() <= Date.now()) {
    throw new ConfirmationExpired(`this confirmation expired at ${(row.expires_at as Date).toISOString()}; ask for the change again`, { expired_at: row.expires_at });
  }
  const args = row.arguments as Rec;
  if (sha256(canonicalJson(args)) !== row.arguments_hash) throw new FwError('AI_PROPOSAL_TAMPERED', 500, 'the stored proposal does not match its hash');
  const tool = String(row.tool);
  checkAllowed(env, tool);
  const day = utcDay();
  await lockWrites(env, day);
  await checkCaps(env, user, tool, day);
  const claimed = await proposals.updateMany({ where: { dbid: row.dbid, status: 'pending' }, data: { status: 'executed', executed_at: new Date() } });
  if (claimed.count !== 1) throw new ConfirmationUsed();

  const command = String(row.command);
  const model = typeof args.model === 'string' ? args.model : null;
  const before = model && typeof args.id === 'string' ? await env.dispatch<Rec>('fw.read_one', { model, id: args.id }) : null;
  const after = await env.dispatch<Rec>(command, args);
  const operation = before ? 'update' : 'create';
  const id = crypto.randomUUID();
  await delegateOf(env.db, env.registry.model('ai.write.provenance')).create({
    data: {
      record_uuid: id, conversation_id: row.conversation_id ?? null, proposal_id: row.record_uuid, tool, command,
      prompt_version_id: row.prompt_version_id ?? null, confirmed_by: user, approval_case_id: approvalCaseId ?? null,
      target_model: model, target_id: typeof after?.id === 'string' ? after.id : (args.id ?? null), operation,
      before: before ?? undefined, after: after ?? undefined, day,
    },
  });
  const targetId = typeof after?.id === 'string' ? after.id : typeof args.id === 'string' ? args.id : null;
  if (model && targetId) {
    const changes = operation === 'update' ? Object.keys((args.values ?? {}) as Rec).map((k) => `${k}: ${show(before?.[k])} → ${show(after?.[k])}`) : [];
    await postOnRecord(env, model, targetId, id, operation === 'create' ? 'Created by the AI assistant' : 'Changed by the AI assistant', [
      `${await nameOf(env, user)} confirmed ${tool} (${command}) proposed in conversation ${String(row.conversation_id ?? '—')}.`,
      ...changes,
    ]);
  }
  return { status: 'executed', provenance_id: id, proposal_id: row.record_uuid, tool, operation, record: after };
}

async function checkCaps(env: Env, user: string, tool: string, day: string): Promise<void> {
  const s = aiSettings(env.settings);
  const prov = delegateOf(env.db, env.registry.model('ai.write.provenance'));
  const quota = await delegateOf(env.db, env.registry.model('ai.user.quota')).findUnique({ where: { user_id: user } });
  const perUser = [s.AI_WRITE_DAILY_CAP_RECORDS_PER_USER, Number(quota?.daily_writes ?? 0)].filter((n) => n > 0);
  if (perUser.length) {
    const cap = Math.min(...perUser);
    const done = await prov.count({ where: { day, confirmed_by: user } });
    if (done >= cap) throw new WriteCapReached(`you reached today's cap of ${cap} AI writes`, { cap, scope: 'user' });
  }
  if (s.AI_WRITE_DAILY_CAP_PER_TOOL > 0) {
    const done = await prov.count({ where: { day, tool } });
    if (done >= s.AI_WRITE_DAILY_CAP_PER_TOOL) {
      throw new WriteCapReached(`the AI tool ${tool} reached today's cap of ${s.AI_WRITE_DAILY_CAP_PER_TOOL} writes`, { cap: s.AI_WRITE_DAILY_CAP_PER_TOOL, scope: 'tool', tool });
    }
  }
}

/**
 * Applies the inverse of a confirmed write, only if the record is exactly as the write left it
 * (same revision): a created record is deleted, an updated one gets its previous values back.
 */
export async function undoWrite(env: Env, conversationId: string, provenanceId: string): Promise<Rec> {
  const user = userOf(env);
  const provs = delegateOf(env.db, env.registry.model('ai.write.provenance'));
  const p = typeof provenanceId === 'string' && /^[0-9a-f-]{36}$/i.test(provenanceId) ? await provs.findUnique({ where: { record_uuid: provenanceId.toLowerCase() } }) : null;
  if (!p || p.confirmed_by !== user || (p.conversation_id !== null && p.conversation_id !== conversationId)) {
    throw new NotFound('no AI write with this id in this conversation', { provenance_id: provenanceId }, 'AI_WRITE_NOT_FOUND');
  }
  if (p.undone) throw new UndoConflict('this AI write was already undone', { provenance_id: provenanceId });
  const model = String(p.target_model ?? '');
  const after = (p.after ?? {}) as Rec;
  const before = (p.before ?? null) as Rec | null;
  if (!model || !p.target_id) throw new BadRequest('this AI write cannot be undone', undefined, 'AI_UNDO_UNSUPPORTED');
  // one atomic claim, as for confirm: of concurrent undos exactly one goes on (the others wait for
  // its row lock and then find it undone); any later refusal rolls the claim back with the rest
  const claimed = await provs.updateMany({ where: { record_uuid: p.record_uuid, undone: false }, data: { undone: true, undone_at: new Date(), undone_by: user } });
  if (claimed.count !== 1) throw new UndoConflict('this AI write was already undone', { provenance_id: provenanceId });
  const current = await env.dispatch<Rec>('fw.read_one', { model, id: p.target_id }).catch((err) => {
    if (err instanceof FwError && err.status === 404) throw new UndoConflict('the record changed since the AI write (it is gone)', { provenance_id: provenanceId });
    throw err;
  });
  if (current.revision !== after.revision) {
    throw new UndoConflict(`the record changed since the AI write (revision ${String(after.revision)} → ${String(current.revision)}); undo refused`, { provenance_id: provenanceId, expected_revision: after.revision, revision: current.revision });
  }
  let result: unknown;
  if (p.operation === 'create') {
    result = await env.dispatch('fw.delete', { model, id: p.target_id });
  } else if (p.operation === 'update' && before) {
    const changed = Object.keys(((p.after as Rec | null) && (await argumentsOf(env, String(p.proposal_id)))?.values) ?? {}) as string[];
    const values = Object.fromEntries(changed.map((k) => [k, before[k] ?? null]));
    result = await env.dispatch('fw.update', { model, id: p.target_id, values, revision: current.revision });
  } else {
    throw new BadRequest('this AI write cannot be undone', undefined, 'AI_UNDO_UNSUPPORTED');
  }
  // a deleted record has no chatter left to post on
  if (p.operation === 'update') {
    await postOnRecord(env, model, String(p.target_id), String(p.record_uuid), 'AI change undone', [
      `${await nameOf(env, user)} undid the change of ${String(p.tool)} (${String(p.command)}); the previous values are back.`,
    ]);
  }
  return { status: 'undone', provenance_id: p.record_uuid, operation: p.operation, record: result };
}

/** A value as a person reads it in a chatter line: text as is, null as —, the rest as JSON. */
function show(v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

async function nameOf(env: Env, userId: string): Promise<string> {
  const u = await env.sudo().dispatch<{ name?: string }>('fw.read_one', { model: 'res.user', id: userId, fields: ['name'] }).catch(() => null);
  return u?.name ?? 'A user';
}

/**
 * A notification on the changed record's chatter, in the write's transaction (issue 32 item 10):
 * who confirmed (or undid) which tool's change, in which conversation, the fields old → new, and
 * a link to the provenance row (the AI administration's "Changes made by AI").
 */
async function postOnRecord(env: Env, model: string, id: string, provenanceId: string, subject: string, lines: string[]): Promise<void> {
  try {
    await env.dispatch('ir.message.post', {
      res_model: model, res_id: id, subject, body: lines.join('\n'), message_type: 'notification',
      link: `/-/action-ai.action_provenance/${provenanceId}`,
    });
  } catch (err) {
    // a record the confirming person cannot read once written (its rules moved it out of their
    // scope) gets no message; the write and its provenance stand. A 404 ran no failed SQL, so
    // the transaction goes on
    if (!(err instanceof FwError && err.status === 404)) throw err;
  }
}

async function argumentsOf(env: Env, proposalId: string): Promise<Rec | null> {
  const row = await delegateOf(env.db, env.registry.model('ai.write.proposal')).findUnique({ where: { record_uuid: proposalId } });
  return (row?.arguments as Rec | null) ?? null;
}
