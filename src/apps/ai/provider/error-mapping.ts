import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, OpenAIError } from 'openai';
import {
  ProviderAuthFailed,
  ProviderBadResponse,
  ProviderError,
  ProviderRateLimited,
  ProviderUnavailable,
  TurnAborted,
  type PartialOutput,
} from './errors.js';

export interface ErrorContext {
  provider: string;
  apiKey: string;
  timeoutMs: number;
  signal?: AbortSignal;
  partial: PartialOutput;
}

/** Wraps an exception thrown by the caller's `onToken`, so it is rethrown as is, never relabelled. */
export class CallbackFailure {
  constructor(readonly cause: unknown) {}
}

/**
 * Turns whatever the SDK (or the transport under it) threw into our stable error codes. By the
 * time this runs the SDK has already spent its retries. Unknown errors are returned unchanged:
 * they are bugs, and `toErrorBody` masks them as INTERNAL_ERROR.
 */
export function toProviderError(err: unknown, ctx: ErrorContext): unknown {
  if (err instanceof CallbackFailure) return err.cause;
  // Checked first: an abort surfaces as several SDK errors (or as none, see openai-compatible.ts).
  if (ctx.signal?.aborted || err instanceof APIUserAbortError) return new TurnAborted(ctx.partial);
  const mapped = classify(err, ctx);
  if (!mapped) return err;
  mapped.partial = ctx.partial;
  return mapped;
}

function classify(err: unknown, ctx: ErrorContext): ProviderError | null {
  const { provider } = ctx;
  if (err instanceof ProviderError) return err;
  if (err instanceof APIConnectionTimeoutError) {
    return new ProviderUnavailable(`AI provider "${provider}" did not answer within ${ctx.timeoutMs} ms`, { provider });
  }
  if (err instanceof APIConnectionError) {
    return new ProviderUnavailable(`AI provider "${provider}" could not be reached`, { provider });
  }
  if (err instanceof APIError) return fromStatus(err, ctx);
  // The SDK throws SyntaxError for an SSE event whose data is not JSON.
  if (err instanceof SyntaxError || err instanceof OpenAIError) {
    return new ProviderBadResponse(`AI provider "${provider}" sent a malformed response`, { provider });
  }
  if (isConnectionLoss(err)) {
    return new ProviderUnavailable(`AI provider "${provider}" dropped the connection mid-response`, { provider });
  }
  return null;
}

function fromStatus(err: APIError, ctx: ErrorContext): ProviderError {
  const { provider } = ctx;
  const status = err.status;
  if (status === 401 || status === 403) {
    // The provider's text is dropped on purpose: OpenAI's 401 message quotes part of the key.
    return new ProviderAuthFailed(`AI provider "${provider}" rejected its credentials (HTTP ${status})`, { provider, status });
  }
  if (status === 429) {
    const retryAfter = Number(err.headers?.get('retry-after'));
    const details: Record<string, unknown> = { provider, status };
    if (Number.isFinite(retryAfter) && retryAfter > 0) details.retry_after_seconds = retryAfter;
    return new ProviderRateLimited(`AI provider "${provider}" is rate limiting requests`, details);
  }
  const said = providerText(err, ctx.apiKey);
  if (status === undefined) {
    // An `error` event inside an already-started stream (e.g. the model server overloaded).
    return new ProviderUnavailable(`AI provider "${provider}" failed mid-stream: ${said}`, { provider });
  }
  if (status >= 500 || status === 408 || status === 409) {
    return new ProviderUnavailable(`AI provider "${provider}" failed (HTTP ${status})`, { provider, status });
  }
  // Other 4xx: the provider refused this request (context too long, unknown model, bad schema…).
  // `provider_code` lets the caller react, e.g. to 'context_length_exceeded'.
  const details: Record<string, unknown> = { provider, status };
  if (typeof err.code === 'string') details.provider_code = err.code;
  return new ProviderBadResponse(`AI provider "${provider}" refused the request (HTTP ${status}): ${said}`, details);
}

const MAX_PROVIDER_TEXT = 300;

/** The provider's own error text, clipped and with the key blanked out in case it is echoed. */
function providerText(err: APIError, apiKey: string): string {
  const body = err.error as { message?: unknown } | undefined;
  let text = typeof body?.message === 'string' ? body.message : err.message;
  if (apiKey.length >= 8) text = text.split(apiKey).join('[redacted]');
  return text.length > MAX_PROVIDER_TEXT ? `${text.slice(0, MAX_PROVIDER_TEXT - 1)}…` : text;
}

/** undici reports a socket closed mid-body as `TypeError: terminated` (cause: SocketError). */
function isConnectionLoss(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && (code.startsWith('UND_ERR') || code.startsWith('ECONN') || code === 'EPIPE')) return true;
  return err instanceof TypeError && err.message === 'terminated';
}
