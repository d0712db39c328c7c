/**
 * The fake model server the real-harness suite talks to: each API answers a turn with the short final text in the
 * form its harness parses, and every request is recorded with its body.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_REPLY, startFakeModel, type FakeModel } from './fake-model.js';

let fake: FakeModel;
beforeEach(async () => {
  fake = await startFakeModel();
});
afterEach(async () => {
  await fake.close();
});

const post = (path: string, body: unknown) =>
  fetch(fake.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The `data:` payloads of an SSE body, parsed where they are JSON. */
async function events(res: Response): Promise<{ event?: string; data: any }[]> {
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const out: { event?: string; data: any }[] = [];
  for (const block of (await res.text()).split('\n\n').filter((b) => b.trim() !== '')) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)![1];
    out.push({ event, data: data === '[DONE]' ? data : JSON.parse(data) });
  }
  return out;
}

describe('fake model server', () => {
  it('listens on 127.0.0.1 only', () => {
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('Anthropic Messages: a streamed text turn ending end_turn; a plain JSON answer; token counts are not turns', async () => {
    const streamed = await events(
      await post('/v1/messages?beta=true', { model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(streamed.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(streamed[2].data.delta).toEqual({ type: 'text_delta', text: FAKE_REPLY });
    expect(streamed[4].data.delta.stop_reason).toBe('end_turn');
    const plain: any = await (await post('/v1/messages', { model: 'm', messages: [] })).json();
    expect(plain).toMatchObject({
      type: 'message',
      stop_reason: 'end_turn',
      content: [{ type: 'text', text: FAKE_REPLY }],
    });
    expect(await (await post('/v1/messages/count_tokens', {})).json()).toEqual({ input_tokens: 10 });
    expect(fake.requests.map((r) => [r.api, r.turn])).toEqual([
      ['anthropic', true],
      ['anthropic', true],
      ['anthropic', false],
    ]);
    expect(fake.turns('anthropic')[0].text).toContain('"content":"hi"');
  });

  it('OpenAI Responses: the output item and response.completed carry the text', async () => {
    const e = await events(await post('/v1/responses', { model: 'm', input: [] }));
    expect(e.map((x) => x.event)).toEqual([
      'response.created',
      'response.output_item.added',
      'response.output_text.delta',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(e[3].data.item.content[0]).toMatchObject({ type: 'output_text', text: FAKE_REPLY });
    expect(e[4].data.response).toMatchObject({ status: 'completed', output: [{ type: 'message', role: 'assistant' }] });
    expect(fake.turns('responses')).toHaveLength(1);
  });

  it('OpenAI chat completions: chunks ending finish_reason stop and [DONE]; a plain JSON answer', async () => {
    const e = await events(await post('/v1/chat/completions', { model: 'm', stream: true, messages: [] }));
    expect(e.map((x) => (x.data === '[DONE]' ? x.data : x.data.choices[0].finish_reason))).toEqual([
      null,
      null,
      'stop',
      '[DONE]',
    ]);
    expect(e[1].data.choices[0].delta.content).toBe(FAKE_REPLY);
    const plain: any = await (await post('/v1/chat/completions', { model: 'm', messages: [] })).json();
    expect(plain.choices[0]).toMatchObject({
      message: { role: 'assistant', content: FAKE_REPLY },
      finish_reason: 'stop',
    });
    expect(fake.turns('chat')).toHaveLength(2);
  });

  it('Gemini: the router gets JSON it accepts, the turn streams the text, token counts are not turns', async () => {
    const routed: any = await (await post('/v1beta/models/flash-lite:generateContent', {})).json();
    const choice = JSON.parse(routed.candidates[0].content.parts[0].text);
    expect(choice).toMatchObject({ model_choice: 'flash', complexity_score: 1, next_speaker: 'user' });
    const e = await events(await post('/v1beta/models/pro:streamGenerateContent?alt=sse', {}));
    expect(e).toHaveLength(1);
    expect(e[0].data.candidates[0]).toMatchObject({
      content: { role: 'model', parts: [{ text: FAKE_REPLY }] },
      finishReason: 'STOP',
    });
    expect(await (await post('/v1beta/models/pro:countTokens', {})).json()).toEqual({ totalTokens: 10 });
    expect(fake.turns('gemini').map((r) => r.path)).toEqual(['/v1beta/models/pro:streamGenerateContent?alt=sse']);
  });

  it('answers anything else 404 and still records it', async () => {
    const res = await fetch(fake.url + '/v1/unknown');
    expect(res.status).toBe(404);
    expect(fake.requests).toEqual([{ api: 'other', method: 'GET', path: '/v1/unknown', text: '', turn: false }]);
  });
});

describe('fake model server with a script', () => {
  const TOOL = { id: 'call_1', name: 'Bash', input: { command: 'echo hi' } };
  let scripted: FakeModel;
  const ask = (path: string, body: unknown) =>
    fetch(scripted.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  afterEach(async () => {
    await scripted.close();
  });

  it('answers each turn as the script says, in every wire format, and waits for an asynchronous script', async () => {
    const indexes: number[] = [];
    scripted = await startFakeModel(async (_req, index) => {
      indexes.push(index);
      await new Promise((r) => setImmediate(r));
      return index === 4 ? { text: 'scripted text' } : { tool: TOOL };
    });
    // Anthropic, streamed: a tool_use block whose input arrives as JSON, stop_reason tool_use.
    const a = await events(await ask('/v1/messages', { model: 'm', stream: true, messages: [] }));
    expect(a[1].data.content_block).toEqual({ type: 'tool_use', id: 'call_1', name: 'Bash', input: {} });
    expect(JSON.parse(a[2].data.delta.partial_json)).toEqual(TOOL.input);
    expect(a[4].data.delta.stop_reason).toBe('tool_use');
    // OpenAI Responses: a function_call item with the call id and its arguments as a JSON string.
    const r = await events(await ask('/v1/responses', { model: 'm', input: [] }));
    expect(r.map((x) => x.event)).toContain('response.function_call_arguments.delta');
    expect(r.at(-1)!.data.response.output[0]).toMatchObject({
      type: 'function_call',
      call_id: 'call_1',
      name: 'Bash',
      arguments: JSON.stringify(TOOL.input),
    });
    // Chat completions: a tool_calls delta and finish_reason tool_calls.
    const c = await events(await ask('/v1/chat/completions', { model: 'm', stream: true, messages: [] }));
    expect(c[1].data.choices[0].delta.tool_calls[0]).toMatchObject({
      id: 'call_1',
      function: { name: 'Bash', arguments: JSON.stringify(TOOL.input) },
    });
    expect(c[2].data.choices[0].finish_reason).toBe('tool_calls');
    // Gemini: a functionCall part.
    const g = await events(await ask('/v1beta/models/pro:streamGenerateContent?alt=sse', {}));
    expect(g[0].data.candidates[0].content.parts).toEqual([
      { functionCall: { id: 'call_1', name: 'Bash', args: TOOL.input } },
    ]);
    // A text reply; requests that are not turns never reach the script.
    const t: any = await (await ask('/v1/messages', { model: 'm', messages: [] })).json();
    expect(t.content).toEqual([{ type: 'text', text: 'scripted text' }]);
    await ask('/v1/messages/count_tokens', {});
    expect(indexes).toEqual([0, 1, 2, 3, 4]);
  });
});
