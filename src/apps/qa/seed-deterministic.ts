import { systemPrincipal } from '../../kernel/env.js';
import type { Kernel } from '../../kernel/kernel.js';
import { deterministicUuid as kernelUuid } from '../../kernel/canonical.js';

/**
 * The record uuid of a seeded row: a version-8 (custom) UUID from the SHA-256 of the model key
 * and the canonical payload, so reruns on a clean tenant give the same uuids.
 */
export const deterministicUuid = (modelKey: string, payload: Record<string, unknown>): string => kernelUuid(modelKey, payload);

/**
 * The spec's `seed_deterministic(model_key, payload)` fixture for our test runner: writes the row
 * through the command bus as the tenant's system principal (hooks and checks apply) with the
 * deterministic uuid, and returns the record. A row that exists already is returned as it is.
 */
export async function seedDeterministic(kernel: Kernel, tenant: string, modelKey: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
  const id = deterministicUuid(modelKey, payload);
  const sys = systemPrincipal(tenant);
  try {
    return await kernel.dispatch('fw.read_one', { model: modelKey, id }, sys);
  } catch (err) {
    if ((err as { status?: number }).status !== 404) throw err;
  }
  return kernel.dispatch('fw.create', { model: modelKey, values: payload, record_uuid: id }, sys);
}
