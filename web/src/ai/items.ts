import type { AiMessage } from './api.ts';
import { mergeMessages, type LiveTurn, type Proposal } from './session.ts';

/** A tool call the assistant made, with its outcome once known. */
export interface ToolCallView {
  id: string;
  name: string;
  /** the arguments as the model sent them (JSON text) */
  args: string;
  /** what the tool returned to the model (JSON text), once stored */
  result: string | null;
  status: 'running' | 'ok' | 'failed';
  code?: string;
}

export type ThreadItem =
  | { kind: 'user'; key: string; text: string; pending?: boolean }
  | { kind: 'assistant'; key: string; text: string; streaming?: boolean; flags?: string[]; stopped?: boolean }
  | { kind: 'tools'; key: string; calls: ToolCallView[] }
  | { kind: 'proposal'; key: string; proposal: Proposal }
  | { kind: 'thinking'; key: string };

interface RawCall { id?: string; name?: string; arguments?: unknown }

/** The guards that fired on a message (`flags: [{ guard }]`). */
const guardsOf = (flags: unknown): string[] | undefined => {
  const names = Array.isArray(flags) ? flags.map((f) => (f as { guard?: unknown })?.guard).filter((g): g is string => typeof g === 'string') : [];
  return names.length ? [...new Set(names)] : undefined;
};

/** A tool result failed when it carries `{ error: { code } }`. */
function outcome(content: string | null): { ok: boolean; code?: string } {
  try {
    const v = JSON.parse(content ?? 'null') as { error?: { code?: string } } | null;
    if (v && typeof v === 'object' && v.error) return { ok: false, code: v.error.code };
  } catch { /* a plain-text result */ }
  return { ok: true };
}

/**
 * The thread as shown: stored messages (and those a running turn announced), each assistant
 * message's tool calls paired with their results as one group of chips, proposal cards after
 * the turn that made them, and, while a turn runs, the user's message, the answer as it streams
 * in, or a thinking mark.
 */
export function threadItems(stored: readonly AiMessage[], turn: LiveTurn | undefined, proposals: readonly Proposal[]): ThreadItem[] {
  const messages = turn ? mergeMessages(stored, turn.messages) : [...stored];
  const cards = proposals.filter((p) => p.state !== 'dismissed');
  const placed = new Set<string>();
  const items: ThreadItem[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user') items.push({ kind: 'user', key: m.id, text: m.content ?? '' });
    if (m.role === 'assistant') {
      // an answer the person stopped is kept as far as it streamed (flag `cancelled`)
      const stopped = Array.isArray(m.flags) && m.flags.some((f) => (f as { cancelled?: unknown })?.cancelled === true);
      if (m.content) items.push({ kind: 'assistant', key: m.id, text: m.content, flags: guardsOf(m.flags), ...(stopped ? { stopped } : {}) });
      const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as RawCall[]) : [];
      if (calls.length) {
        // the results follow their assistant message (call ids are only unique within it)
        const results = new Map<string, AiMessage>();
        for (let j = i + 1; j < messages.length && messages[j].role === 'tool'; j++) results.set(String(messages[j].tool_call_id), messages[j]);
        items.push({
          kind: 'tools', key: `${m.id}:tools`,
          calls: calls.map((c, i) => {
            const id = String(c.id ?? i);
            const result = results.get(id);
            const live = turn?.tools[id];
            const o = result ? outcome(result.content) : live;
            return {
              id, name: String(c.name ?? '?'),
              args: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
              result: result?.content ?? null,
              status: o ? (o.ok ? 'ok' : 'failed') : turn ? 'running' : 'failed',
              code: o?.code,
            };
          }),
        });
      }
    }
    for (const p of cards) {
      if (p.after === m.sequence) { items.push({ kind: 'proposal', key: p.proposal_id, proposal: p }); placed.add(p.proposal_id); }
    }
  });
  for (const p of cards) if (!placed.has(p.proposal_id)) items.push({ kind: 'proposal', key: p.proposal_id, proposal: p });
  if (turn) {
    if (!turn.messages.some((m) => m.role === 'user')) items.push({ kind: 'user', key: 'pending-user', text: turn.text, pending: true });
    const last = turn.messages.at(-1);
    const answered = last?.role === 'assistant' && !(Array.isArray(last.tool_calls) && last.tool_calls.length);
    if (turn.streaming) items.push({ kind: 'assistant', key: 'streaming', text: turn.streaming, streaming: true });
    else if (!answered) items.push({ kind: 'thinking', key: 'thinking' });
  }
  return items;
}

/** JSON text indented for reading; other text as it is. */
export function pretty(text: string | null): string {
  if (text == null) return '';
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; }
}
