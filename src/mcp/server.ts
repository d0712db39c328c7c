/**
 * `handoff mcp`: the verbs as MCP tools on stdio. The SDK is loaded here, when the server
 * starts, so nothing of it loads on any other verb's path; it stays outside the bundle (scripts/build.mjs), as does
 * zod's JSON Schema generator. It is loaded with `require` (its CommonJS build), like the registry's verbs: a real
 * `import()` fails inside the bundle once it runs from its V8 code cache (Node 20 drops the dynamic-import callback
 * of a script compiled from cached data: ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), and `require` works with or
 * without the cache. Like the registry, this module therefore runs only inside the bundle.
 *
 * The SDK's low-level `Server` is used rather than `McpServer`: McpServer parses a call's arguments with the tool's
 * zod schema itself and answers a mismatch with an unnamed "Input validation error" (and a non-strict schema would
 * silently drop a mistyped parameter); here every bad argument is USAGE with one readable line, an unknown parameter
 * is named with the nearest one, and envelope content is never copied by a schema parse.
 *
 * Calls run concurrently (the SDK does not wait for one handler before the next message). Each call gets its own
 * notices and output buffers; the verbs open and close their own store connections (on SQLite, a closed one is kept
 * for the next call), and writers to one draft are serialized by the draft lock, which waits asynchronously.
 */
import type { CommandIO, CommandResult } from '../cli/command.js';
import { usage } from '../errors.js';
import { closest, didYouMean } from '../cli/suggest.js';
import { checkArgs, inputJsonSchema, type ToJsonSchema } from './inputs.js';
import { listResources, readResource, RESOURCE_TEMPLATES } from './resources.js';
import { errorResult, toolResult, type Extra, type Reword, type ToolResult } from './results.js';
import { parameterKinds, reword } from './wording.js';
import { CONTRACT_VERIFY, EVIDENCE_RUN, TOOLS, type ToolCall, type ToolSpec } from './tools.js';
import { OutputTail } from './output-tail.js';
import { confineArgs, namesPaths } from './confine.js';
import { outputSchema } from './output-schemas.js';
import { Roots } from './roots.js';
import { StdioLineTransport } from './stdio-transport.js';

export interface McpOptions {
  allowRun: boolean;
  /** `--allow-path` directories, resolved: roots besides the client's (or the server's directory). */
  allowPaths: readonly string[];
  /** `--allow-hardlinks`: file inputs with more than one link are read (PATH_HARDLINKED otherwise). */
  allowHardlinks?: boolean;
  version: string;
  /** Runs a verb by id on CLI arguments, as the command line would, without printing (HandoffCommand.invoke). */
  invoke(id: string, argv: string[], io: CommandIO): Promise<CommandResult>;
}

const INSTRUCTIONS =
  'handoff makes your handoff machine-checkable. Start with contract_init (or the contract_id a dispatch gave you) and ' +
  'pass its draft_id to every call. Build the envelope in small writes (contract_set, contract_add, contract_fill); ' +
  'each write is validated and a rejected one stores nothing and names its codes. Close the turn with ' +
  'contract_finalize. The envelope schema is the resource handoff://schema/envelope.';

/** Serves until the client closes stdin; resolves when the server has closed. */
export async function serveMcp(opts: McpOptions): Promise<void> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { Server } =
    require('@modelcontextprotocol/sdk/server/index.js') as typeof import('@modelcontextprotocol/sdk/server/index.js');
  const types = require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js');
  // zod's JSON Schema generator, which reads the bundle's zod/mini schemas by their structure. Like the SDK, only
  // `handoff mcp`'s own bundle holds it: in the others it would be on every verb's start-up path.
  const { toJSONSchema } = require('zod/v4/core') as typeof import('zod/v4/core');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const {
    CallToolRequestSchema,
    ListResourcesRequestSchema,
    ListResourceTemplatesRequestSchema,
    ListToolsRequestSchema,
    ReadResourceRequestSchema,
    RootsListChangedNotificationSchema,
  } = types;

  const tools = opts.allowRun ? [...TOOLS, EVIDENCE_RUN, CONTRACT_VERIFY] : TOOLS;
  // The calls' SQLite connections stay open between calls (kept-connections.ts): a fresh one costs more than a
  // call's statements, and while one is open, no call's close is the store's last (which checkpoints the write-ahead
  // log into the database file and removes it). Loading it loads no SQLite addon, and on PostgreSQL none is kept.
  const { keepConnections } = await import('../store/kept-connections.js');
  keepConnections(true);
  const server = new Server(
    { name: 'handoff', version: opts.version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const roots = new Roots(process.cwd(), opts.allowPaths, () =>
    server.getClientCapabilities()?.roots === undefined ? undefined : () => server.listRoots(),
  );
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => roots.invalidate());
  let listing: Record<string, unknown>[] | undefined;
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => undefined);
    return p;
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: (listing ??= tools.map((tool) => describeTool(tool, toJSONSchema))),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    track(callTool(tools, request.params.name, request.params.arguments ?? {}, opts, roots, extra.signal)),
  );
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: listResources(process.env, process.cwd()),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => ({
    contents: [readResource(request.params.uri, process.env, process.cwd())],
  }));
  // A transport problem (a line that is not JSON-RPC) is reported by the SDK to the client where it can; one line
  // on stderr for the harness's log, never on stdout (the channel).
  server.onerror = (e) => process.stderr.write(`handoff mcp: ${e.message.replace(/\s+/g, ' ')}\n`);

  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  // Our own stdio transport: the SDK's ends the server on one message over its limit (see stdio-transport.ts).
  await server.connect(new StdioLineTransport((value) => types.JSONRPCMessageSchema.parse(value)));
  // The client closed its end: let the calls in flight finish (a write is never cut halfway), then stop.
  process.stdin.once('end', () => {
    void Promise.allSettled([...inFlight]).then(() => server.close());
  });
  await closed;
  keepConnections(false);
}

