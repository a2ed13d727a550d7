import type { KernelHandle } from '../../kernel/kernel-handle.js';

/**
 * Stopping a running turn (`ai.conversation.cancel`). Each turn holds an AbortController whose
 * signal goes to the provider request, so a cancel aborts the request on the wire (the provider
 * stops generating) and the turn ends with AI_TURN_ABORTED (499), charged nothing beyond the
 * usage the provider reported (budget.ts chargeOf). A tool call already running finishes (it is
 * one command, in its own transaction); the turn stops before the next provider call.
 *
 * The turn may run on another server process than the one the cancel reaches: the cancel aborts
 * the turns of this process at once and is published on the conversation's cancel topic, which
 * every running turn listens to.
 */
const running = new Map<string, Set<AbortController>>();

const keyOf = (tenant: string, conversation: string) => `${tenant}\u0000${conversation}`;
export const cancelTopic = (conversation: string) => `ai.conversation.cancel:${conversation}`;

/** Registers a turn; `release` must be called when it ends, however it ends. */
export async function startRunning(kernel: KernelHandle, tenant: string, conversation: string): Promise<{ signal: AbortSignal; release: () => void }> {
  const controller = new AbortController();
  const key = keyOf(tenant, conversation);
  let set = running.get(key);
  if (!set) running.set(key, (set = new Set()));
  set.add(controller);
  let unsubscribe: (() => void) | null = null;
  try {
    unsubscribe = await kernel.subscribe(tenant, cancelTopic(conversation), () => controller.abort());
  } catch (err) {
    // the turn still runs; only a cancel sent to another process would not reach it
    kernel.log('warn', 'AI turn: cancel subscription failed', { tenant, conversation, err: String(err) });
  }
  return {
    signal: controller.signal,
    release: () => {
      set!.delete(controller);
      if (!set!.size) running.delete(key);
      unsubscribe?.();
    },
  };
}

/** True while a turn of the conversation runs on this process. */
export const isRunningHere = (tenant: string, conversation: string): boolean => (running.get(keyOf(tenant, conversation))?.size ?? 0) > 0;

/**
 * Aborts the conversation's running turns: those of this process now, the others through the
 * cancel topic. `cancelled` when a turn of this process was stopped, else `requested`.
 */
export async function cancelTurns(kernel: KernelHandle, tenant: string, conversation: string): Promise<'cancelled' | 'requested'> {
  const here = [...(running.get(keyOf(tenant, conversation)) ?? [])];
  for (const c of here) c.abort();
  await kernel.publish(tenant, cancelTopic(conversation), { conversation_id: conversation });
  return here.length ? 'cancelled' : 'requested';
}
