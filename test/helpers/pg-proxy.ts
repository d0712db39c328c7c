/**
 * A TCP proxy on 127.0.0.1 in front of a PostgreSQL server, that reads the wire protocol's message frames to fail at
 * an exact point: a network that drops traffic (nothing forwarded, nothing closed) once a connection is
 * authenticated, or once a COMMIT was sent; or to hold one statement until the test releases it (a slow store).
 * Nothing is ever closed by the proxy until `close()`, so the client sees a silent peer, never a reset.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export type ProxyRule =
  /** Every connection: forward the start-up and authentication, then drop everything after the first ReadyForQuery. */
  | { kind: 'after-auth' }
  /** Forward until a client sends COMMIT (forwarded when `forward`, else dropped); then drop every byte everywhere. */
  | { kind: 'at-commit'; forward: boolean }
  /** Forward until a client sends the `nth` statement matching `pattern` (simple or extended protocol); drop it and every byte after, everywhere. */
  | { kind: 'at-statement'; pattern: RegExp; nth: number }
  /** Forward everything; `onReady` runs once, when the first connection is authenticated, before the client hears it. */
  | { kind: 'pass'; onReady?: () => void }
  /** Forward until a client sends a statement matching `pattern`; hold it and that client's later bytes until `release()`. */
  | { kind: 'hold'; pattern: RegExp };

export interface PgProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  /** True once the rule dropped traffic (or ran onReady, or held a statement). */
  readonly tripped: boolean;
  /** `hold`: sends what was held, in order, and forwards from then on. */
  release(): void;
  close(): Promise<void>;
}

/** Splits a stream into frames: `typed` frames are 1 type byte + int32 length (including itself). */
class Frames {
  private buf = Buffer.alloc(0);
  constructor(private typed: boolean) {}
  /** Feeds bytes; returns the complete frames (type '' for the untyped start-up message). */
  push(chunk: Buffer): { type: string; bytes: Buffer }[] {
    this.buf = Buffer.concat([this.buf, chunk]);
    const out: { type: string; bytes: Buffer }[] = [];
    for (;;) {
      const head = this.typed ? 5 : 4;
      if (this.buf.length < head) return out;
      const len = this.buf.readInt32BE(this.typed ? 1 : 0) + (this.typed ? 1 : 0);
      if (this.buf.length < len) return out;
      out.push({ type: this.typed ? String.fromCharCode(this.buf[0]) : '', bytes: this.buf.subarray(0, len) });
      this.buf = this.buf.subarray(len);
      this.typed = true; // after the start-up message every client frame is typed
    }
  }
}

export async function startPgProxy(target: string, rule: ProxyRule): Promise<PgProxy> {
  const t = new URL(target);
  const sockets: Socket[] = [];
  let everywhere = false; // at-commit: every connection dropped
  let tripped = false;
  let readyRan = false;
  let matches = 0;
  const releases: (() => void)[] = [];
  const server: Server = createServer((client) => {
    sockets.push(client);
    client.on('error', () => undefined);
    if (everywhere) return; // accepted, never answered
    const upstream = createConnection({ host: t.hostname, port: Number(t.port) });
    sockets.push(upstream);
    upstream.on('error', () => undefined);
    let dropped = false;
    let held: Buffer[] | undefined;
    releases.push(() => {
      for (const b of held ?? []) upstream.write(b);
      held = undefined;
    });
    const fromClient = new Frames(false);
    const fromServer = new Frames(true);
    client.on('data', (chunk: Buffer) => {
      for (const f of fromClient.push(chunk)) {
        if (dropped || everywhere) return;
        const commit = f.type === 'Q' && /^\s*COMMIT\b/i.test(f.bytes.subarray(5).toString('utf8'));
        if (rule.kind === 'at-commit' && commit) {
          if (rule.forward) upstream.write(f.bytes);
          everywhere = true;
          tripped = true;
          return;
        }
        // A Parse message holds a statement name, then the text; a simple Query just the text.
        const text = f.type === 'P' || f.type === 'Q' ? f.bytes.subarray(5).toString('utf8') : '';
        if (rule.kind === 'at-statement' && rule.pattern.test(text) && ++matches === rule.nth) {
          everywhere = true;
          tripped = true;
          return;
        }
        if (rule.kind === 'hold' && held === undefined && !tripped && rule.pattern.test(text)) {
          held = [];
          tripped = true;
        }
        if (held !== undefined) held.push(f.bytes);
        else upstream.write(f.bytes);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      for (const f of fromServer.push(chunk)) {
        if (dropped || everywhere) return;
        if (f.type === 'Z' && rule.kind === 'pass' && !readyRan) {
          readyRan = true;
          tripped = true;
          rule.onReady?.();
        }
        client.write(f.bytes);
        if (f.type === 'Z' && rule.kind === 'after-auth') {
          dropped = true;
          tripped = true;
        }
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    via(url: string): string {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    get tripped() {
      return tripped;
    },
    release() {
      for (const r of releases) r();
    },
    async close(): Promise<void> {
      for (const s of sockets) s.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
