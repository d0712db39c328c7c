/**
 * The stop gate inside the real OpenCode, wired by `handoff hooks install --harness opencode` alone (its plugin in
 * the project's .opencode/plugin/), against the fake model server (an OpenAI-compatible provider in the project's
 * opencode.json, the user's own step):
 *   (a) under `opencode serve`, a dispatched contract never finalized: each idle is blocked, the reason reaches the
 *       model as the next prompt, and the breaker ends the loop on the third gate call;
 *   (b) under `opencode serve`, a contract finalized before: one turn, one gate call, allowed;
 *   (c) under `opencode run`: not gated, as docs/hooks.md says: no gate call, the contract unclaimed, nothing counted;
 * and in each, OpenCode starts without trying to download anything (install seeded what it would fetch).
 * The plugin runs the gate through the handoff library, which starts the tapped bin/run.js beside it (wiring.ts), so
 * every gate call is logged. The loop's end is read from that log, never from a sleep.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, tempHome } from '../helpers/cli.js';
import { COMPLETE_PATCH, dispatchJson, finalizeAs, rawStore, rejections } from '../helpers/gate.js';
import { startFakeModel, type FakeModel, type RecordedRequest } from './fake-model.js';
import { driveHarness, harnessBin, runDirs, RUN_TIMEOUT_MS } from './drive.js';
import { RECIPES, baseHarnessEnv, type RunDirs } from './recipes.js';
import { AS_SCRIPT, readTap, tapDir, tapInstall, tapPath, type HookCall } from './wiring.js';
import { blockForm, recordObservation, saveObservations } from './observed.js';

const MAX = 3;
const BLOCK_CODE = 'ROW_NOT_FINALIZED';
/**
 * Only catches a hang: OpenCode answers its API within seconds here, far below the 70-90 s it spends trying to fetch
 * its plugin package offline when that package was not seeded.
 */
const READY_BUDGET_MS = 60_000;
/**
 * What OpenCode 1.18.33 logs (--print-logs) about installing its plugin package into a config folder: offline, after
 * about 72 s of retries, `WARN … "background dependency install failed" … NpmInstallFailedError … registry.npmjs.org/
 * @opencode-ai%2fplugin` (seen with hooks install's seeds removed; its API did not answer meanwhile).
 */
const INSTALL_LOG = /dependency install|NpmInstall|registry\.npmjs\.org|@opencode-ai(\/|%2f)plugin/i;

let fake: FakeModel;
const children: ChildProcess[] = [];
beforeEach(async () => {
  fake = await startFakeModel();
});
afterAll(() => {
  const out = process.env.HANDOFF_HARNESS_REPORT;
  if (out) saveObservations(out);
});
afterEach(async () => {
  for (const c of children.splice(0))
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  await fake.close();
});

/** `handoff hooks install --harness opencode` in the project, as the user runs it (see stop-gate.harness.ts). */
function installPlugin(dirs: RunDirs, log: string): void {
  const tap = tapInstall(tapDir(dirs), log, undefined, true);
  const env = baseHarnessEnv(dirs);
  const r = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(AS_SCRIPT).href, BIN, 'hooks', 'install', '--harness', 'opencode', '--json'],
    {
      cwd: dirs.project,
      encoding: 'utf8',
      timeout: 120_000,
      env: { PATH: env.PATH, HOME: dirs.home, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME, TAP_AS_SCRIPT: tap },
    },
  );
  expect(r.status, r.stdout + r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({
    status: 'ok',
    harness: 'opencode',
    path: join(dirs.project, '.opencode', 'plugin', 'handoff-gate.js'),
  });
}

const harnessEnv = (dirs: RunDirs, home: string): Record<string, string> => ({
  ...baseHarnessEnv(dirs),
  ...RECIPES.opencode.env(dirs, fake.url),
  // The project plugin runs `handoff` through the PATH: the user's, outside the project (the tapped one).
  PATH: `${tapPath(tapDir(dirs))}:${baseHarnessEnv(dirs).PATH}`,
  HANDOFF_HOME: home,
  HANDOFF_WORKSPACE: 'ws',
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((done) => s.close(() => done()));
  return port;
}

/** Polls `check` every 200 ms until it returns a value; fails after `budgetMs` saying what it waited for. */
async function until<T>(
  what: string,
  budgetMs: number,
  check: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() - started > budgetMs) throw new Error(`gave up after ${budgetMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Served {
  url: string;
  readyMs: number;
  logs: () => string;
}

/** `opencode serve` on a free port; ready when its API answers. */
async function serve(dirs: RunDirs, env: Record<string, string>): Promise<Served> {
  const port = await freePort();
  const started = Date.now();
  const child = spawn(
    harnessBin('opencode'),
    ['serve', '--port', String(port), '--hostname', '127.0.0.1', '--print-logs'],
    { cwd: dirs.project, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  children.push(child);
  const out: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => out.push(b));
  const logs = () => Buffer.concat(out).toString('utf8');
  const url = `http://127.0.0.1:${port}`;
  await until('opencode serve to answer GET /config', READY_BUDGET_MS, async () => {
    if (child.exitCode !== null) throw new Error(`opencode serve exited ${child.exitCode}: ${logs()}`);
    try {
      return (await fetch(`${url}/config`, { signal: AbortSignal.timeout(5_000) })).ok ? true : undefined;
    } catch {
      return undefined;
    }
  });
  return { url, readyMs: Date.now() - started, logs };
}

async function api(url: string, path: string, body: unknown): Promise<any> {
  const r = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
  });
  expect(r.status, `${path}: ${await r.clone().text()}`).toBe(200);
  return r.json();
}

