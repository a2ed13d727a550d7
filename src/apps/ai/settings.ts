import { BootError } from '../../kernel/errors.js';
import { defineSettings, type Settings } from '../../kernel/settings.js';
import { allowList } from './provider/endpoints.js';

/** Every AI setting of the spec ("Limits", "Other AI settings") plus the provider's own. */
const table = defineSettings('ai', {
  AI_ENABLED: { kind: 'bool', default: 'false', doc: 'Loads the AI layer (`src/features/ai.ts`): its models, commands, `/api/ai/*`, `/mcp`, GraphQL fields and tools. Off, none of them exist.' },
  AI_DEFAULT_PROVIDER: { kind: 'string', default: 'provider_a', doc: 'Provider used when no routing rule matches; must be in AI_ALLOWED_PROVIDERS (checked at boot).' },
  AI_ALLOWED_PROVIDERS: { kind: 'list', default: 'provider_a', doc: 'Providers a call may use. `provider_a` is any OpenAI-compatible chat-completions endpoint.' },
  AI_BYO_KEY_REQUIRED: { kind: 'bool', default: 'true', doc: 'Each tenant stores its own provider key in `ai.provider.config` (encrypted); the server-wide key settings are then ignored.' },
  AI_PROVIDER_A_BASE_URL: { kind: 'string', default: 'https://api.openai.com/v1', doc: 'Endpoint of `provider_a` when the tenant\'s `ai.provider.config` gives none.' },
  AI_PROVIDER_URL_ALLOWLIST: { kind: 'list', default: '', doc: 'Endpoints a tenant\'s `ai.provider.config.base_url` may name, comma-separated: origins (`https://llm.example.com`, `http://10.0.0.5:8080`; scheme, host and port must match) or host patterns (`llm.example.com`, `*.openai.azure.com`; https on port 443 only). The origin of AI_PROVIDER_A_BASE_URL is always allowed. Empty = only that origin, plus loopback addresses (127.0.0.0/8, ::1, localhost) when NODE_ENV is not `production`. Checked when a config is written (AI_PROVIDER_URL_NOT_ALLOWED) and again before every call.' },
  AI_PROVIDER_A_MODEL: { kind: 'string', default: 'gpt-4o-mini', doc: 'Model of `provider_a` when neither the routing rule nor the tenant config names one.' },
  AI_PROVIDER_A_API_KEY: { kind: 'string', default: '', doc: 'Server-wide key of `provider_a`, used only when AI_BYO_KEY_REQUIRED is false.' },
  AI_PROVIDER_TIMEOUT_MS: { kind: 'int', default: '60000', doc: 'Timeout of one provider request, and of the silence of a stream between two chunks (each retry gets its own: with the defaults a provider that never answers fails the turn after about 3 minutes; a turn can be stopped sooner with ai.conversation.cancel).' },
  AI_PROVIDER_MAX_RETRIES: { kind: 'int', default: '2', doc: 'Retries of a provider request on 429, 5xx and connection errors (with backoff).' },
  AI_MAX_TOOL_ITERATIONS: { kind: 'int', default: '8', doc: 'Tool calls per invocation or turn; the turn ends with what it has after that.' },
  AI_MAX_OUTPUT_TOKENS: { kind: 'int', default: '1024', doc: 'Output tokens asked of the provider per call; also what a budget reservation holds for the answer. Near a cap the call asks for fewer (down to AI_MIN_OUTPUT_TOKENS).' },
  AI_MIN_OUTPUT_TOKENS: { kind: 'int', default: '128', min: 1, doc: 'The minimal answer: when the remaining budget cannot hold AI_MAX_OUTPUT_TOKENS, a call asks for what it can hold, and is refused (BUDGET_EXCEEDED) only below this many output tokens (or AI_MAX_OUTPUT_TOKENS when that is smaller).' },
  AI_DAILY_BUDGET_USD: { kind: 'number', default: '10', doc: 'Spend cap per tenant per UTC day, in USD; 0 = uncapped (the spec\'s default; here an explicit choice). Enforced by reservation before each call (BUDGET_EXCEEDED).' },
  AI_USER_DAILY_BUDGET_USD: { kind: 'number', default: '2', doc: 'Spend cap per user per UTC day, in USD, for users without their own `ai.user.quota.daily_usd`; 0 = none. Enforced with the tenant cap (BUDGET_EXCEEDED, scope `user`).' },
  AI_MAX_MESSAGE_CHARS: { kind: 'int', default: '16000', min: 1, doc: 'Longest message a person may send (characters); longer is refused with 413 AI_MESSAGE_TOO_LONG before anything is stored or sent.' },
  AI_WRITE_DAILY_CAP_RECORDS_PER_USER: { kind: 'int', default: '0', doc: 'Confirmed AI writes per user per day; 0 = unlimited.' },
  AI_WRITE_DAILY_CAP_PER_TOOL: { kind: 'int', default: '0', doc: 'Confirmed AI writes per tool per tenant per day; 0 = unlimited.' },
  AI_WRITE_CONFIRM_TOKEN_TTL_SECONDS: { kind: 'int', default: '300', doc: 'Lifetime of a write confirmation token.' },
  AI_WRITE_TOOLS_ALLOWLIST: { kind: 'list', default: '', doc: 'Proposer tools whose writes may be confirmed; empty = none.' },
  AI_PII_REDACTION_ENABLED: { kind: 'bool', default: 'false', doc: 'Look for payment cards (Luhn), IBANs (mod 97), e-mails and phone numbers in prompts and tool results.' },
  AI_PII_REDACTION_MODE: { kind: 'string', default: 'strict', doc: '`strict` blocks the call (AI_PII_BLOCKED), `mask` rewrites the text (`[card]`, `[iban]`, …), `warn` only logs and flags the message.' },
  AI_INJECTION_DETECTION_ENABLED: { kind: 'bool', default: 'true', doc: 'Score prompts and tool results for prompt injection (0–100).' },
  AI_INJECTION_DETECTION_THRESHOLD: { kind: 'int', default: '60', doc: 'Score (0–100) from which a prompt is refused (AI_INJECTION_DETECTED) and a tool result is withheld from the model.' },
  AI_OUTPUT_VALIDATION_MODE: { kind: 'string', default: 'warn', doc: '`warn` logs and flags tool arguments that break their schema, `strict` refuses them (the model is told why), `disabled` skips the check.' },
  AI_DATA_RESIDENCY_STRICT: { kind: 'bool', default: 'false', doc: 'Refuse any provider not in AI_DATA_RESIDENCY_ALLOWED_PROVIDERS (AI_RESIDENCY_REFUSED).' },
  AI_DATA_RESIDENCY_ALLOWED_PROVIDERS: { kind: 'list', default: '', doc: 'Providers allowed when AI_DATA_RESIDENCY_STRICT is true.' },
});

