import OpenAI from 'openai';
import { CallbackFailure, toProviderError } from './error-mapping.js';
import { ProviderError, ProviderUnavailable, TurnAborted } from './errors.js';
import { StreamAccumulator } from './stream-accumulator.js';
import type { AiProvider, ChatMessage, ChatRequest, ChatResult, ProviderConfig } from './types.js';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type StreamingParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;

export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

export interface OpenAiCompatibleOptions {
  /**
   * How the output-token bound is sent. api.openai.com rejects `max_tokens` for its reasoning
   * models, while many compatible servers only know `max_tokens`. Default: by host.
   */
  maxTokensField?: MaxTokensField;
}

/**
 * An AiProvider over any OpenAI-compatible chat-completions endpoint, through the official SDK.
 * Retries (429, 408, 409, 5xx, connection errors; exponential back-off from 0.5 s, honouring
 * `retry-after[-ms]`) and the request timeout are the SDK's own. They only apply until the
 * response headers arrive: a stream that stops sending is caught by the idle guard below.
 */
export function createOpenAiCompatibleProvider(cfg: ProviderConfig, options: OpenAiCompatibleOptions = {}): AiProvider {
  const timeoutMs = cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const client = new OpenAI({
    baseURL: cfg.baseURL,
    // Local servers (Ollama, llama.cpp) need no key, but the SDK refuses to start without one.
    apiKey: cfg.apiKey || 'no-key',
    // Explicit nulls: otherwise the SDK picks OPENAI_ORG_ID / OPENAI_PROJECT_ID / OPENAI_ADMIN_KEY
    // up from the environment and would send them to whatever host baseURL points at.
    organization: null,
    project: null,
    adminAPIKey: null,
    timeout: timeoutMs,
    maxRetries: cfg.maxRetries ?? DEFAULT_MAX_RETRIES,
  });
  const maxTokensField = options.maxTokensField ?? defaultMaxTokensField(cfg.baseURL);

  return {
    id: cfg.id,
    model: cfg.model,
    chat: (req) => runTurn(client, cfg, timeoutMs, maxTokensField, req),
  };
}

async function runTurn(
  client: OpenAI,
  cfg: ProviderConfig,
  timeoutMs: number,
  maxTokensField: MaxTokensField,
  req: ChatRequest,
): Promise<ChatResult> {
  const acc = new StreamAccumulator();
  try {
    const stream = await client.chat.completions.create(requestBody(cfg.model, req, maxTokensField), { signal: req.signal });
    await drain(stream, acc, req.onToken, timeoutMs, cfg.id);
  } catch (err) {
    throw toProviderError(err, { provider: cfg.id, apiKey: cfg.apiKey, timeoutMs, signal: req.signal, partial: acc.partial() });
  }
  // The SDK ends the iteration quietly, without an error, when the signal aborts mid-stream.
  if (req.signal?.aborted) throw new TurnAborted(acc.partial());
  try {
    return acc.result(cfg.model, cfg.id);
  } catch (err) {
    // what did arrive is the caller's bookkeeping too (an empty stream costs nothing)
    if (err instanceof ProviderError) err.partial = acc.partial();
    throw err;
  }
}

/** Reads the stream into `acc`, aborting it when nothing arrives for `idleMs`. */
async function drain(
  stream: AsyncIterable<Chunk> & { controller: AbortController },
  acc: StreamAccumulator,
  onToken: ((delta: string) => void) | undefined,
  idleMs: number,
  provider: string,
): Promise<void> {
  let stalled = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      stream.controller.abort();
    }, idleMs);
  };
  const stalledError = () =>
    new ProviderUnavailable(`AI provider "${provider}" stopped sending for ${idleMs} ms mid-response`, { provider });
  arm();
  try {
    for await (const chunk of stream) {
      arm();
      const delta = acc.add(chunk);
      if (delta && onToken) {
        try {
          onToken(delta);
        } catch (err) {
          throw new CallbackFailure(err);
        }
      }
    }
  } catch (err) {
    throw stalled ? stalledError() : err;
  } finally {
    clearTimeout(timer);
  }
  if (stalled) throw stalledError();
}

function requestBody(model: string, req: ChatRequest, maxTokensField: MaxTokensField): StreamingParams {
  const body: StreamingParams = {
    model,
    messages: req.messages.map(toWireMessage),
    stream: true,
    stream_options: { include_usage: true },
    ...(maxTokensField === 'max_tokens' ? { max_tokens: req.max_tokens } : { max_completion_tokens: req.max_tokens }),
  };
  // Several compatible servers reject `tools: []`, so no tools means no field at all.
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
  return body;
}

function toWireMessage(m: ChatMessage): WireMessage {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content ?? '' };
    case 'user':
      return { role: 'user', content: m.content ?? '' };
    case 'tool':
      if (!m.tool_call_id) throw new TypeError('A tool message needs the tool_call_id it answers');
      return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content ?? '' };
    case 'assistant': {
      const out: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam = { role: 'assistant', content: m.content };
      // An empty `tool_calls` array is rejected by OpenAI, so it is only sent when non-empty.
      if (m.tool_calls?.length) {
        out.tool_calls = m.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
      }
      return out;
    }
  }
}

function defaultMaxTokensField(baseURL: string): MaxTokensField {
  try {
    return new URL(baseURL).hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens';
  } catch {
    return 'max_tokens'; // the SDK itself rejects an unparsable URL on the first request
  }
}