/** The agent's turns that carry the prompt (OpenCode's title request carries it too, but offers no tools). */
const agentTurns = (marker: string): RecordedRequest[] =>
  fake.turns('chat').filter((r) => r.text.includes(marker) && r.text.includes('"tools"'));

function dispatched(home: string): { id: string; prompt: string } {
  const d = dispatchJson(home, ['--goal', 'Add a health check endpoint.']);
  return { id: d.contract_id as string, prompt: `Add a health check endpoint.\n\n${d.contract_block as string}` };
}

/** Starts serve with the plugin installed, sends `prompt` as a session's first message; returns the run's handles. */
async function serveTurn(home: string, prompt: string) {
  const dirs = runDirs('opencode');
  const log = join(dirs.root, 'hook-calls.jsonl');
  RECIPES.opencode.prepare(dirs, fake.url);
  installPlugin(dirs, log);
  const started = Date.now();
  const served = await serve(dirs, harnessEnv(dirs, home));
  const session = await api(served.url, '/session', {});
  await api(served.url, `/session/${session.id as string}/message`, { parts: [{ type: 'text', text: prompt }] });
  return { dirs, log, served, started, sessionId: session.id as string };
}

const told = (logs: string, calls: HookCall[]): string =>
  `${logs.slice(-6000)}\nhook calls:\n${calls.map((c) => JSON.stringify(c)).join('\n')}`;

/** No line of OpenCode's log tells of a package install (the plugin package was seeded by hooks install). */
function expectNoDownload(logs: string, readyMs: number): void {
  expect(logs.split('\n').filter((l) => INSTALL_LOG.test(l))).toEqual([]);
  expect(readyMs).toBeLessThan(READY_BUDGET_MS);
}

describe('opencode serve', () => {
  it(`(a) blocks an unfinished contract at each idle, the reason reaches the model, the breaker ends the loop after ${MAX} gate calls`, async () => {
    const home = tempHome();
    const { id, prompt } = dispatched(home);
    const { log, served, started, sessionId } = await serveTurn(home, prompt);
    // The loop has ended when the gate's breaker tripped for this session: MAX gate calls logged, the last tripped.
    const calls = await until(`${MAX} gate calls`, RUN_TIMEOUT_MS, () => {
      const c = readTap(log);
      return c.length >= MAX ? c : undefined;
    });
    const turns = agentTurns(id);
    const logs = served.logs();
    recordObservation(
      'opencode',
      'blocked',
      {
        run: { code: 0, signal: null, timedOut: false, stdout: '', stderr: '', ms: Date.now() - started },
        calls,
        turns,
      },
      BLOCK_CODE,
    );
    expect(calls, told(logs, calls)).toHaveLength(MAX);
    for (const c of calls) expect(c.input).toMatchObject({ hook_event_name: 'session.idle', session_id: sessionId });
    for (const c of calls.slice(0, MAX - 1)) expect(blockForm('opencode', c), JSON.stringify(c)).toBe('block');
    expect(JSON.parse(calls[MAX - 1].stdout)).toMatchObject({ tripped: true });
    expect(turns, told(logs, calls)).toHaveLength(MAX);
    expect(turns[0].text).not.toContain(BLOCK_CODE);
    for (const t of turns.slice(1)) expect(t.text).toContain(BLOCK_CODE);
    expect(rejections(home)).toEqual([expect.objectContaining({ tripped: 1 })]);
    expectNoDownload(logs, served.readyMs);
  });

  it('(b) a contract finalized before: one turn, one gate call, allowed', async () => {
    const home = tempHome();
    const { id, prompt } = dispatched(home);
    finalizeAs(home, id, 'COMPLETE', COMPLETE_PATCH);
    const { log, served, started } = await serveTurn(home, prompt);
    const calls = await until('the gate call', RUN_TIMEOUT_MS, () => {
      const c = readTap(log);
      return c.length >= 1 ? c : undefined;
    });
    const turns = agentTurns(id);
    recordObservation('opencode', 'finalized', {
      run: { code: 0, signal: null, timedOut: false, stdout: '', stderr: '', ms: Date.now() - started },
      calls,
      turns,
    });
    expect(calls, told(served.logs(), calls)).toHaveLength(1);
    expect(blockForm('opencode', calls[0]), JSON.stringify(calls[0])).toBe('allow');
    expect(turns).toHaveLength(1);
    expectNoDownload(served.logs(), served.readyMs);
  });
});

describe('opencode run', () => {
  it('(c) is not gated: no gate call, the contract unclaimed, no rejection counted', async () => {
    const home = tempHome();
    const { id, prompt } = dispatched(home);
    const dirs = runDirs('opencode');
    const log = join(dirs.root, 'hook-calls.jsonl');
    RECIPES.opencode.prepare(dirs, fake.url);
    installPlugin(dirs, log);
    const run = await driveHarness(
      'opencode',
      dirs,
      fake.url,
      prompt,
      { HANDOFF_HOME: home, HANDOFF_WORKSPACE: 'ws' },
      ['run', '--print-logs', prompt],
    );
    expect(run.timedOut, run.stderr).toBe(false);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(agentTurns(id)).toHaveLength(1);
    expect(readTap(log)).toEqual([]);
    expect(rejections(home)).toEqual([]);
    const db = rawStore(home);
    try {
      expect(db.prepare('SELECT agent_state, harness_id FROM handoffs WHERE contract_id = ?').get(id)).toEqual({
        agent_state: 'DISPATCHED',
        harness_id: null,
      });
    } finally {
      db.close();
    }
    expectNoDownload(run.stderr, run.ms);
  });
});
