/**
 * A scripted OpenAI-compatible chat-completions server for tests and benchmarks: real HTTP on
 * 127.0.0.1 (port 0), so the real SDK, its retries, timeouts and SSE parsing are exercised.
 *
 * Each `POST /v1/chat/completions` takes the next queued Step (or, in instant mode, asks
 * `respond(body)` for one). A Step says what to answer: text, tool calls, an HTTP error, and how
 * to misbehave (delay the headers, cut the socket, stall mid-stream).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ScriptedToolCall {
  /** default `call_<n>` */
  id?: string;
  name: string;
  /** sent verbatim, split into fragments: it may be invalid JSON on purpose */
  arguments: string;
}

interface Timing {
  /** wait this long before sending the response headers (to provoke client timeouts) */
  delayMs?: number;
}

interface ReplyShape extends Timing {
  /** how many deltas each text / each argument string is split into (default 3) */
  pieces?: number;
  /** streamed as the final chunk only when the request asked `stream_options.include_usage` */
  usage?: ScriptedUsage;
  /** default 'stop' for text, 'tool_calls' for tool calls */
  finish_reason?: string;
  /** `model` of the answer (default: the requested one) */
  model?: string;
  /** streaming only: destroy the socket after this many SSE events */
  cutAfter?: number;
  /** streaming only: send this many SSE events, then stay silent until the client goes away */
  stallAfter?: number;
  /** streaming only: pause between SSE events */
  chunkDelayMs?: number;
}

export type TextStep = { kind: 'text'; text: string } & ReplyShape;
export type ToolCallsStep = {
  kind: 'tool_calls';
  calls: ScriptedToolCall[];
  /** text streamed before the calls */
  text?: string;
  /** send the calls' fragments round-robin instead of one call after the other */
  interleave?: boolean;
} & ReplyShape;
export type ErrorStep = {
  kind: 'error';
  status: number;
  message?: string;
  type?: string;
  code?: string | null;
  /** e.g. `{ 'retry-after-ms': '5' }` to keep the SDK's back-off short in tests */
  headers?: Record<string, string>;
} & Timing;
export type Step = TextStep | ToolCallsStep | ErrorStep;

export const textStep = (text: string, opts: ReplyShape = {}): TextStep => ({ kind: 'text', text, ...opts });
export const toolCallsStep = (calls: ScriptedToolCall[], opts: Omit<ToolCallsStep, 'kind' | 'calls'> = {}): ToolCallsStep => ({
  kind: 'tool_calls',
  calls,
  ...opts,
});
export const errorStep = (status: number, opts: Omit<ErrorStep, 'kind' | 'status'> = {}): ErrorStep => ({ kind: 'error', status, ...opts });

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** the parsed JSON body */
  body: any;
}

export interface ScriptedLlmOptions {
  /** instant mode (benchmarks): every request is answered by `respond(body)`, the queue is unused */
  respond?: (body: any) => Step;
  /** keep every request in `requests` (default true; turn off for long benchmark runs) */
  record?: boolean;
}

export interface ScriptedLlm {
  /** base URL, ending in /v1 */
  url: string;
  push(...steps: Step[]): void;
  /** steps queued and not consumed yet */
  pending(): number;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export async function startScriptedLlm(options: ScriptedLlmOptions = {}): Promise<ScriptedLlm> {
  const queue: Step[] = [];
  const requests: ReceivedRequest[] = [];
  let seen = 0;

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) sendError(res, 500, `scripted LLM crashed: ${String(err)}`);
      else res.destroy();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return sendError(res, 404, `scripted LLM: no route ${req.method} ${path}`, { 'x-should-retry': 'false' });
    }
    const raw = await readBody(req);
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return sendError(res, 400, 'scripted LLM: request body is not JSON', { 'x-should-retry': 'false' });
    }
    seen += 1;
    if (options.record !== false) requests.push({ method: req.method, path, headers: req.headers, body });
    const step = options.respond ? options.respond(body) : queue.shift();
    if (!step) {
      // x-should-retry: false so the SDK does not retry and hide the message behind back-off.
      return sendError(res, 500, `scripted LLM: no step queued for request #${seen} (push() one more Step)`, {
        'x-should-retry': 'false',
      });
    }
    if (step.delayMs && !(await waitWhileConnected(res, step.delayMs))) return;
    if (step.kind === 'error') {
      return sendError(res, step.status, step.message ?? `scripted error ${step.status}`, step.headers ?? {}, step);
    }
    if (body.stream === true) {
      const includeUsage = body.stream_options?.include_usage === true;
      return streamReply(res, step, streamEvents(step, includeUsage, step.model ?? body.model));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion(step, step.model ?? body.model)));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    push: (...steps) => void queue.push(...steps),
    pending: () => queue.length,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Stalled streams and keep-alive sockets would otherwise keep close() waiting.
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

