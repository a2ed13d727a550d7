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
    const errors = (this.details?.errors as Array<{ field?: string; message?: string }> | undefined) ?? [];
    const out = Object.fromEntries(errors.filter((e) => e.field).map((e) => [e.field!, e.message ?? this.message]));
    if (typeof this.details?.field === 'string') out[this.details.field] = this.message;
    return out;
  }
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
