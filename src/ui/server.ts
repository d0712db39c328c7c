/**
 * The HTTP server of `handoff ui`: 127.0.0.1 only, every path under a random token (`/<token>/…`; anything else is
 * 403), a Content-Security-Policy that runs only the page's own script file, and one write: deciding a pending
 * approval through the same service as `approval decide`, for a request that carries the token and comes from the
 * page itself (Origin or Sec-Fetch-Site). A request naming another host (DNS rebinding) is 403 too.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Signer } from '../attest/record.js';
import { HandoffError, usage } from '../errors.js';
import { isDraftId } from '../ids.js';
import { chainView, listChains, pendingApprovals, type ReadContext } from './data.js';

/** The page's files, shipped in the package's `ui/` folder (no build step). */
const PAGE_DIR = fileURLToPath(new URL('../../ui/', import.meta.url));
const ASSETS: Record<string, { file: string; type: string }> = {
  '': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  'app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const APPROVAL_ID_RE = /^P-[0-9a-f]{32}$/;
const PAGE_DECISIONS = new Set(['approved', 'rejected']);
const MAX_BODY = 64 * 1024;
const MAX_NAME = 200;
const MAX_NOTE = 2000;

export interface UiOptions extends ReadContext {
  /** 0: any free port. */
  port: number;
  /** The decision's signer (`--key`, else the store's key); undefined: unsigned, as `approval decide`. */
  signer?: Signer;
}

export interface UiServer {
  /** The URL to open, token included. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const refused = (status: number, code: string, error: string) => ({ status, body: { status: 'error', code, error } });

/** A HandoffError as an HTTP answer: its code, and a status from its exit (refusal 409, usage 400, not found 404). */
function errorAnswer(e: unknown): { status: number; body: Record<string, unknown> } {
  if (!(e instanceof HandoffError))
    return refused(500, 'INTERNAL', 'internal error; see the terminal running handoff ui');
  const status = e.exit === 1 ? 409 : e.exit === 2 ? 400 : e.exit === 3 ? 404 : e.exit === 4 ? 503 : 500;
  return { status, body: { status: e.status, code: e.code, error: e.message, ...e.data } };
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

const sendJson = (res: ServerResponse, status: number, body: unknown): void =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The token as a path segment matches, compared in constant time. */
function tokenMatches(given: string, token: Buffer): boolean {
  const b = Buffer.from(given, 'utf8');
  return b.length === token.length && timingSafeEqual(b, token);
}

/**
 * A state-changing request must come from the page: Sec-Fetch-Site `same-origin` when the browser sends it, an Origin
 * equal to the page's own when it sends one, and at least one of the two.
 */
function sameOrigin(req: IncomingMessage, origins: readonly string[]): boolean {
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin;
  if (site === undefined && origin === undefined) return false;
  if (site !== undefined && site !== 'same-origin') return false;
  return origin === undefined || origins.includes(origin);
}

interface DecideBody {
  decision: 'approved' | 'rejected';
  by: string;
  note: string | null;
}

function decideBody(text: string | undefined): DecideBody {
  if (text === undefined) throw usage(`the request body is larger than ${MAX_BODY} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw usage('the request body is not JSON');
  }
  const o = (body !== null && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  if (typeof o.decision !== 'string' || !PAGE_DECISIONS.has(o.decision))
    throw usage('decision must be approved or rejected');
  if (typeof o.by !== 'string' || o.by.trim() === '' || o.by.length > MAX_NAME)
    throw usage(`by (who decides) must be a non-blank name of at most ${MAX_NAME} characters`);
  if (o.note !== undefined && o.note !== null && (typeof o.note !== 'string' || o.note.length > MAX_NOTE))
    throw usage(`note must be a string of at most ${MAX_NOTE} characters`);
  const note = typeof o.note === 'string' && o.note.trim() !== '' ? o.note : null;
  return { decision: o.decision as DecideBody['decision'], by: o.by.trim(), note };
}

/** Starts the server; UI_PORT_IN_USE when the port is taken. */
export async function startUiServer(opts: UiOptions): Promise<UiServer> {
  const tokenText = randomBytes(32).toString('base64url');
  const token = Buffer.from(tokenText, 'utf8');
  const assets = new Map(
    Object.entries(ASSETS).map(([name, a]) => [name, { type: a.type, body: readFileSync(PAGE_DIR + a.file) }]),
  );
  let hosts: string[] = [];
  let origins: string[] = [];

  const api = async (req: IncomingMessage, path: string, query: URLSearchParams) => {
    if (path === 'api/chains' && req.method === 'GET')
      return { status: 200, body: { workspace: opts.workspace, chains: await listChains(opts) } };
    if (path === 'api/chain' && req.method === 'GET') {
      const id = query.get('contract') ?? '';
      if (!isDraftId(id)) throw new HandoffError('INVALID_DRAFT_ID', 'contract is not a contract id');
      return { status: 200, body: await chainView(opts, id) };
    }
    if (path === 'api/approvals' && req.method === 'GET') {
      const signing = opts.signer === undefined ? 'unsigned' : opts.signer.role;
      return { status: 200, body: { workspace: opts.workspace, signing, approvals: await pendingApprovals(opts) } };
    }
    const decide = /^api\/approvals\/([^/]+)\/decide$/.exec(path);
    if (decide !== null && req.method === 'POST') {
      if (!sameOrigin(req, origins))
        return refused(403, 'UI_REQUEST_REFUSED', 'a decision must come from the page itself');
      if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
        return refused(415, 'USAGE', 'send the decision as application/json');
      const id = decide[1];
      if (!APPROVAL_ID_RE.test(id)) throw usage('not an approval id (pattern ^P-[0-9a-f]{32}$)');
      const body = decideBody(await readBody(req));
      const { decideApproval } = await import('../approvals/decide.js');
      const r = await decideApproval(opts.env, opts.cwd, id, body.decision, body.by, body.note, opts.signer);
      return {
        status: 200,
        body: {
          status: 'ok',
          approval_id: id,
          approval_status: r.row.status,
          previous_status: r.previous,
          changed: r.changed,
          fingerprint: r.row.fingerprint,
          decided_by: r.row.decided_by,
        },
      };
    }
    const known = decide !== null || assets.has(path) || ['api/chains', 'api/chain', 'api/approvals'].includes(path);
    return refused(
      known ? 405 : 404,
      'UI_REQUEST_REFUSED',
      known ? 'this path does not take that method' : 'no such page',
    );
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Another host name is a page of another site resolving to this machine (DNS rebinding).
    if (!hosts.includes(req.headers.host ?? '')) return send(res, 403, 'text/plain; charset=utf-8', 'Forbidden\n');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const [, given = '', ...rest] = url.pathname.split('/');
    if (!tokenMatches(given, token)) return send(res, 403, 'text/plain; charset=utf-8', 'Forbidden\n');
    const path = rest.join('/');
    const asset = assets.get(path);
    if (asset !== undefined && (req.method === 'GET' || req.method === 'HEAD'))
      return send(res, 200, asset.type, asset.body);
    let answer: { status: number; body: unknown };
    try {
      answer = await api(req, path, url.searchParams);
    } catch (e) {
      answer = errorAnswer(e);
    }
    sendJson(res, answer.status, answer.body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { status: 'error', code: 'INTERNAL', error: 'internal error' });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException): void => {
      if (e.code === 'EADDRINUSE')
        reject(
          new HandoffError(
            'UI_PORT_IN_USE',
            `port ${opts.port} on 127.0.0.1 is in use`,
            { port: opts.port },
            'pass another --port, or --port 0 for any free one',
          ),
        );
      else reject(usage(`cannot listen on 127.0.0.1 port ${opts.port}: ${e.code ?? e.message}`));
    };
    server.once('error', failed);
    server.listen(opts.port, '127.0.0.1', () => {
      server.off('error', failed);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  origins = hosts.map((h) => `http://${h}`);
  return {
    url: `http://127.0.0.1:${port}/${tokenText}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
