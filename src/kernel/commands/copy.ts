import { canReadField, canWriteField } from '../access.js';
import type { CommandDecl } from '../app.js';
import { toRecord } from '../data/values.js';
import type { Env } from '../env.js';
import { BadRequest } from '../errors.js';
import type { ResolvedModel } from '../registry/model.js';
import { findScoped, targetModel } from './crud.js';

/** What Odoo appends to a duplicate's name, so the copy is told apart from its original in lists. */
export const COPY_SUFFIX = ' (copy)';

/**
 * The values a duplicate starts from: the source's copyable fields (src/kernel/registry/model.ts
 * `copy`) that the caller may write, the record name marked as a copy, then the caller's `values`.
 */
export function copyValues(env: Env, model: ResolvedModel, source: Record<string, unknown>, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of model.fields.values()) {
    if (!f.copy || !canWriteField(model, f, env.principal) || source[f.name] === undefined) continue;
    out[f.name] = source[f.name];
  }
  const name = model.fields.get(model.recordName);
  const current = out[model.recordName];
  if (name && (name.type === 'char' || name.type === 'text') && typeof current === 'string' && current) {
    // a Char keeps its size: the name is shortened rather than the copy refused
    const room = (name.size ?? Infinity) - COPY_SUFFIX.length;
    out[model.recordName] = `${room < current.length ? current.slice(0, Math.max(0, room)) : current}${COPY_SUFFIX}`;
  }
  return { ...out, ...values };
}

/**
 * fw.copy duplicates a record through fw.create, so the create permission, field access, record
 * rules, hooks and validation apply to the copy as to any new record. A model that declares its
 * own create command (a user is registered with a password, a document uploaded with its
 * content) is created through that command, as fw.create_many does: a copy missing what it needs
 * is refused by it (422), never stored half made. The source must be one the caller may read (404
 * otherwise, as for a missing one).
 */
export const copyCommand: CommandDecl = {
  name: 'fw.copy',
  op: 'create',
  description: 'Duplicate a record: { model, id, values? } (values override the copied ones)',
  async handler(env, payload) {
    const model = targetModel(env, payload, 'create');
    const values = payload.values ?? {};
    if (typeof values !== 'object' || values === null || Array.isArray(values)) {
      throw new BadRequest('payload.values must be an object of field values', undefined, 'INVALID_PAYLOAD');
    }
    const row = await findScoped(env, model, payload.id, 'read');
    const source = toRecord(model, row, (f) => !canReadField(model, f, env.principal));
    if (!model.createCommand) return env.dispatch('fw.create', { model: model.key, values: copyValues(env, model, source, values as Record<string, unknown>) });
    // the command takes its declared input only: the copied fields it does not know stay behind
    // (what the caller adds is passed on, and refused there if unknown)
    const input = env.registry.commands.get(model.createCommand)?.inputFields;
    const copied = copyValues(env, model, source, {});
    const known = input ? Object.fromEntries(Object.entries(copied).filter(([name]) => input.has(name))) : copied;
    return env.dispatch(model.createCommand, { ...known, ...(values as Record<string, unknown>) });
  },
};