// ---- responses --------------------------------------------------------------------------------

function sendError(
  res: http.ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  step?: ErrorStep,
): void {
  const type = step?.type ?? (status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_request_error' : 'server_error');
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { message, type, param: null, code: step?.code ?? null } }));
}

async function streamReply(res: http.ServerResponse, step: TextStep | ToolCallsStep, events: string[]): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const sse = events.map((data) => `data: ${data}\n\n`);
  const paced = step.cutAfter !== undefined || step.stallAfter !== undefined || step.chunkDelayMs !== undefined;
  if (!paced) return void res.end(sse.join('')); // one write: the fast path for benchmarks
  res.flushHeaders();
  for (let i = 0; i < sse.length; i++) {
    if (i === step.cutAfter) return void res.socket?.destroy();
    if (i === step.stallAfter) return; // left open; the client aborts or close() destroys it
    if (res.destroyed) return;
    await new Promise<void>((resolve) => res.write(sse[i], () => resolve()));
    if (step.chunkDelayMs && !(await waitWhileConnected(res, step.chunkDelayMs))) return;
  }
  res.end();
}

/** The SSE `data:` payloads of one streamed answer, `[DONE]` included. */
function streamEvents(step: TextStep | ToolCallsStep, includeUsage: boolean, model: string): string[] {
  const id = `chatcmpl-scripted-${Math.random().toString(36).slice(2, 10)}`;
  const created = Math.floor(Date.now() / 1000);
  // Like OpenAI: with include_usage every chunk carries `usage: null` until the final one.
  const chunk = (choices: unknown[], usage: unknown = null) =>
    JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...(includeUsage ? { usage } : {}) });
  const delta = (d: Record<string, unknown>, finish_reason: string | null = null) => chunk([{ index: 0, delta: d, logprobs: null, finish_reason }]);

  const events = [delta({ role: 'assistant', content: '' })];
  const text = step.kind === 'text' ? step.text : (step.text ?? '');
  for (const piece of split(text, step.pieces)) events.push(delta({ content: piece }));
  if (step.kind === 'tool_calls') {
    const perCall = step.calls.map((call, index) => [
      { index, id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: '' } },
      ...split(call.arguments, step.pieces).map((fragment) => ({ index, function: { arguments: fragment } })),
    ]);
    const ordered = step.interleave ? roundRobin(perCall) : perCall.flat();
    for (const toolCall of ordered) events.push(delta({ tool_calls: [toolCall] }));
  }
  events.push(delta({}, finishReason(step)));
  if (includeUsage && step.usage) events.push(chunk([], withTotal(step.usage)));
  events.push('[DONE]');
  return events;
}

/** The non-streaming `chat.completion` object for the same Step. */
function completion(step: TextStep | ToolCallsStep, model: string): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: step.kind === 'text' ? step.text : (step.text ?? null) };
  if (step.kind === 'tool_calls') {
    message.tool_calls = step.calls.map((c, i) => ({
      id: c.id ?? `call_${i}`,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return {
    id: `chatcmpl-scripted-${Math.random().toString(36).slice(2, 10)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(step) }],
    ...(step.usage ? { usage: withTotal(step.usage) } : {}),
  };
}

// ---- utilities --------------------------------------------------------------------------------

const finishReason = (step: TextStep | ToolCallsStep) => step.finish_reason ?? (step.kind === 'tool_calls' ? 'tool_calls' : 'stop');
const withTotal = (u: ScriptedUsage) => ({ ...u, total_tokens: u.prompt_tokens + u.completion_tokens });

/** Splits into at most `pieces` non-empty parts, never inside a code point. */
function split(text: string, pieces = 3): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const size = Math.ceil(chars.length / Math.max(1, pieces));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

function roundRobin<T>(lists: T[][]): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < lists.reduce((n, l) => n + l.length, 0); i++) {
    for (const list of lists) if (i < list.length) out.push(list[i]);
  }
  return out;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/** Waits `ms`; false when the client went away meanwhile (nothing more to send). */
function waitWhileConnected(res: http.ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once('close', onClose);
  });
}
