/**
 * The pre-tool approval gate inside the real harnesses, wired by `handoff hooks install --approvals` alone. The fake
 * model server plays the model and makes shell tool calls in each harness's own wire format; the test plays the
 * approver. One headless run per harness, of a contract dispatched with an approval pattern:
 *   1. the model calls the gated command: the gate denies it, and its reason (with the exact `approval request`
 *      to run) reaches the model in the next request;
 *   2. the test requests that approval with exactly the content the reason named and decides it approved; the model
 *      makes the same call: it runs (its side effect, a line appended to a file, is there);
 *   3. the model makes the identical call again: denied, the file still holds one line;
 *   4. the model calls a command matching no pattern: it runs.
 * The approval ends `used` by the tool call the hook was given.
 * Copilot CLI's preToolUse names no transcript: the gate reads its session's events file from the session id.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run as runCli, tempHome } from '../helpers/cli.js';
import { dispatchJson } from '../helpers/gate.js';
import { startFakeModel, type FakeModel, type Reply } from './fake-model.js';
import { driveHarness, runDirs } from './drive.js';
import { RECIPES, SHELL, baseHarnessEnv, type HarnessName, type RunDirs } from './recipes.js';
import { readTap, tapDir, tapPath, userInstall, type HookCall } from './wiring.js';

const PATTERN = 'Bash(echo gated *)';
const GATED = 'echo gated >> gated.log';
const FREE = 'echo free >> free.log';
/** Words of the deny reason (src/approvals/pre-tool-match.ts). */
const DENIED = 'needs an approval';

const HARNESSES = ['claude', 'codex', 'gemini', 'copilot'] as const;

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** `handoff hooks install --harness H --approvals`, as the user runs it in the project (see stop-gate.harness.ts). */
function installWithApprovals(harness: HarnessName, dirs: RunDirs, log: string): void {
  const r = userInstall(harness, dirs, log, ['--approvals']);
  expect(r.status, r.stdout + r.stderr).toBe(0);
  const commands = (JSON.parse(r.stdout) as { commands: string[] }).commands;
  expect(
    // A project file names handoff through the PATH only; the run's PATH has the tapped one (tapPath).
    commands.filter((c) => c.startsWith(`handoff approval gate --harness ${harness}`)),
    r.stdout,
  ).toHaveLength(1);
}

const count = (text: string, part: string): number => text.split(part).length - 1;

/** What a pre-tool call's answer means: exit 2, or Copilot's permissionDecision on stdout, denies. */
function answer(c: HookCall): 'deny' | 'allow' | 'error' {
  if (c.exit === 2 || c.stdout.includes('"permissionDecision":"deny"')) return 'deny';
  return c.exit === 0 ? 'allow' : 'error';
}

/** The pre-tool hook calls among all the tapped calls (the stop gate's are logged too). */
const preToolCalls = (calls: HookCall[]): HookCall[] =>
  calls.filter(
    (c) => ['PreToolUse', 'BeforeTool'].includes(c.input.hook_event_name as string) || 'toolName' in c.input,
  );

