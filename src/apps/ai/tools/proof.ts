import type { CommandDecl } from '../../../kernel/app.js';

type Cmd = CommandDecl & { app: string; kernel: boolean; mutates: boolean };

/**
 * The kernel's own commands that only read: the allow-list a read-only proof bottoms out in.
 * Everything else must prove itself through its declared effects.
 */
export const READ_OPERATIONS = new Set(['fw.search', 'fw.read_one', 'fw.count', 'fw.read_group']);

/**
 * Proves that running `name` cannot change state. Returns null when proven, else the path to the
 * first possible mutation ("crm.lead.summary dispatches fw.update, which mutates"). Fails closed:
 * a command without declared effects, or one that says it mutates, counts as mutating. The
 * declared effects are enforced at run time by the kernel (src/kernel/bus/effects.ts), so a
 * handler cannot do more than the proof saw.
 */
export function mutationOf(name: string, commands: ReadonlyMap<string, Cmd>, seen: Set<string> = new Set()): string | null {
  const cmd = commands.get(name);
  if (!cmd) return `${name} is not a registered command`;
  if (seen.has(name)) return null; // a cycle adds nothing the first visit does not check
  seen.add(name);
  if (cmd.kernel) return READ_OPERATIONS.has(name) ? null : `${name} is a kernel write operation`;
  if (cmd.mutates !== false) return `${name} is declared as mutating (mutates is not false)`;
  if (!cmd.effects) return `${name} does not declare its effects (undeclared effects count as mutations)`;
  for (const e of cmd.effects) {
    if ('write' in e) return `${name} writes ${e.write}`;
    if ('emit' in e) return `${name} emits the event ${e.emit}`;
    if ('publish' in e) return `${name} publishes on ${e.publish}`;
    if ('storage' in e && e.storage === 'write') return `${name} writes stored files`;
    if ('network' in e) return `${name} calls ${e.network} outside the process`;
    if ('dispatch' in e) {
      const inner = mutationOf(e.dispatch, commands, seen);
      if (inner) return `${name} dispatches ${inner}`;
    }
  }
  return null;
}
