/**
 * A fake model server on 127.0.0.1 that the real harnesses talk to instead of their vendors. It speaks just enough of
 * each API for a turn that ends with a short text, or (when a script says so) with one tool call in the API's own
 * form: Anthropic Messages (SSE and plain JSON), OpenAI Responses (SSE), OpenAI chat completions (SSE and JSON) and
 * Gemini generateContent / streamGenerateContent?alt=sse. Every request is recorded with its raw body, so a test sees
 * what the harness sent the model (for example the stop gate's block reason, or a tool's result, arriving in a later
 * request).
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

/** What the model answers one turn request with: a final text, or one tool call (`id` names the call). */
export type Reply = { text: string } | { tool: { id: string; name: string; input: Record<string, unknown> } };

/**
 * Decides the answer to each turn request, in order (`index` counts the turn requests of all APIs, from 0); undefined
 * answers with FAKE_REPLY. It may be asynchronous: the request waits for it (a test can act between two requests).
 */
export type Script = (req: RecordedRequest, index: number) => Reply | undefined | Promise<Reply | undefined>;

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

const TEXT: Reply = { text: FAKE_REPLY };

function anthropic(res: ServerResponse, body: Record<string, unknown>, n: number, reply: Reply = TEXT): void {
  const id = `msg_fake_${n}`;
  const tool = 'tool' in reply ? reply.tool : undefined;
  const text = 'text' in reply ? reply.text : '';
  const stopReason = tool ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const model = typeof body.model === 'string' ? body.model : MODEL;
  if (body.stream !== true) {
    json(res, 200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
      content: tool
        ? [{ type: 'tool_use', id: tool.id, name: tool.name, input: tool.input }]
        : [{ type: 'text', text }],
    });
    return;
  }
  const block = tool
    ? [
        {
          event: 'content_block_start',
          data: {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} },
          },
        },
        {
          event: 'content_block_delta',
          data: {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(tool.input) },
          },
        },
      ]
    : [
        {
          event: 'content_block_start',
          data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        },
        {
          event: 'content_block_delta',
          data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
        },
      ];
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
    ...block,
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

function responses(res: ServerResponse, body: Record<string, unknown>, n: number, reply: Reply = TEXT): void {
  const id = `resp_fake_${n}`;
  const model = typeof body.model === 'string' ? body.model : MODEL;
  const text = 'text' in reply ? reply.text : '';
  const message = {
    id: `msg_fake_${n}`,
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
  const item =
    'tool' in reply
      ? {
          id: `fc_fake_${n}`,
          type: 'function_call',
          status: 'completed',
          call_id: reply.tool.id,
          name: reply.tool.name,
          arguments: JSON.stringify(reply.tool.input),
        }
      : message;
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model };
  const delta =
    'tool' in reply
      ? {
          event: 'response.function_call_arguments.delta',
          data: {
            type: 'response.function_call_arguments.delta',
            item_id: item.id,
            output_index: 0,
            delta: (item as { arguments: string }).arguments,
          },
        }
      : {
          event: 'response.output_text.delta',
          data: {
            type: 'response.output_text.delta',
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            delta: text,
          },
        };
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
        item:
          'tool' in reply
            ? { ...item, status: 'in_progress', arguments: '' }
            : { ...message, status: 'in_progress', content: [] },
      },
    },
    delta,
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
    {
      event: 'response.completed',
      data: { type: 'response.completed', response: { ...base, status: 'completed', output: [item], usage } },
    },
  ]);
}

