import { AsyncLocalStorage } from 'node:async_hooks';
import type { KernelHandle } from '../../kernel/kernel-handle.js';
import type { Registry } from '../../kernel/registry/registry.js';

/**
 * The kernel of a registry, bound at boot: AI commands run provider calls and tool calls as
 * top-level dispatches (each with its own transaction), which a handler's env cannot start.
 */
const kernels = new WeakMap<Registry, KernelHandle>();

export function bindKernel(kernel: KernelHandle): void {
  kernels.set(kernel.registry, kernel);
}

export function kernelOf(registry: Registry): KernelHandle {
  const k = kernels.get(registry);
  if (!k) throw new Error('the AI app was not booted with this registry');
  return k;
}

/**
 * Where a tool call comes from. A proposal records its conversation and prompt version for the
 * provenance row; tool arguments carry only what the model chose, so this travels beside them.
 */
export interface TurnContext {
  conversation_id: string | null;
  prompt_version_id: string | null;
  source: 'turn' | 'invoke' | 'mcp' | 'api';
  /** What the person wrote in the conversation (turns only): a proposal marks changes it never mentions. */
  asked?: string;
}

export const turnContext = new AsyncLocalStorage<TurnContext>();
