import type { FastifyInstance } from 'fastify';
import { BadRequest } from '../kernel/errors.js';

/**
 * JSON nested deeper than this is refused before any handler walks it: every layer after the
 * parser (domain translation, config flattening, error messages, Prisma's own recursion limit of
 * 128) recurses over it, and thousands of levels overflow the stack (a 500).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Request data the databases cannot hold or the server cannot walk: JSON nested deeper than
 * MAX_JSON_DEPTH, and text with a NUL character (U+0000), which PostgreSQL stores in no text,
 * varchar or jsonb column (refused on both engines, so they agree). Iterative, so the check
 * itself cannot overflow. Throws 400 INVALID_JSON (depth) or BAD_REQUEST (NUL) naming `where`.
 */
export function checkRequestData(value: unknown, where: string, code = 'INVALID_JSON'): void {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) throw new BadRequest(`text in the ${where} may not contain the NUL character (U+0000)`, { where }, 'BAD_REQUEST');
      continue;
    }
    if (v === null || typeof v !== 'object' || Buffer.isBuffer(v) || typeof (v as { pipe?: unknown }).pipe === 'function') continue;
    if (depth >= MAX_JSON_DEPTH) throw new BadRequest(`the ${where} nests deeper than ${MAX_JSON_DEPTH} levels`, { where, max_depth: MAX_JSON_DEPTH }, code);
    if (Array.isArray(v)) {
      for (const x of v) stack.push([x, depth + 1]);
    } else {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes('\u0000')) throw new BadRequest(`text in the ${where} may not contain the NUL character (U+0000)`, { where }, 'BAD_REQUEST');
        stack.push([x, depth + 1]);
      }
    }
  }
}

/** Checks every parsed body and query string (binary uploads arrive as streams and are not looked at). */
export function installInputChecks(server: FastifyInstance): void {
  server.addHook('preValidation', async (req) => {
    checkRequestData(req.query, 'query string');
    checkRequestData(req.body, 'request body');
  });
}
