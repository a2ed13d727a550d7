import type { QueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { request } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import {
  aiKeys, CancelDocument, CloseDocument, ConfirmDocument, messagesQuery, SendDocument, StartDocument, UndoDocument,
  type AiEvent, type AiMessage, type PendingConfirmation,
} from './api.ts';
import { connectedOrTimeout, subscribeConversation } from './events.ts';

/**
 * The assistant's state for the life of the page, outside React: the drawer may close while a
 * turn runs, and a proposal's confirmation token is handed out once (by the turn's result), so
 * neither may live in a component that unmounts. Components read it with `useAi(selector)`.
 */
export const NEW = ''; // the key of a conversation not started yet (it starts with its first message)

/** What a running turn has shown so far, from its events. */
export interface LiveTurn {
  /** the user's message, shown before the server stores it */
  text: string;
  /** stored messages the events announced */
  messages: AiMessage[];
  /** tokens since the last stored assistant message */
  streaming: string;
  /** tool call id → its result, once the tool ran */
  tools: Record<string, { ok: boolean; code?: string }>;
}

export type ProposalState = 'pending' | 'confirming' | 'applied' | 'undoing' | 'undone' | 'dismissed' | 'refused';
export interface Proposal extends PendingConfirmation {
  /** the sequence of the last message of the turn that proposed it: the card follows it */
  after: number;
  state: ProposalState;
  provenance_id?: string;
  error?: unknown;
}

interface State {
  /** the conversation shown; NEW before one is started */
  selected: string;
  /** the skill pack key a new conversation starts with (null: the first offered) */
  pack: string | null;
  drafts: Record<string, string>;
  turns: Record<string, LiveTurn | undefined>;
  /** the last error of a conversation's turn, shown above its composer */
  errors: Record<string, unknown>;
  proposals: Record<string, Proposal[] | undefined>;
}

let state: State = { selected: NEW, pack: null, drafts: {}, turns: {}, errors: {}, proposals: {} };
const listeners = new Set<() => void>();
function set(next: Partial<State>): void {
  state = { ...state, ...next };
  listeners.forEach((l) => l());
}
const patch = <K extends 'drafts' | 'turns' | 'errors' | 'proposals'>(k: K, key: string, v: State[K][string]) =>
  set({ [k]: { ...state[k], [key]: v } } as Partial<State>);

const subscribe = (l: () => void) => { listeners.add(l); return () => { listeners.delete(l); }; };
export function useAi<T>(select: (s: State) => T): T {
  return useSyncExternalStore(subscribe, () => select(state));
}
export const getAi = () => state;

let qc: QueryClient | null = null;
/** The panel hands over the app's query client (events of another tab's turn refetch the thread). */
export function bindQueryClient(client: QueryClient): void { qc = client; }

export const select = (id: string) => set({ selected: id });
export const setPack = (key: string) => set({ pack: key });
export const setDraft = (key: string, text: string) => patch('drafts', key, text);
export const clearError = (key: string) => patch('errors', key, undefined);

// ---- live events ------------------------------------------------------------------------------

const watchers = new Map<string, { n: number; stop: () => void }>();

/** Keeps the conversation's event stream open until the returned function is called (ref-counted). */
export function watch(id: string): () => void {
  let w = watchers.get(id);
  if (!w) watchers.set(id, (w = { n: 0, stop: subscribeConversation(id, (e) => onEvent(id, e)) }));
  w.n++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--w.n === 0) { w.stop(); watchers.delete(id); }
  };
}