function describeTool(tool: ToolSpec, toJSONSchema: ToJsonSchema): Record<string, unknown> {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputJsonSchema(toJSONSchema, tool.input, tool.defs),
    outputSchema: outputSchema(tool.output),
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly,
      destructiveHint: RUNS_COMMANDS.has(tool.name),
      idempotentHint: tool.readOnly,
      openWorldHint: RUNS_COMMANDS.has(tool.name),
    },
  };
}

const CLAIM_TOKEN_NOTICE = /^claim_token=/;

async function callTool(
  tools: readonly ToolSpec[],
  name: string,
  raw: Record<string, unknown>,
  opts: McpOptions,
  roots: Roots,
  signal: AbortSignal,
): Promise<ToolResult> {
  const notices: string[] = [];
  const tail = new OutputTail();
  const io: CommandIO = {
    env: process.env,
    cwd: process.cwd(),
    // No MCP result shows a claim token (init prints one on stderr for its shell caller; the server has no claim tool).
    notice: (line) => void (CLAIM_TOKEN_NOTICE.test(line) || notices.push(line.trimEnd())),
    // No verb a tool runs writes to these; should one, its text belongs to this call's result, never to stdout.
    stdout: (text) => (tail.stdout(Buffer.from(text)), true),
    stderr: (text) => (tail.stderr(Buffer.from(text)), true),
    passthrough: {
      stdout: (text) => (tail.stdout(Buffer.from(text)), true),
      stderr: (text) => (tail.stderr(Buffer.from(text)), true),
    },
    script: process.argv[1] ?? '',
    readStdin: () => Promise.reject(usage('stdin is the MCP channel: pass the input as a tool argument')),
    stdinIsTTY: false,
  };
  const call: ToolCall = {
    io,
    verb: (id, argv) => opts.invoke(id, argv, io),
    context: (id, flags, args = {}) => ({ ...io, id, flags, args, rest: [], json: true }),
    output: tail,
    signal,
  };
  const extra = (): Extra => ({ notices: notices.length > 0 ? [notices.join('\n')] : [], output: tail.render() });
  const tool = tools.find((t) => t.name === name);
  const params = tool === undefined ? undefined : parameterKinds(tool.input);
  const say: Reword = params === undefined ? (text) => text : (text) => reword(text, params);
  try {
    if (tool === undefined) throw unknownTool(name, tools, opts.allowRun);
    const args = checkArgs(tool.input, raw);
    const confined = namesPaths(tool, args)
      ? confineArgs(tool, args, io.cwd, await roots.current(), { allowHardlinks: opts.allowHardlinks })
      : { args, dispose: () => undefined };
    try {
      return toolResult(await tool.run(confined.args, call), extra(), say);
    } finally {
      confined.dispose();
    }
  } catch (e) {
    return errorResult(e, extra(), say);
  }
}

/** The tools that run commands with the server's rights: served only with `handoff mcp --allow-run`. */
const RUNS_COMMANDS: ReadonlySet<string> = new Set([EVIDENCE_RUN.name, CONTRACT_VERIFY.name]);

function unknownTool(name: string, tools: readonly ToolSpec[], allowRun: boolean) {
  if (RUNS_COMMANDS.has(name) && !allowRun) {
    return usage(
      `${name} is not served: it runs commands with the rights of the server, so it needs \`handoff mcp --allow-run\``,
    );
  }
  const names = tools.map((t) => t.name);
  return usage(
    `unknown tool ${JSON.stringify(name)}${didYouMean(closest(name, names))}; the tools are ${names.join(', ')}`,
  );
}
