/**
 * Drives the built binary's MCP server (`node bin/run.js mcp`) with the SDK's own client over stdio: a real client,
 * not a mock. Every session gets the data root it is given (tempHome()).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { pathToFileURL } from 'node:url';
import { assertProcessProject, BIN, baseEnv } from './cli.js';

export interface ToolCallResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, any>;
  isError?: boolean;
}

export interface McpSession {
  client: Client;
  /** Calls a tool; the result as the client received it. */
  call(name: string, args?: Record<string, unknown>): Promise<ToolCallResult>;
  /** Closes the client; the server stops when its stdin ends. */
  close(): Promise<void>;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  /** With `roots`: replaces the client's roots and tells the server they changed. */
  setRoots(dirs: string[]): Promise<void>;
}

export interface ConnectOptions {
  /** The server's directory (default: the data root). */
  cwd?: string;
  /** Declare the roots capability and list these directories as the client's roots. */
  roots?: string[];
}

export async function connect(
  home: string,
  flags: string[] = [],
  env: Record<string, string | undefined> = {},
  opts: ConnectOptions = {},
): Promise<McpSession> {
  assertProcessProject('handoff mcp');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...flags],
    env: baseEnv(home, env) as Record<string, string>,
    cwd: opts.cwd ?? home,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')));
  let roots = opts.roots ?? [];
  const client = new Client(
    { name: 'handoff-tests', version: '1.0.0' },
    opts.roots === undefined ? {} : { capabilities: { roots: { listChanged: true } } },
  );
  if (opts.roots !== undefined) {
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href })),
    }));
  }
  await client.connect(transport);
  return {
    client,
    call: async (name, args = {}) =>
      // A write can wait for a draft lock; the suite runs beside a second copy of itself (H14): no short timeout.
      (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as ToolCallResult,
    close: () => client.close(),
    stderr: () => err,
    setRoots: async (dirs) => {
      roots = dirs;
      await client.sendRootsListChanged();
    },
  };
}

/** All text blocks of a result, one after the other. */
export const textOf = (r: ToolCallResult): string => r.content.map((c) => c.text ?? '').join('\n');
