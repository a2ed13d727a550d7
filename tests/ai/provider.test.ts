import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createOpenAiCompatibleProvider,
  parseToolArguments,
  ProviderAuthFailed,
  ProviderRateLimited,
  ProviderUnavailable,
  TurnAborted,
  type ChatRequest,
  type ProviderConfig,
} from '../../src/apps/ai/provider/index.ts';
import { toErrorBody } from '../../src/kernel/errors.ts';
import { errorStep, startScriptedLlm, textStep, toolCallsStep, type ScriptedLlm } from './helpers/scripted-llm.ts';

const KEY = 'sk-test-secret-key-0123456789abcdef';
// Keeps the SDK's back-off (0.5 s, 1 s, …) out of the test run; the SDK honours this header.
const FAST_RETRY = { 'retry-after-ms': '5' };

let llm: ScriptedLlm;

beforeEach(async () => {
  llm = await startScriptedLlm();
});

afterEach(async () => {
  await llm.close();
});

function provider(over: Partial<ProviderConfig> = {}) {
  return createOpenAiCompatibleProvider({ id: 'scripted', baseURL: llm.url, apiKey: KEY, model: 'test-model', ...over });
}

function request(over: Partial<ChatRequest> = {}): ChatRequest {
  return { messages: [{ role: 'user', content: 'hi' }], tools: [], max_tokens: 256, ...over };
}

async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

describe('openai-compatible provider: streaming', () => {
  it('streams text deltas to onToken in order and returns the whole text as the assistant message', async () => {
    llm.push(textStep('The quick brown fox jumps.', { pieces: 4 }));
    const tokens: string[] = [];
    const result = await provider().chat(request({ onToken: (d) => tokens.push(d) }));

    expect(tokens.length).toBe(4); // the empty role-only first chunk is not a token
    expect(tokens.join('')).toBe('The quick brown fox jumps.');
    expect(result.message).toEqual({ role: 'assistant', content: 'The quick brown fox jumps.' });
    expect(result.finish_reason).toBe('stop');
    expect(result.model).toBe('test-model');
    expect(llm.requests[0].body).toMatchObject({ model: 'test-model', stream: true, max_tokens: 256 });
  });

  it('reassembles two tool calls by index from fragmented argument deltas', async () => {
    llm.push(
      toolCallsStep(
        [
          { id: 'call_a', name: 'search', arguments: '{"query":"open invoices","limit":10}' },
          { id: 'call_b', name: 'get_record', arguments: '{"model":"crm.contact","id":"42"}' },
        ],
        { pieces: 5 },
      ),
    );
    const result = await provider().chat(request());

    expect(result.finish_reason).toBe('tool_calls');
    expect(result.message).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_a', name: 'search', arguments: '{"query":"open invoices","limit":10}' },
        { id: 'call_b', name: 'get_record', arguments: '{"model":"crm.contact","id":"42"}' },
      ],
    });
  });

  it('reassembles tool calls whose fragments arrive interleaved, keeping text streamed before them', async () => {
    llm.push(
      toolCallsStep(
        [
          { id: 'c1', name: 'a', arguments: '{"x":1,"y":2}' },
          { id: 'c2', name: 'b', arguments: '{"z":"three"}' },
        ],
        { text: 'Let me check.', interleave: true, pieces: 3 },
      ),
    );
    const result = await provider().chat(request());

    expect(result.message.content).toBe('Let me check.');
    expect(result.message.tool_calls).toEqual([
      { id: 'c1', name: 'a', arguments: '{"x":1,"y":2}' },
      { id: 'c2', name: 'b', arguments: '{"z":"three"}' },
    ]);
  });

  it('asks for stream_options.include_usage and reads usage from the final chunk', async () => {
    llm.push(textStep('ok', { usage: { prompt_tokens: 12, completion_tokens: 5 } }));
    const result = await provider().chat(request());

    expect(llm.requests[0].body.stream_options).toEqual({ include_usage: true });
    expect(result.usage).toEqual({ input_tokens: 12, output_tokens: 5 });
  });

  it('returns usage null when the stream carries no usage chunk', async () => {
    llm.push(textStep('ok'));
    expect((await provider().chat(request())).usage).toBeNull();
  });

  it('returns invalid argument JSON raw, and parseToolArguments reports it for the model', async () => {
    const broken = '{"city": "Par';
    llm.push(toolCallsStep([{ id: 'c1', name: 'weather', arguments: broken }]));
    const result = await provider().chat(request());

    expect(result.message.tool_calls?.[0].arguments).toBe(broken);
    const parsed = parseToolArguments(broken);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error).toMatch(/not valid JSON/);
      expect(parsed.error.length).toBeLessThan(200);
    }
  });
});

