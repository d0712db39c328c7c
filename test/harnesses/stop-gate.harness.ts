/**
 * The stop gate inside the real harnesses (Claude Code, Codex CLI, Gemini CLI, Copilot CLI, Qwen Code), each driven
 * headless against the fake model server on 127.0.0.1. Per harness:
 *   (a) a dispatched contract that is never finalized: the stop is blocked, the reason reaches the model (it is in
 *       the next request the fake receives), and the breaker ends the turn after --max-rejections with no more hook
 *       calls than that;
 *   (b) a contract closed the normal way in the turn (the scripted model runs `handoff contract verify`, then
 *       finalizes citing the receipt, under the default verification policy receipt): allowed at the first stop;
 *   (c) a gate that cannot decide (exit 1: its data root does not exist) lets the stop through.
 * Not part of `npm test`: `npm run test:harnesses` installs the harnesses and runs this file.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run as runCli, tempHome } from '../helpers/cli.js';
import { dispatchJson, row } from '../helpers/gate.js';
import { startFakeModel, type FakeModel, type RecordedRequest } from './fake-model.js';
import { driveHarness, runDirs, type HarnessRun } from './drive.js';
import { HARNESSES, RECIPES, SHELL, baseHarnessEnv, type HarnessName, type RunDirs } from './recipes.js';
import { projectConfigFile, readTap, tapDir, tapPath, userInstall, type HookCall } from './wiring.js';
import { blockForm, recordObservation, saveObservations } from './observed.js';

/** The gate's default --max-rejections, which an installed hook keeps. */
const MAX = 3;
const BLOCK_CODE = 'ROW_NOT_FINALIZED';
/** The check the scripted model records a receipt of (in the run's git project). */
const CHECK = 'git status --short';

let fake: FakeModel;
beforeEach(async () => {
  fake = await startFakeModel();
});
afterEach(async () => {
  await fake.close();
});
afterAll(() => {
  const out = process.env.HANDOFF_HARNESS_REPORT;
  if (out) saveObservations(out);
});

/**
 * `handoff hooks install --harness H` in the run's project, as the user runs it there (wiring.ts userInstall). The
 * commands it writes pin the harness and keep the gate's default of MAX rejections. Codex: the hooks it wrote are
 * trusted in Codex's own config.
 */
function installGate(harness: HarnessName, dirs: RunDirs, log: string, extra: string[] = []): Record<string, any> {
  const r = userInstall(harness, dirs, log, extra);
  expect(r.status, r.stdout + r.stderr).toBe(0);
  const json = JSON.parse(r.stdout) as Record<string, any>;
  expect(json).toMatchObject({
    status: 'ok',
    harness,
    scope: 'project',
    path: projectConfigFile(harness, dirs),
    action: 'created',
  });
  const commands = json.commands as string[];
  expect(commands.length).toBeGreaterThan(0);
  for (const c of commands) {
    // A project file names handoff through the PATH only; the run's PATH has the tapped one (tapPath).
    expect(c).toMatch(new RegExp(`^handoff contract gate --harness ${harness}(?: |$)`));
    expect(c).not.toContain('--max-rejections');
  }
  if (harness === 'codex' && !extra.includes('--no-trust'))
    expect(json.trust, r.stderr).toMatchObject({ status: 'trusted', hooks: commands.map(() => expect.anything()) });
  return json;
}

interface Outcome {
  run: HarnessRun;
  calls: HookCall[];
  turns: RecordedRequest[];
}

