/**
 * A fake model server on 127.0.0.1 that the real harnesses talk to instead of their vendors. It speaks just enough of
 * each API for a turn that ends with a short text and no tool calls: Anthropic Messages (SSE and plain JSON), OpenAI
 * Responses (SSE), OpenAI chat completions (SSE and JSON) and Gemini generateContent / streamGenerateContent?alt=sse.
 * Every request is recorded with its raw body, so a test sees what the harness sent the model (for example the
 * stop gate's block reason arriving in the request after a blocked stop).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Api = 'anthropic' | 'responses' | 'chat' | 'gemini' | 'other';

export interface RecordedRequest {
  api: Api;
  method: string;
  path: string;
  /** The raw request body (UTF-8). */
  text: string;
  /** True when this request asked the model for a turn's answer (not a token count, model list or probe). */
  turn: boolean;
}

export interface FakeModel {
  /** http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  requests: RecordedRequest[];
  /** The requests of one API that asked for a turn's answer, in order. */
  turns(api: Api): RecordedRequest[];
  close(): Promise<void>;
}

export const FAKE_REPLY = 'Done: nothing left to do.';
const MODEL = 'fake-model';

function sse(res: ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
  for (const e of events) {
    if (e.event) res.write(`event: ${e.event}\n`);
    res.write(`data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`);
  }
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify(body));
}

function parse(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function anthropic(res: ServerResponse, body: Record<string, unknown>, n: number): void {
  const id = `msg_fake_${n}`;
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const model = typeof body.model === 'string' ? body.model : MODEL;
  if (body.stream !== true) {
    json(res, 200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage,
      content: [{ type: 'text', text: FAKE_REPLY }],
    });
    return;
  }
  sse(res, [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    },
    {
      event: 'content_block_start',
      data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    },
    {
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: FAKE_REPLY } },
    },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

function responses(res: ServerResponse, body: Record<string, unknown>, n: number): void {
  const id = `resp_fake_${n}`;
  const model = typeof body.model === 'string' ? body.model : MODEL;
  const item = {
    id: `msg_fake_${n}`,
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: FAKE_REPLY, annotations: [] }],
  };
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model };
  sse(res, [
    {
      event: 'response.created',
      data: { type: 'response.created', response: { ...base, status: 'in_progress', output: [] } },
    },
    {
      event: 'response.output_item.added',
      data: {
        type: 'response.output_item.added',
        output_index: 0,
        item: { ...item, status: 'in_progress', content: [] },
      },
    },
    {
      event: 'response.output_text.delta',
      data: {
        type: 'response.output_text.delta',
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        delta: FAKE_REPLY,
      },
    },
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
    {
      event: 'response.completed',
      data: { type: 'response.completed', response: { ...base, status: 'completed', output: [item], usage } },
    },
  ]);
}

function chat(res: ServerResponse, body: Record<string, unknown>, n: number): void {
  const id = `chatcmpl-fake-${n}`;
  const model = typeof body.model === 'string' ? body.model : MODEL;
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (body.stream !== true) {
    json(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      usage,
      choices: [{ index: 0, message: { role: 'assistant', content: FAKE_REPLY }, finish_reason: 'stop' }],
    });
    return;
  }
  const chunk = (delta: unknown, finish: string | null, extra: Record<string, unknown> = {}) => ({
    data: {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...extra,
    },
  });
  sse(res, [
    chunk({ role: 'assistant', content: '' }, null),
    chunk({ content: FAKE_REPLY }, null),
    chunk({}, 'stop', { usage }),
    { data: '[DONE]' },
  ]);
}

/** Gemini's router and helpers ask for JSON; one object answers each of them (the lite model, no next speaker). */
const ROUTER_ANSWER = {
  reasoning: 'fake',
  model_choice: 'flash',
  complexity_reasoning: 'fake',
  complexity_score: 1,
  next_speaker: 'user',
};

/** Gemini: the router and other helpers call generateContent and expect JSON text; the turn streams. */
function gemini(res: ServerResponse, method: string, n: number): void {
  const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
  const answer = (text: string) => ({
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata,
    modelVersion: MODEL,
    responseId: `gem_fake_${n}`,
  });
  if (method === 'countTokens') json(res, 200, { totalTokens: 10 });
  else if (method === 'streamGenerateContent') sse(res, [{ data: answer(FAKE_REPLY) }]);
  else json(res, 200, answer(JSON.stringify(ROUTER_ANSWER)));
}

function route(req: IncomingMessage, res: ServerResponse, text: string, n: number): RecordedRequest {
  const method = req.method ?? 'GET';
  const path = req.url ?? '/';
  const pathname = path.split('?')[0];
  const body = parse(text);
  const rec = (api: Api, turn: boolean): RecordedRequest => ({ api, method, path, text, turn });
  const geminiCall = /\/models\/[^/:]+:([A-Za-z]+)$/.exec(pathname);
  if (method === 'POST' && pathname.endsWith('/messages/count_tokens')) {
    json(res, 200, { input_tokens: 10 });
    return rec('anthropic', false);
  }
  if (method === 'POST' && pathname.endsWith('/messages')) {
    anthropic(res, body, n);
    return rec('anthropic', true);
  }
  if (method === 'POST' && pathname.endsWith('/responses')) {
    responses(res, body, n);
    return rec('responses', true);
  }
  if (method === 'POST' && pathname.endsWith('/chat/completions')) {
    chat(res, body, n);
    return rec('chat', true);
  }
  if (method === 'POST' && geminiCall) {
    gemini(res, geminiCall[1], n);
    return rec('gemini', geminiCall[1] === 'streamGenerateContent');
  }
  if (method === 'GET' && pathname.endsWith('/models')) {
    json(res, 200, { object: 'list', data: [{ id: MODEL, object: 'model', owned_by: 'fake' }], models: [] });
    return rec('other', false);
  }
  json(res, 404, { error: { message: `fake model server: no route for ${method} ${pathname}` } });
  return rec('other', false);
}

export async function startFakeModel(): Promise<FakeModel> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push(route(req, res, Buffer.concat(chunks).toString('utf8'), requests.length + 1));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    turns: (api) => requests.filter((r) => r.api === api && r.turn),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
