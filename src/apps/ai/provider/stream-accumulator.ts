import type OpenAI from 'openai';
import { ProviderBadResponse, type PartialOutput } from './errors.js';
import type { ChatMessage, ChatResult, ToolCall, Usage } from './types.js';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type ToolCallDelta = NonNullable<Chunk['choices'][number]['delta']['tool_calls']>[number];

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Folds a chat-completions stream into one assistant message. Tool calls arrive as deltas keyed
 * by `index`: id and name in the first one, the arguments in text fragments after it.
 */
export class StreamAccumulator {
  private text = '';
  private usage: Usage | null = null;
  private finishReason: string | null = null;
  private model: string | null = null;
  private sawChoice = false;
  private readonly calls = new Map<number, PendingCall>();

  /** Takes one chunk; returns its content delta ('' when none) for `onToken`. */
  add(chunk: Chunk): string {
    if (chunk.model) this.model = chunk.model;
    // With include_usage the usage comes in a final chunk with no choices, and as `null` on the
    // others; some compatible servers repeat a running total instead. The last one seen wins.
    if (chunk.usage) {
      this.usage = { input_tokens: chunk.usage.prompt_tokens ?? 0, output_tokens: chunk.usage.completion_tokens ?? 0 };
    }
    // We never ask for n > 1, so only the first choice exists.
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return '';
    this.sawChoice = true;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    for (const delta of choice.delta?.tool_calls ?? []) this.addToolCallDelta(delta);
    const content = choice.delta?.content ?? '';
    this.text += content;
    return content;
  }

  partial(): PartialOutput {
    return { text: this.text, usage: this.usage, received: this.text !== '' || this.calls.size > 0 };
  }

  result(fallbackModel: string, provider: string): ChatResult {
    if (!this.sawChoice) {
      throw new ProviderBadResponse(`AI provider "${provider}" ended the stream without an answer`, { provider });
    }
    const toolCalls: ToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => {
        if (!call.name) {
          throw new ProviderBadResponse(`AI provider "${provider}" sent a tool call without a name`, { provider });
        }
        // A few compatible servers omit ids; the id only has to match the tool result we send back.
        return { id: call.id || `call_${index}`, name: call.name, arguments: call.arguments };
      });
    const message: ChatMessage = { role: 'assistant', content: this.text === '' ? null : this.text };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    return { message, usage: this.usage, finish_reason: this.finishReason, model: this.model ?? fallbackModel };
  }

  private addToolCallDelta(delta: ToolCallDelta): void {
    const index = this.indexOf(delta);
    let call = this.calls.get(index);
    if (!call) {
      call = { id: '', name: '', arguments: '' };
      this.calls.set(index, call);
    }
    if (delta.id) call.id = delta.id;
    if (delta.function?.name) call.name = delta.function.name;
    if (delta.function?.arguments) call.arguments += delta.function.arguments;
  }

  /** `index` is required by the spec, but some servers drop it: fall back to id, then to the last call. */
  private indexOf(delta: ToolCallDelta): number {
    if (typeof delta.index === 'number') return delta.index;
    for (const [index, call] of this.calls) if (delta.id && call.id === delta.id) return index;
    if (delta.id || this.calls.size === 0) return this.calls.size;
    return Math.max(...this.calls.keys());
  }
}
