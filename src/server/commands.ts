import { BadRequest, NotFound } from '../kernel/errors.js';
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

/**
 * A client's payload for a command that reads a page of records, bounded as the list routes bound
 * theirs: `fw.search` named over `POST /api/command/fw.search` or GraphQL's `command` mutation read
 * every matching record when it had no limit, and any number when it had one (`limit: 100000`
 * answered all 250 countries; a table of a million rows would have been read whole). Without a
 * limit it reads the default page size; over the maximum it is 400 PAGE_TOO_LARGE. Commands that
 * dispatch fw.search themselves (in process) are not bounded here.
 */
export function publicPayload(name: string, payload: Record<string, unknown>, limits: { defaultLimit: number; maxLimit: number }): Record<string, unknown> {
  if (name !== 'fw.search') return payload;
  const limit = payload.limit;
  if (limit === undefined || limit === null) return { ...payload, limit: limits.defaultLimit };
  // what is no page size at all (1e300, -5, "x") is the command's own INVALID_PAGING
  if (Number.isSafeInteger(limit) && (limit as number) > limits.maxLimit) {
    throw new BadRequest(`limit may be at most ${limits.maxLimit}`, { parameter: 'limit', max: limits.maxLimit }, 'PAGE_TOO_LARGE');
  }
  return payload;
}