describe('parseToolArguments', () => {
  it('treats an empty (or blank) string as no arguments', () => {
    expect(parseToolArguments('')).toEqual({ ok: true, value: {} });
    expect(parseToolArguments('  \n')).toEqual({ ok: true, value: {} });
  });

  it('accepts a JSON object', () => {
    expect(parseToolArguments('{"a":1,"b":[true]}')).toEqual({ ok: true, value: { a: 1, b: [true] } });
  });

  it('rejects a JSON value that is not an object, saying what it got', () => {
    expect(parseToolArguments('[1,2]')).toEqual({ ok: false, error: 'Invalid arguments: expected a JSON object, got an array.' });
    expect(parseToolArguments('null')).toMatchObject({ ok: false, error: expect.stringMatching(/got null/) });
    expect(parseToolArguments('"x"')).toMatchObject({ ok: false, error: expect.stringMatching(/got a string/) });
  });
});

describe('openai-compatible provider: request shape', () => {
  it('sends the API key as Authorization: Bearer', async () => {
    llm.push(textStep('ok'));
    await provider().chat(request());
    expect(llm.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('omits tools when there are none, and sends function tools when there are', async () => {
    llm.push(textStep('a'), textStep('b'));
    await provider().chat(request());
    const parameters = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
    await provider().chat(request({ tools: [{ name: 'search', description: 'Search records', parameters }] }));

    expect(llm.requests[0].body).not.toHaveProperty('tools');
    expect(llm.requests[1].body.tools).toEqual([
      { type: 'function', function: { name: 'search', description: 'Search records', parameters } },
    ]);
  });

  it('sends assistant tool calls and tool results in the wire format', async () => {
    llm.push(textStep('done'));
    await provider().chat(
      request({
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'find' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', name: 'search', arguments: '{"q":"x"}' }] },
          { role: 'tool', tool_call_id: 'c1', content: '[]' },
        ],
      }),
    );
    expect(llm.requests[0].body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'find' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '[]' },
    ]);
  });

  it('sends max_completion_tokens instead when asked to', async () => {
    llm.push(textStep('ok'));
    await createOpenAiCompatibleProvider(
      { id: 'scripted', baseURL: llm.url, apiKey: KEY, model: 'm' },
      { maxTokensField: 'max_completion_tokens' },
    ).chat(request());
    expect(llm.requests[0].body).toMatchObject({ max_completion_tokens: 256 });
    expect(llm.requests[0].body).not.toHaveProperty('max_tokens');
  });
});

describe('openai-compatible provider: failures', () => {
  it('retries a 429 and returns the answer of the retry', async () => {
    llm.push(errorStep(429, { headers: FAST_RETRY }), textStep('after the wait'));
    const result = await provider().chat(request());
    expect(result.message.content).toBe('after the wait');
    expect(llm.requests).toHaveLength(2);
  });

  it('429 on every attempt → ProviderRateLimited (AI_PROVIDER_RATE_LIMITED, 503)', async () => {
    llm.push(errorStep(429, { headers: FAST_RETRY }), errorStep(429, { headers: FAST_RETRY }));
    const err = await rejection(provider({ maxRetries: 1 }).chat(request()));
    expect(err).toBeInstanceOf(ProviderRateLimited);
    expect(err).toMatchObject({ code: 'AI_PROVIDER_RATE_LIMITED', status: 503 });
    expect(llm.requests).toHaveLength(2);
  });

  it('500 until the retries are exhausted → ProviderUnavailable (AI_PROVIDER_UNAVAILABLE, 502)', async () => {
    llm.push(...[1, 2, 3].map(() => errorStep(500, { headers: FAST_RETRY })));
    const err = await rejection(provider({ maxRetries: 2 }).chat(request()));
    expect(err).toBeInstanceOf(ProviderUnavailable);
    expect(err).toMatchObject({ code: 'AI_PROVIDER_UNAVAILABLE', status: 502 });
    expect(llm.requests).toHaveLength(3); // 1 + maxRetries
  });

  it('401 → ProviderAuthFailed, not retried, and the key appears nowhere in the error', async () => {
    llm.push(errorStep(401, { message: `Incorrect API key provided: ${KEY}.`, code: 'invalid_api_key' }));
    const err = await rejection(provider().chat(request()));
    expect(err).toBeInstanceOf(ProviderAuthFailed);
    expect(err).toMatchObject({ code: 'AI_PROVIDER_AUTH_FAILED', status: 502 });
    expect(llm.requests).toHaveLength(1);
    const everything = `${err.message} ${err.stack} ${JSON.stringify(err)} ${JSON.stringify(toErrorBody(err))}`;
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(KEY.slice(-8));
  });

  it('no answer within timeoutMs → ProviderUnavailable', async () => {
    llm.push(textStep('too late', { delayMs: 2_000 }));
    const err = await rejection(provider({ timeoutMs: 150, maxRetries: 0 }).chat(request()));
    expect(err).toBeInstanceOf(ProviderUnavailable);
    // the timeout, not the late answer, ended the call (durations belong to bench/, not tests)
    expect(err.message).toMatch(/within 150 ms/);
    expect(err.partial?.text ?? '').toBe('');
  });

  it('a stream that goes silent for timeoutMs → ProviderUnavailable with the partial text', async () => {
    llm.push(textStep('abcdef', { pieces: 3, stallAfter: 2 })); // role chunk + "ab", then silence
    const err = await rejection(provider({ timeoutMs: 200, maxRetries: 0 }).chat(request()));
    expect(err).toBeInstanceOf(ProviderUnavailable);
    expect(err.message).toMatch(/stopped sending/);
    expect(err.partial).toEqual({ text: 'ab', usage: null, received: true });
  });

  it('a connection cut mid-stream → ProviderUnavailable with the partial text', async () => {
    llm.push(textStep('abcdef', { pieces: 3, cutAfter: 3 })); // role chunk, "ab", "cd", then the socket dies
    const err = await rejection(provider({ maxRetries: 0 }).chat(request()));
    expect(err).toBeInstanceOf(ProviderUnavailable);
    expect(err.partial).toEqual({ text: 'abcd', usage: null, received: true });
  });

  it('an unreachable endpoint → ProviderUnavailable', async () => {
    const url = llm.url;
    await llm.close();
    llm = await startScriptedLlm(); // afterEach closes this one
    const err = await rejection(provider({ baseURL: url, maxRetries: 0 }).chat(request()));
    expect(err).toBeInstanceOf(ProviderUnavailable);
    expect(err.message).toMatch(/could not be reached/);
  });
});

