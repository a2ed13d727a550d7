import { FwError } from '../../../kernel/errors.js';
import type { Usage } from './types.js';

/**
 * What the provider produced before a turn failed. Kept off `details` on purpose: `details` is
 * sent to clients by `toErrorBody`, while this is for the caller's bookkeeping (settling a budget
 * reservation, keeping the text already shown to the user).
 */
export interface PartialOutput {
  text: string;
  usage: Usage | null;
  /** Some answer arrived (text or a tool call's fragment) before the failure. */
  received: boolean;
}

/** Base of the provider failures; `partial` is set when the failure happened mid-stream. */
export class ProviderError extends FwError {
  partial?: PartialOutput;
}

/** Network error, timeout, stalled or cut stream, 5xx once the SDK's retries are spent. */
export class ProviderUnavailable extends ProviderError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('AI_PROVIDER_UNAVAILABLE', 502, message, details);
  }
}

/** 429 once the SDK's retries are spent; 503 so our clients treat it as "try again later". */
export class ProviderRateLimited extends ProviderError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('AI_PROVIDER_RATE_LIMITED', 503, message, details);
  }
}

/**
 * 401/403 from the provider: a server-side misconfiguration, hence 502 and not 401 (the end user
 * is authenticated fine). The provider's own message is never passed on: OpenAI's echoes part of
 * the key.
 */
export class ProviderAuthFailed extends ProviderError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('AI_PROVIDER_AUTH_FAILED', 502, message, details);
  }
}

/** The provider answered, but not with something usable (other 4xx, malformed stream). */
export class ProviderBadResponse extends ProviderError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('AI_PROVIDER_BAD_RESPONSE', 502, message, details);
  }
}

/** The caller's AbortSignal fired. 499 = "client closed request" (nginx convention). */
export class TurnAborted extends FwError {
  readonly partial: PartialOutput;

  constructor(partial: PartialOutput, message = 'The AI turn was aborted') {
    super('AI_TURN_ABORTED', 499, message);
    this.partial = partial;
  }
}
