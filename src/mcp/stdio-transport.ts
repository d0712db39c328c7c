/**
 * The server's stdio transport: newline-delimited JSON-RPC, as the SDK's own, but it survives any message. The SDK's
 * transport closes the whole server when one message is over its buffer limit (every call in flight lost) and reads
 * bytes that are not UTF-8 as U+FFFD. Here:
 *
 * - a message over MAX_MESSAGE_BYTES is never held in memory: its bytes are skipped up to the next newline while a
 *   scanner picks its top-level `id`, and the request gets a JSON-RPC error naming the limit (MESSAGE_TOO_LARGE);
 *   the server goes on serving;
 * - a message that is not valid UTF-8 is refused with a JSON-RPC parse error (INVALID_UTF8), never read;
 * - a message that is not JSON gets the JSON-RPC parse error (-32700, INVALID_JSON) with `"id": null`, as JSON-RPC
 *   2.0 answers a request whose id cannot be read (the client may be waiting on it); the server goes on serving.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { IdScanner } from './id-scanner.js';

/** The most one message may hold: the SDK's own stdio limit (10 MiB). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while the current line is over the limit: its bytes are scanned for the id, then dropped. */
  private oversize: { scanner: IdScanner; bytes: number } | undefined;

  constructor(
    /** The SDK's JSON-RPC message schema check (the SDK is loaded by the server, not by this module). */
    private readonly check: (value: unknown) => JSONRPCMessage,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {}

  start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pending = [];
    this.oversize = undefined;
    this.onclose?.();
    return Promise.resolve();
  }

  private readonly onStreamError = (e: Error): void => this.onerror?.(e);

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start < bytes.length) {
      const nl = bytes.indexOf(NEWLINE, start);
      this.feed(bytes.subarray(start, nl === -1 ? bytes.length : nl));
      if (nl === -1) return;
      this.endLine();
      start = nl + 1;
    }
  };

  private feed(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.oversize === undefined && this.pendingBytes + piece.length > this.maxBytes) {
      const scanner = new IdScanner();
      for (const p of this.pending) scanner.push(p);
      this.oversize = { scanner, bytes: this.pendingBytes };
      this.pending = [];
      this.pendingBytes = 0;
    }
    if (this.oversize !== undefined) {
      this.oversize.scanner.push(piece);
      this.oversize.bytes += piece.length;
      return;
    }
    this.pending.push(piece);
    this.pendingBytes += piece.length;
  }

  private endLine(): void {
    const oversize = this.oversize;
    const line = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.oversize = undefined;
    if (oversize !== undefined) {
      const message = `the message is ${oversize.bytes} bytes, over the server's limit of ${this.maxBytes} bytes per message; it was not read`;
      this.refuse(oversize.scanner.id, -32600, message, {
        code: 'MESSAGE_TOO_LARGE',
        limit_bytes: this.maxBytes,
        size_bytes: oversize.bytes,
      });
      return;
    }
    const body = line.length > 0 && line[line.length - 1] === 0x0d ? line.subarray(0, -1) : line;
    if (body.toString('latin1').trim() === '') return;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      const scanner = new IdScanner();
      scanner.push(body);
      this.refuse(scanner.id ?? null, -32700, 'the message is not valid UTF-8; it was not read', {
        code: 'INVALID_UTF8',
      });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      this.refuse(null, -32700, `the message is not JSON (${(e as Error).message}); it was not read`, {
        code: 'INVALID_JSON',
      });
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = this.check(value);
    } catch (e) {
      this.onerror?.(e as Error);
      return;
    }
    this.onmessage?.(message);
  }

  /**
   * A JSON-RPC error for a request whose id could be read, or with `"id": null` (JSON-RPC 2.0's answer to a message
   * that cannot be parsed); either way one line for the harness's log.
   */
  private refuse(
    id: string | number | null | undefined,
    code: number,
    message: string,
    data: Record<string, unknown>,
  ): void {
    this.onerror?.(new Error(`${message} [${String(data.code)}]`));
    if (id === undefined) return;
    // The SDK's message type has no null id; the line is written as JSON-RPC 2.0 spells it.
    void this.send({ jsonrpc: '2.0', id, error: { code, message, data } } as unknown as JSONRPCMessage);
  }
}