/** Installs the gate, runs one headless turn on `prompt`, returns the harness's run, the hook calls and the turns. */
async function runTurn(
  harness: HarnessName,
  handoffHome: string,
  prompt: string,
  marker: string,
  installFlags: string[] = [],
  opts: { argv?: (dirs: RunDirs) => string[]; env?: (dirs: RunDirs) => Record<string, string> } = {},
): Promise<Outcome & { dirs: RunDirs }> {
  const dirs = runDirs(harness);
  const log = join(dirs.root, 'hook-calls.jsonl');
  // The user's steps, in order: the harness set up (endpoints, its first-run project trust), then hooks install.
  RECIPES[harness].prepare(dirs, fake.url);
  installGate(harness, dirs, log, installFlags);
  const run = await driveHarness(
    harness,
    dirs,
    fake.url,
    prompt,
    {
      // The user's `handoff` on their PATH, outside the project (the tapped one).
      PATH: `${tapPath(tapDir(dirs))}:${baseHarnessEnv(dirs).PATH}`,
      HANDOFF_HOME: handoffHome,
      HANDOFF_WORKSPACE: 'ws',
      ...opts.env?.(dirs),
    },
    opts.argv?.(dirs),
  );
  expect(run.timedOut, run.stderr).toBe(false);
  // The turn's requests carry the prompt; side requests (a router, a title) are left out by the API's turn flag.
  const turns = fake.turns(RECIPES[harness].api).filter((r) => r.text.includes(marker));
  return { run, calls: readTap(log), turns, dirs };
}

/**
 * A failure message: what the harness printed, then each hook call (its input, exit, stdout and stderr), so a wrong
 * count shows what the gate was given and answered.
 */
function told(run: HarnessRun, calls: HookCall[]): string {
  return `${run.stdout}${run.stderr}\nhook calls:\n${calls.map((c) => JSON.stringify(c)).join('\n')}`;
}

/** A dispatched contract and the prompt that carries its block. */
function dispatched(home: string): { id: string; prompt: string } {
  const d = dispatchJson(home, ['--goal', 'Add a health check endpoint.']);
  const prompt = `Add a health check endpoint.\n\n${d.contract_block as string}`;
  return { id: d.contract_id as string, prompt };
}