export type AiSettings = ReturnType<typeof table>;

const MODES = { AI_PII_REDACTION_MODE: ['strict', 'mask', 'warn'], AI_OUTPUT_VALIDATION_MODE: ['warn', 'strict', 'disabled'] } as const;

export function aiSettings(settings: Settings): AiSettings {
  return table(settings);
}

/** Boot-time checks: a misconfigured AI layer refuses to start instead of failing per call. */
export function checkAiSettings(settings: Settings): void {
  const s = table(settings);
  if (!s.AI_ALLOWED_PROVIDERS.includes(s.AI_DEFAULT_PROVIDER)) {
    throw new BootError(`AI_DEFAULT_PROVIDER "${s.AI_DEFAULT_PROVIDER}" is not in AI_ALLOWED_PROVIDERS (${s.AI_ALLOWED_PROVIDERS.join(', ') || 'empty'})`, undefined, 'AI_SETTINGS_INVALID');
  }
  for (const [name, allowed] of Object.entries(MODES)) {
    const v = s[name as keyof typeof MODES];
    if (!(allowed as readonly string[]).includes(v)) throw new BootError(`${name}="${v}" must be one of ${allowed.join(', ')}`, undefined, 'AI_SETTINGS_INVALID');
  }
  const t = s.AI_INJECTION_DETECTION_THRESHOLD;
  if (t < 0 || t > 100) throw new BootError(`AI_INJECTION_DETECTION_THRESHOLD=${t} must be between 0 and 100`, undefined, 'AI_SETTINGS_INVALID');
  if (s.AI_MAX_TOOL_ITERATIONS < 0) throw new BootError('AI_MAX_TOOL_ITERATIONS must be 0 or more', undefined, 'AI_SETTINGS_INVALID');
  if (s.AI_DAILY_BUDGET_USD < 0) throw new BootError('AI_DAILY_BUDGET_USD must be 0 (uncapped) or more', undefined, 'AI_SETTINGS_INVALID');
  if (s.AI_USER_DAILY_BUDGET_USD < 0) throw new BootError('AI_USER_DAILY_BUDGET_USD must be 0 (none) or more', undefined, 'AI_SETTINGS_INVALID');
  allowList(settings);
}