describe('openai-compatible provider: abort', () => {
  it('aborting mid-stream rejects with AI_TURN_ABORTED carrying the partial text', async () => {
    llm.push(textStep('abcdef', { pieces: 3, chunkDelayMs: 20, stallAfter: 4 }));
    const ctrl = new AbortController();
    const tokens: string[] = [];
    const err = await rejection(
      provider().chat(
        request({
          signal: ctrl.signal,
          onToken: (d) => {
            tokens.push(d);
            if (tokens.length === 2) ctrl.abort();
          },
        }),
      ),
    );
    expect(err).toBeInstanceOf(TurnAborted);
    expect(err).toMatchObject({ code: 'AI_TURN_ABORTED', status: 499 });
    expect(err.partial).toEqual({ text: 'abcd', usage: null, received: true });
  });

  it('aborting after the usage chunk but before the end exposes the usage on the error', async () => {
    // events: role, "ab", "cd", "ef", finish, usage | [DONE] never comes
    llm.push(textStep('abcdef', { pieces: 3, usage: { prompt_tokens: 30, completion_tokens: 3 }, stallAfter: 6 }));
    const ctrl = new AbortController();
    const turn = provider().chat(
      request({
        signal: ctrl.signal,
        // the usage chunk follows the last token at once; give it time to arrive, then abort
        onToken: (d) => void (d === 'ef' && setTimeout(() => ctrl.abort(), 150)),
      }),
    );
    const err = await rejection(turn);
    expect(err).toMatchObject({ code: 'AI_TURN_ABORTED' });
    expect(err.partial).toEqual({ text: 'abcdef', usage: { input_tokens: 30, output_tokens: 3 }, received: true });
  });

  it('an already-aborted signal rejects with AI_TURN_ABORTED and empty partial output', async () => {
    const err = await rejection(provider().chat(request({ signal: AbortSignal.abort() })));
    expect(err).toMatchObject({ code: 'AI_TURN_ABORTED', partial: { text: '', usage: null } });
    expect(llm.requests).toHaveLength(0);
  });

  it('an exception thrown by onToken is rethrown unchanged', async () => {
    llm.push(textStep('abcdef', { pieces: 3 }));
    const boom = new TypeError('ui went away');
    const err = await rejection(provider().chat(request({ onToken: () => { throw boom; } })));
    expect(err).toBe(boom);
  });
});

describe('scripted LLM helper', () => {
  it('answers non-streaming requests, and an empty queue with a clear 500', async () => {
    llm.push(textStep('plain', { usage: { prompt_tokens: 1, completion_tokens: 1 } }));
    const post = () =>
      fetch(`${llm.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [] }),
      });
    const first = await post();
    expect(await first.json()).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: 'plain' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
    const second = await post();
    expect(second.status).toBe(500);
    expect((await second.json()).error.message).toMatch(/no step queued for request #2/);
  });

  it('instant mode answers every request from respond(body)', async () => {
    const instant = await startScriptedLlm({ respond: (body) => textStep(`echo ${body.messages.length}`), record: false });
    try {
      const p = createOpenAiCompatibleProvider({ id: 'i', baseURL: instant.url, apiKey: KEY, model: 'm' });
      const results = await Promise.all([1, 2, 3].map(() => p.chat(request())));
      expect(results.map((r) => r.message.content)).toEqual(['echo 1', 'echo 1', 'echo 1']);
      expect(instant.requests).toHaveLength(0);
    } finally {
      await instant.close();
    }
  });
});