function onEvent(id: string, e: AiEvent): void {
  const turn = state.turns[id];
  if (!turn) {
    // a turn of this conversation run elsewhere (another tab): show its result
    if (e.__typename === 'AiDoneEvent') void qc?.invalidateQueries({ queryKey: aiKeys.messages(id) });
    return;
  }
  if (e.__typename === 'AiTokenEvent') patch('turns', id, { ...turn, streaming: turn.streaming + e.delta });
  else if (e.__typename === 'AiToolResultEvent') patch('turns', id, { ...turn, tools: { ...turn.tools, [e.call_id]: { ok: e.ok, code: e.code ?? undefined } } });
  else if (e.__typename === 'AiMessageEvent' && !turn.messages.some((m) => m.id === e.message.id)) {
    patch('turns', id, { ...turn, messages: [...turn.messages, e.message], streaming: e.message.role === 'assistant' ? '' : turn.streaming });
  }
}

// ---- turns --------------------------------------------------------------------------------------

/** Messages by id, in sequence order (the cache holds them oldest first). */
export function mergeMessages(a: readonly AiMessage[], b: readonly AiMessage[]): AiMessage[] {
  const byId = new Map<string, AiMessage>();
  for (const m of [...a, ...b]) byId.set(m.id, m);
  return [...byId.values()].sort((x, y) => x.sequence - y.sequence);
}

const titleOf = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
};

/**
 * Stops the running turn of a conversation (`aiConversationCancel`): the server aborts the
 * provider request and the turn's own request ends with AI_TURN_ABORTED, which send() handles.
 */
export async function stop(id: string): Promise<void> {
  if (id === NEW || !state.turns[id]) return;
  try {
    await request(CancelDocument, { id });
  } catch (err) {
    patch('errors', id, err);
  }
}

/**
 * Sends the composer's text of the selected conversation (starting it first when it is new):
 * the turn's events stream into `turns` meanwhile, and its result (the stored messages and the
 * proposals with their tokens) is kept when it returns. On an error the text goes back to the
 * composer and the error is shown above it.
 */
export async function send(client: QueryClient, text: string, packKey: string | null): Promise<void> {
  const content = text.trim();
  let key = state.selected;
  if (!content || state.turns[key]) return;
  set({
    drafts: { ...state.drafts, [key]: '' },
    errors: { ...state.errors, [key]: undefined },
    turns: { ...state.turns, [key]: { text: content, messages: [], streaming: '', tools: {} } },
  });
  let release = () => {};
  let seqBefore = 0;
  try {
    if (key === NEW) {
      const conv = (await request(StartDocument, { skill_pack: packKey, title: titleOf(content) })).aiConversationStart!;
      client.setQueryData(aiKeys.conversations, (old: unknown[] | undefined) => [conv, ...(old ?? [])]);
      client.setQueryData(aiKeys.messages(conv.id), []);
      const turn = state.turns[NEW];
      set({ selected: state.selected === NEW ? conv.id : state.selected, turns: { ...state.turns, [NEW]: undefined, [conv.id]: turn } });
      key = conv.id;
    }
    const id = key;
    release = watch(id);
    await connectedOrTimeout();
    seqBefore = Math.max(0, ...(client.getQueryData<AiMessage[]>(aiKeys.messages(id)) ?? []).map((m) => m.sequence));
    const turn = (await request(SendDocument, { id, content })).aiConversationSendMessage!;
    client.setQueryData(aiKeys.messages(id), (old: AiMessage[] | undefined) => mergeMessages(old ?? [], turn.messages));
    if (turn.pending_confirmations.length) {
      const after = Math.max(0, ...turn.messages.map((m) => m.sequence));
      patch('proposals', id, [...(state.proposals[id] ?? []), ...turn.pending_confirmations.map((p) => ({ ...p, after, state: 'pending' as const }))]);
    }
  } catch (err) {
    // a guard that refused the first call stored nothing: the text goes back to the composer to
    // be edited; a failure after the message was stored leaves it in the thread
    let stored = !!state.turns[key]?.messages.some((m) => m.role === 'user');
    if (key !== NEW) {
      const now = await client.fetchQuery({ ...messagesQuery(key), staleTime: 0 }).catch(() => null);
      stored ||= !!now?.some((m) => m.role === 'user' && m.sequence > seqBefore);
    }
    if (key !== NEW && err instanceof ApiError && err.details?.conversation_deleted === true) {
      // the server deleted the conversation this message was to start (nothing of it was stored):
      // back to a new conversation, with the text in its composer
      const gone = key;
      client.setQueryData(aiKeys.conversations, (old: Array<{ id: string }> | undefined) => old?.filter((c) => c.id !== gone));
      client.removeQueries({ queryKey: aiKeys.messages(gone) });
      set({
        selected: state.selected === gone ? NEW : state.selected,
        turns: { ...state.turns, [gone]: undefined },
        errors: { ...state.errors, [NEW]: err },
        drafts: { ...state.drafts, [NEW]: state.drafts[NEW] || content },
      });
      key = NEW;
      return;
    }
    // a turn the person stopped is no error to show: what streamed stays in the thread
    const stopped = err instanceof ApiError && err.code === 'AI_TURN_ABORTED';
    set({ errors: { ...state.errors, [key]: stopped ? undefined : err }, drafts: stored ? state.drafts : { ...state.drafts, [key]: state.drafts[key] || content } });
    if (stopped && key !== NEW) void client.invalidateQueries({ queryKey: aiKeys.messages(key) });
  } finally {
    patch('turns', key, undefined);
    release();
    void client.invalidateQueries({ queryKey: aiKeys.conversations });
  }
}

