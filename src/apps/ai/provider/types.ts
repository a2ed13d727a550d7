/**
 * The provider contract of the AI layer: one chat turn against a chat-completions style model.
 * The shapes follow the OpenAI wire format (snake_case, `tool_calls`, `tool_call_id`) so that
 * messages can be stored and replayed without a translation layer.
 */

export type JsonSchema = Record<string, unknown>;

export interface ToolCall {
  id: string;
  name: string;
  /** raw JSON text as the model produced it (may be invalid) */
  arguments: string;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ToolCall[]; // assistant messages
  tool_call_id?: string; // tool messages
}

export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** upper bound of output tokens (sent as max_tokens / max_completion_tokens) */
  max_tokens: number;
  signal?: AbortSignal;
  /** streamed text deltas, in order */
  onToken?: (delta: string) => void;
}

export interface ChatResult {
  message: ChatMessage; // role 'assistant'; tool_calls reassembled from the stream
  usage: Usage | null; // null when the stream ended without a usage chunk
  finish_reason: string | null; // 'stop' | 'tool_calls' | 'length' | ...
  model: string;
}

export interface AiProvider {
  readonly id: string;
  readonly model: string;
  chat(req: ChatRequest): Promise<ChatResult>;
}

export interface ProviderConfig {
  id: string;
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
  maxRetries?: number;
}