describe.each(HARNESSES)('%s', (harness) => {
  it(`(a) blocks an unfinished dispatched contract, the reason reaches the model, the breaker ends the turn after ${MAX} hook calls`, async () => {
    const home = tempHome();
    const { id, prompt } = dispatched(home);
    const { run, calls, turns } = await runTurn(harness, home, prompt, id);
    recordObservation(harness, 'blocked', { run, calls, turns });
    expect(calls.length, told(run, calls)).toBe(MAX);
    const blocks = calls.slice(0, MAX - 1);
    for (const c of blocks) expect(blockForm(harness, c), JSON.stringify(c)).toBe('block');
    for (const c of blocks) expect(c.stdout + c.stderr).toContain(BLOCK_CODE);
    // The last call tripped the breaker: the stop goes through with the degraded notice, as a systemMessage where
    // the harness shows one, on stderr for Copilot (whose stdout is read as a verdict).
    const trip = calls[MAX - 1];
    expect(trip.exit).toBe(0);
    if (harness === 'copilot') expect([trip.stdout, trip.stderr]).toEqual(['', expect.stringContaining(BLOCK_CODE)]);
    else expect(JSON.parse(trip.stdout)).toEqual({ systemMessage: expect.stringContaining(BLOCK_CODE) });
    // One model request per stop; the first has no reason, each after a block carries it.
    expect(turns).toHaveLength(MAX);
    expect(turns[0].text).not.toContain(BLOCK_CODE);
    for (const t of turns.slice(1)) expect(t.text).toContain(BLOCK_CODE);
    expect(run.code).toBe(0);
  });

  it('(b) a contract closed the normal way in the turn (verification policy receipt: the model runs contract verify, then finalizes citing its receipt) is allowed at the first stop: one hook call', async () => {
    const home = tempHome();
    const d = dispatchJson(home, [
      '--goal',
      'Add a health check endpoint.',
      '--kind',
      'implementation',
      '--verification',
      'receipt',
    ]);
    const id = d.contract_id as string;
    expect(d.contract_block).toContain('verification: receipt');
    const prompt = `Add a health check endpoint.\n\n${d.contract_block as string}`;
    const json = (v: unknown): string => `'${JSON.stringify(v)}'`;
    const steps = [
      `handoff contract fill --draft-id ${id} --json ${json({ evidence_report: { verification: { type: 'command', command: CHECK } } })}`,
      `handoff contract verify --draft-id ${id}`,
      `handoff contract fill --draft-id ${id} --json ${json({ agent_status: { agent_state: 'COMPLETE', next_action: 'done', pending_steps: [] } })}`,
      `handoff contract finalize --draft-id ${id}`,
    ];
    const shell = SHELL[harness as keyof typeof SHELL];
    let step = 0;
    await fake.close();
    fake = await startFakeModel((req) => {
      if (!req.text.includes(id)) return undefined;
      const s = step++;
      if (s >= steps.length) return undefined;
      return { tool: { id: `call_fake_${s + 1}`, name: shell.name, input: shell.input(steps[s]) } };
    });
    const { run, calls, turns } = await runTurn(harness, home, prompt, id, [], {
      // The model's `handoff` calls go through the tapped one on the PATH, which logs only hook calls (gate verbs).
      // Codex runs these without its sandbox (the user's --sandbox danger-full-access): inside its workspace-write
      // sandbox `handoff evidence run` and `contract verify` never finish (seen with `codex sandbox`, even with the
      // data root writable; plain commands and `contract fill` do).
      argv: () =>
        harness === 'codex'
          ? ['exec', '--color', 'never', '--sandbox', 'danger-full-access', prompt]
          : shell.argv(prompt),
    });
    recordObservation(harness, 'finalized', { run, calls, turns });
    expect(calls, told(run, calls)).toHaveLength(1);
    expect(blockForm(harness, calls[0]), JSON.stringify(calls[0])).toBe('allow');
    // One request per tool call, then the final answer.
    expect(turns, told(run, calls)).toHaveLength(steps.length + 1);
    expect(row(home, id), told(run, calls)).toMatchObject({ agent_state: 'COMPLETE' });
    const receipts = runCli(home, ['evidence', 'receipts', '--draft-id', id, '--json']);
    expect(receipts.json.receipts, receipts.stdout).toEqual([
      expect.objectContaining({ command: CHECK, outcome: 'pass' }),
    ]);
    expect(run.code).toBe(0);
  });

  it('(c) a gate that cannot decide (exit 1) lets the stop through', async () => {
    const home = join(tempHome(), 'no-such-root');
    const marker = 'contract_id: a0123456789abcdef.0123456789ab';
    const { run, calls, turns } = await runTurn(harness, home, `Do the task.\n\n${marker}\n`, marker);
    recordObservation(harness, 'exit1', { run, calls, turns });
    expect(calls, told(run, calls)).toHaveLength(1);
    expect(calls[0].exit).toBe(1);
    expect(turns).toHaveLength(1);
    expect(run.code).toBe(0);
  });
});

describe('codex hook trust', () => {
  it('(d) without the trust hooks install writes (--no-trust), Codex skips the gate: no hook call, and hooks status exits 1 saying why', async () => {
    const home = tempHome();
    const { id, prompt } = dispatched(home);
    const { run, calls, turns, dirs } = await runTurn('codex', home, prompt, id, ['--no-trust']);
    expect(run.code, run.stderr).toBe(0);
    expect(calls, told(run, calls)).toHaveLength(0);
    expect(turns).toHaveLength(1);
    const st = runCli(home, ['hooks', 'status', '--harness', 'codex', '--json'], {
      cwd: dirs.project,
      env: {
        HOME: dirs.home,
        CODEX_HOME: dirs.codexHome,
        PATH: `${process.env.HANDOFF_HARNESS_BIN_DIR ?? ''}:${process.env.PATH ?? ''}`,
      },
      timeout: 120_000,
    });
    expect(st.code, st.stdout + st.stderr).toBe(1);
    expect(st.json.hooks[0]).toMatchObject({
      installed: true,
      codex_project_trusted: true,
      will_run: false,
      why_not: expect.stringContaining('is untrusted in Codex'),
    });
  });
});