// ---- proposals ----------------------------------------------------------------------------------

function updateProposal(conv: string, proposalId: string, change: Partial<Proposal>): void {
  patch('proposals', conv, (state.proposals[conv] ?? []).map((p) => (p.proposal_id === proposalId ? { ...p, ...change } : p)));
}
const proposalOf = (conv: string, proposalId: string) => state.proposals[conv]?.find((p) => p.proposal_id === proposalId);
/** Codes after which a proposal can never be confirmed again. */
const FINAL = new Set(['AI_CONFIRMATION_USED', 'AI_CONFIRMATION_EXPIRED', 'AI_CONFIRMATION_INVALID', 'AI_PROPOSAL_TAMPERED', 'AI_WRITE_NOT_ALLOWED', 'AI_CONVERSATION_CLOSED']);

export async function confirm(client: QueryClient, conv: string, proposalId: string): Promise<void> {
  const p = proposalOf(conv, proposalId);
  if (!p || p.state !== 'pending') return;
  updateProposal(conv, proposalId, { state: 'confirming', error: undefined });
  try {
    const r = (await request(ConfirmDocument, { id: conv, token: p.token })).aiConversationConfirm!;
    updateProposal(conv, proposalId, { state: 'applied', provenance_id: r.provenance_id });
    // the written record may be on screen behind the drawer
    void client.invalidateQueries({ queryKey: ['records'] });
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    updateProposal(conv, proposalId, { state: FINAL.has(code) ? 'refused' : 'pending', error: err });
  }
}

export async function undo(client: QueryClient, conv: string, proposalId: string): Promise<void> {
  const p = proposalOf(conv, proposalId);
  if (!p?.provenance_id || p.state !== 'applied') return;
  updateProposal(conv, proposalId, { state: 'undoing', error: undefined });
  try {
    await request(UndoDocument, { id: conv, provenance_id: p.provenance_id });
    updateProposal(conv, proposalId, { state: 'undone' });
    void client.invalidateQueries({ queryKey: ['records'] });
  } catch (err) {
    updateProposal(conv, proposalId, { state: 'applied', error: err });
  }
}

export const dismiss = (conv: string, proposalId: string) => updateProposal(conv, proposalId, { state: 'dismissed', error: undefined });

/** Ends a conversation (no further messages); its history stays. */
export async function closeConversation(client: QueryClient, conv: string): Promise<void> {
  try {
    await request(CloseDocument, { id: conv });
  } catch (err) {
    patch('errors', conv, err);
  }
  await client.invalidateQueries({ queryKey: aiKeys.conversations });
}