function chat(res: ServerResponse, body: Record<string, unknown>, n: number, reply: Reply = TEXT): void {
  const id = `chatcmpl-fake-${n}`;
  const model = typeof body.model === 'string' ? body.model : MODEL;
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const call =
    'tool' in reply
      ? {
          id: reply.tool.id,
          type: 'function',
          function: { name: reply.tool.name, arguments: JSON.stringify(reply.tool.input) },
        }
      : undefined;
  const text = 'text' in reply ? reply.text : '';
  const finish = call ? 'tool_calls' : 'stop';
  if (body.stream !== true) {
    json(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      usage,
      choices: [
        {
          index: 0,
          message: call
            ? { role: 'assistant', content: null, tool_calls: [call] }
            : { role: 'assistant', content: text },
          finish_reason: finish,
        },
      ],
    });
    return;
  }
  const chunk = (delta: unknown, finishReason: string | null, extra: Record<string, unknown> = {}) => ({
    data: {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
      ...extra,
    },
  });
  sse(res, [
    chunk({ role: 'assistant', content: '' }, null),
    chunk(call ? { tool_calls: [{ index: 0, ...call }] } : { content: text }, null),
    chunk({}, finish, { usage }),
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
function gemini(res: ServerResponse, method: string, n: number, reply: Reply = TEXT): void {
  const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
  const answer = (parts: unknown[]) => ({
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata,
    modelVersion: MODEL,
    responseId: `gem_fake_${n}`,
  });
  const parts =
    'tool' in reply
      ? [{ functionCall: { id: reply.tool.id, name: reply.tool.name, args: reply.tool.input } }]
      : [{ text: reply.text }];
  if (method === 'countTokens') json(res, 200, { totalTokens: 10 });
  else if (method === 'streamGenerateContent') sse(res, [{ data: answer(parts) }]);
  else json(res, 200, answer([{ text: JSON.stringify(ROUTER_ANSWER) }]));
}

/** What a request is: its API, whether it asks for a turn's answer, and the writer of its answer. */
function classify(
  req: IncomingMessage,
  res: ServerResponse,
  body: Record<string, unknown>,
  n: number,
): { api: Api; turn: boolean; answer: (reply?: Reply) => void } {
  const method = req.method ?? 'GET';
  const pathname = (req.url ?? '/').split('?')[0];
  const geminiCall = /\/models\/[^/:]+:([A-Za-z]+)$/.exec(pathname);
  if (method === 'POST' && pathname.endsWith('/messages/count_tokens'))
    return { api: 'anthropic', turn: false, answer: () => json(res, 200, { input_tokens: 10 }) };
  if (method === 'POST' && pathname.endsWith('/messages'))
    return { api: 'anthropic', turn: true, answer: (r) => anthropic(res, body, n, r) };
  if (method === 'POST' && pathname.endsWith('/responses'))
    return { api: 'responses', turn: true, answer: (r) => responses(res, body, n, r) };
  if (method === 'POST' && pathname.endsWith('/chat/completions'))
    return { api: 'chat', turn: true, answer: (r) => chat(res, body, n, r) };
  if (method === 'POST' && geminiCall)
    return {
      api: 'gemini',
      turn: geminiCall[1] === 'streamGenerateContent',
      answer: (r) => gemini(res, geminiCall[1], n, r),
    };
  if (method === 'GET' && pathname.endsWith('/models'))
    return {
      api: 'other',
      turn: false,
      answer: () =>
        json(res, 200, { object: 'list', data: [{ id: MODEL, object: 'model', owned_by: 'fake' }], models: [] }),
    };
  return {
    api: 'other',
    turn: false,
    answer: () => json(res, 404, { error: { message: `fake model server: no route for ${method} ${pathname}` } }),
  };
}

/** Starts the server; `script` (optional) decides each turn's answer, else every turn ends with FAKE_REPLY. */
export async function startFakeModel(script?: Script): Promise<FakeModel> {
  const requests: RecordedRequest[] = [];
  let turns = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const { api, turn, answer } = classify(req, res, parse(text), requests.length + 1);
      const rec: RecordedRequest = { api, method: req.method ?? 'GET', path: req.url ?? '/', text, turn };
      requests.push(rec);
      if (!turn || script === undefined) return answer();
      const index = turns++;
      Promise.resolve()
        .then(() => script(rec, index))
        .then(answer, (e: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json', connection: 'close' });
          res.end(JSON.stringify({ error: { message: `fake model script failed: ${String(e)}` } }));
        });
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