describe.each(HARNESSES)('%s', (harness) => {
  it('denies an unapproved gated call with the reason to the model, runs it once when approved, denies the repeat, runs an unmatched call', async () => {
    const shell = SHELL[harness];
    const home = tempHome();
    const d = dispatchJson(home, ['--goal', 'Append the log line.', '--require-approval', PATTERN]);
    const id = d.contract_id as string;
    expect(d.contract_block).toContain(`require_approval: ${PATTERN}`);
    const prompt = `Append the log line.\n\n${d.contract_block as string}`;
    const dirs = runDirs(harness);
    const gatedLog = join(dirs.project, 'gated.log');
    const requestCommand = `handoff approval request --draft-id ${id} --content 'echo gated >> gated.log'`;
    const problems: string[] = [];
    const seen: { step: number; text: string; gatedLog: string | null }[] = [];
    let approvalId: string | undefined;
    const call = (n: number, cmd: string): Reply => ({
      tool: { id: `call_fake_${n}`, name: shell.name, input: shell.input(cmd) },
    });
    let step = 0;
    fake = await startFakeModel((req) => {
      if (!req.text.includes(id)) return undefined;
      const s = step++;
      seen.push({ step: s, text: req.text, gatedLog: existsSync(gatedLog) ? readFileSync(gatedLog, 'utf8') : null });
      if (s === 0) return call(1, GATED);
      if (s === 1) {
        // The deny reason reached the model: the test, as approver, grants exactly what it names.
        if (!req.text.includes(requestCommand)) {
          problems.push(`request 2 lacks the approval request command: ${req.text.slice(-3000)}`);
          return undefined;
        }
        const asked = runCli(home, [
          'approval',
          'request',
          '--workspace',
          'ws',
          '--draft-id',
          id,
          '--content',
          GATED,
          '--json',
        ]);
        if (asked.code !== 0) problems.push(`approval request: ${asked.stdout}${asked.stderr}`);
        approvalId = asked.json?.approval_id as string | undefined;
        const decided = runCli(home, [
          'approval',
          'decide',
          approvalId ?? '',
          '--decision',
          'approved',
          '--by',
          'test',
        ]);
        if (decided.code !== 0) problems.push(`approval decide: ${decided.stdout}${decided.stderr}`);
        return call(2, GATED);
      }
      if (s === 2) return call(3, GATED);
      if (s === 3) return call(4, FREE);
      return undefined;
    });
    const log = join(dirs.root, 'hook-calls.jsonl');
    RECIPES[harness].prepare(dirs, fake.url);
    installWithApprovals(harness, dirs, log);
    const run = await driveHarness(
      harness,
      dirs,
      fake.url,
      prompt,
      { PATH: `${tapPath(tapDir(dirs))}:${baseHarnessEnv(dirs).PATH}`, HANDOFF_HOME: home, HANDOFF_WORKSPACE: 'ws' },
      shell.argv(prompt),
    );
    const calls = readTap(log);
    const told = `${run.stdout}${run.stderr}\nhook calls:\n${calls.map((c) => JSON.stringify(c)).join('\n')}`;
    expect(run.timedOut, told).toBe(false);
    expect(problems, told).toEqual([]);
    const pre = preToolCalls(calls);
    // The hook's answers, call by call: denied (exit 2 with the reason on stderr; Copilot: exit 0 and
    // {"permissionDecision":"deny"} on stdout), allowed, denied, allowed.
    expect(pre.map(answer), told).toEqual(['deny', 'allow', 'deny', 'allow']);
    expect(pre[0].stdout + pre[0].stderr).toContain(requestCommand);
    // 1: denied, the reason in the next request with the exact request command; nothing ran.
    expect(seen.length, told).toBeGreaterThanOrEqual(5);
    expect(seen[0].text).not.toContain(DENIED);
    expect(count(seen[1].text, DENIED), told).toBe(1);
    expect(seen[1].gatedLog).toBeNull();
    // 2: approved, the same call ran once.
    expect(seen[2].gatedLog, told).toBe('gated\n');
    // 3: the identical call again: denied, the reason is back, the file unchanged.
    expect(count(seen[3].text, DENIED), told).toBe(2);
    expect(seen[3].gatedLog).toBe('gated\n');
    // 4: a call matching no pattern ran.
    expect(readFileSync(join(dirs.project, 'free.log'), 'utf8'), told).toBe('free\n');
    expect(readFileSync(gatedLog, 'utf8')).toBe('gated\n');
    // The approval is used by the call the hook allowed.
    const shown = runCli(home, ['approval', 'show', approvalId!, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json.approval).toMatchObject({ approval_status: 'used', exact_content: GATED });
    // By the call the hook allowed: the harness's tool call id (Gemini and Copilot send none: the gate names the
    // session).
    const usedBy = pre[1].input.tool_use_id;
    const session = String(pre[1].input.session_id ?? pre[1].input.sessionId);
    expect(shown.json.approval.used_by_tool_use_id).toEqual(
      typeof usedBy === 'string' ? usedBy : expect.stringContaining(session),
    );
    expect(run.code, told).toBe(0);
  });
});
