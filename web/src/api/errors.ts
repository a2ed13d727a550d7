/** An error the API answered on purpose (its stable `code`), or a transport failure. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /**
   * Field errors as field → message: `VALIDATION_FAILED` lists them in `details.errors[]`; a
   * hook's single field error (INVALID_SLUG, INVALID_PROBABILITY, …) names it in `details.field`.
   */
  fieldErrors(): Record<string, string> {
    // shown beside the field's label: the reason alone ("Must be at least 0.", "Required.")
    const out = Object.fromEntries(this.problems().filter((e) => e.field).map((e) => [e.field!, e.reason ? sentence(e.reason.replace(/^is /, '')) : e.message ?? this.message]));
    if (typeof this.details?.field === 'string') out[this.details.field] = sentence(this.message);
    return out;
  }

  /**
   * The field problems as sentences a person reads: "Expected revenue must be at least 0." from
   * the label and reason the server sends beside its key-based message.
   */
  problemSentences(): string[] {
    return this.problems().map((e) => (e.label && e.reason ? sentence(`${e.label} ${e.reason}`) : sentence(e.message ?? this.message)));
  }

  /** The field problems of a VALIDATION_FAILED (`details.errors`): field, code, reason. */
  fieldProblems(): readonly FieldProblem[] {
    return this.problems();
  }

  private problems(): FieldProblem[] {
    return (this.details?.errors as FieldProblem[] | undefined) ?? [];
  }
}

/** One entry of `details.errors` (src/kernel/data/values.ts FieldProblem). */
export interface FieldProblem { field?: string; code?: string; message?: string; label?: string; reason?: string }

/** A server message as a sentence: capital first letter, a full stop at the end. */
export function sentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(first) ? first : `${first}.`;
}

export const NETWORK_ERROR = 'NETWORK_ERROR';
/** The server's answers to an access token it no longer takes (src/kernel/errors.ts): refresh once, then retry. */
export const TOKEN_CODES = new Set(['TOKEN_EXPIRED', 'TOKEN_INVALID', 'UNAUTHENTICATED']);

/** A REST error body `{ error: { code, message, details } }` (uploads and downloads). */
export async function fromResponse(res: Response): Promise<ApiError> {
  try {
    const body = (await res.json()) as { error?: { code: string; message: string; details?: Record<string, unknown> } };
    if (body.error) return new ApiError(body.error.code, body.error.message, res.status, body.error.details);
  } catch { /* not JSON */ }
  return new ApiError(res.status >= 500 ? 'INTERNAL_ERROR' : 'HTTP_' + res.status, res.statusText, res.status);
}
