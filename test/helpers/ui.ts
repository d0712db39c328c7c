/**
 * `handoff ui` tests: a workspace seeded through the verbs (two chains, one continued, a receipt, a hostile goal, a
 * pending approval with its risk), the page's server started in this process, and raw HTTP requests whose headers
 * the test sets exactly (Host, Origin, Sec-Fetch-Site), as no fetch() would let it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import type { Signer } from '../../src/attest/record.js';
import { startUiServer, type UiServer } from '../../src/ui/server.js';
import { assertProcessProject, baseEnv, BIN, run } from './cli.js';

export const WORKSPACE = 'ws';
export const HOSTILE_GOAL = '<img src=x onerror=alert(1)>';
export const GOAL = 'Add idempotency keys to POST /payments';
export const CONTENT = 'git push origin main';
export const RISK = 'pushes to main; CI deploys it';

export interface Seeded {
  home: string;
  /** The continued chain: its first and its live contract. */
  first: string;
  next: string;
  hostile: string;
  requester: string;
  approvalId: string;
}

export const uiEnv = (home: string): NodeJS.ProcessEnv => baseEnv(home, { HANDOFF_WORKSPACE: WORKSPACE });

function ok(home: string, args: string[]): any {
  const r = run(home, args, { env: { HANDOFF_WORKSPACE: WORKSPACE } });
  expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  return r.json;
}

/** The seeded workspace, oldest first: the continued chain, the hostile goal, the contract that asks approval. */
export function seed(home: string): Seeded {
  const first = ok(home, ['contract', 'dispatch', '--goal', GOAL, '--json']).contract_id as string;
  ok(home, ['contract', 'set', 'work_phase', 'executing', '--draft-id', first]);
  ok(home, ['contract', 'set', 'agent_status.agent_state', 'BLOCKED', '--draft-id', first]);
  ok(home, ['contract', 'finalize', '--draft-id', first]);
  const cont = ok(home, ['contract', 'set', 'report_prose', 'second turn', '--draft-id', first, '--json']);
  const next = cont.continuation.contract_id as string;
  ok(home, ['evidence', 'run', '--draft-id', next, '--json', '--', 'echo', '3 tests passed']);
  const hostile = ok(home, ['contract', 'dispatch', '--goal', HOSTILE_GOAL, '--json']).contract_id as string;
  ok(home, ['contract', 'set', 'report_prose', HOSTILE_GOAL, '--draft-id', hostile]);
  const requester = ok(home, ['contract', 'dispatch', '--goal', 'Release 2.0', '--json']).contract_id as string;
  const approvalId = ok(home, ['approval', 'request', '--content', CONTENT, '--draft-id', requester, '--json'])
    .approval_id as string;
  const request = { approval_request: { exact_content: CONTENT, approval_id: approvalId, risk: RISK } };
  ok(home, ['contract', 'fill', '--draft-id', requester, '--json', JSON.stringify(request)]);
  return { home, first, next, hostile, requester, approvalId };
}

/** The page's server for `home`'s workspace on a free port. */
export const serve = (home: string, port = 0, signer?: Signer): Promise<UiServer> =>
  startUiServer({ env: uiEnv(home), cwd: home, workspace: WORKSPACE, port, signer });

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** One request with exactly these headers (Host defaults to the URL's). */
export function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A decision as the page sends it: JSON, from the page's own origin. */
export function decideRequest(
  server: UiServer,
  approvalId: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = { Origin: `http://127.0.0.1:${server.port}`, 'Sec-Fetch-Site': 'same-origin' },
): Promise<Answer> {
  return request(`${server.url}api/approvals/${approvalId}/decide`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

export interface UiProcess {
  url: string;
  child: ChildProcess;
  /** Resolves when the process has ended, with what it printed. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** `handoff ui …args` as a process (the built binary), once it has printed its URL. */
export function startUi(
  home: string,
  args: string[] = [],
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<UiProcess> {
  assertProcessProject('handoff ui');
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'ui', ...args], {
    env: { ...uiEnv(home), ...env },
    cwd: home,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: string) => {
      stdout += d;
      const line = /^(http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)\n/.exec(stdout);
      if (line !== null) resolve({ url: line[1], child, ended });
    });
    void ended.then((r) => reject(new Error(`handoff ui ended before serving (exit ${r.code}): ${r.stderr}`)));
  });
}
