/**
 * Tool-call arguments arrive as raw JSON text written by the model, which can be truncated or
 * malformed. The error strings are short and addressed to the model: they are sent back as the
 * tool result so it can retry with corrected arguments.
 */
export type ParsedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

const MAX_REASON = 120;

export function parseToolArguments(raw: string): ParsedArguments {
  // Models call argument-less tools with "" (or whitespace); that means "no arguments".
  if (raw.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `Invalid arguments: not valid JSON (${clip(reason)}). Send one JSON object.` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { ok: false, error: `Invalid arguments: expected a JSON object, got ${kind}.` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function clip(s: string): string {
  return s.length > MAX_REASON ? `${s.slice(0, MAX_REASON - 1)}…` : s;
}
