import { NotFound } from '../kernel/errors.js';
import type { Registry } from '../kernel/registry/registry.js';

/**
 * Commands a client may name over HTTP or GraphQL: internal ones (in-process payloads) and
 * file-upload ones (fed by their own transport) are refused as if they did not exist.
 */
export function publicCommandName(registry: Registry, name: string): string {
  const cmd = registry.commands.get(name);
  if (cmd?.internal || cmd?.file_upload) throw new NotFound(`Unknown command "${name}"`, { command: name }, 'UNKNOWN_COMMAND');
  return name;
}
