/**
 * `handoff hooks test`: a sample stop input fed through the installed hook command exactly as the harness runs it
 * (its command line through /bin/sh, this environment, the project as working directory, the input on stdin in the
 * harness's own shape, with a transcript in its own format), plus `--dry-run`, so the gate judges and answers but
 * captures, claims, records and counts nothing. A second run adds `--json` for the verdict.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HandoffError, usage } from '../errors.js';
import type { HookAnswer, Scope } from '../harnesses/adapter.js';
import { adapterOf, type Harness } from '../harnesses/index.js';
import { mintTempTag } from '../ids.js';
import type { Env } from '../paths.js';
import { HOOK_TIMEOUT_S } from './command.js';
import { parseConfig, readConfigText } from './files.js';
import { installedCommands } from './merge.js';
import { configPath, hookSpecs, projectRoot } from './targets.js';

export interface HookTestRequest {
  harness: Harness;
  scope: Scope;
  env: Env;
  cwd: string;
  /** A dispatched contract the sample turn's prompt names (`contract_id:` line); none: a turn without one. */
  contractId?: string;
}

export interface HookTestResult {
  status: 'ok';
  harness: Harness;
  scope: Scope;
  path: string;
  event: string;
  /** The installed command, as the harness runs it; the test adds --dry-run. */
  command: string;
  input: Record<string, unknown>;
  /** What the hook gave back: the harness's answer form. */
  answer: HookAnswer | { exit: number; stdout: string; stderr: string };
  /** The gate's verdict (the same call with --json); null when the hook gave none. */
  verdict: Record<string, unknown> | null;
  /** The hook answered in the harness's form (exit 0 or 2); false: the harness would let the stop through ungated. */
  answered: boolean;
}

const notInstalled = (harness: Harness, scope: Scope, path: string): HandoffError =>
  new HandoffError(
    'HOOK_NOT_INSTALLED',
    `the stop gate is not installed for ${harness} (${scope}) in ${path}; nothing was run`,
    { harness, scope, path },
    `Run handoff hooks install --harness ${harness}${scope === 'user' ? ' --scope user' : ''} first.`,
  );

/** Runs the installed stop hook of `req.harness` on a sample stop; changes nothing (the gate's --dry-run). */
export function testHook(req: HookTestRequest): HookTestResult {
  const a = adapterOf(req.harness);
  if (a.config.layout === 'plugin')
    throw usage(`${a.title} runs the gate from its plugin, not a hook command: hooks test runs command hooks only`);
  const root = projectRoot(req.cwd);
  const path = configPath(req.harness, req.scope, req.env, root);
  // The top-level stop (Claude Code's last spec; the subagent stop is the other).
  const event = hookSpecs(req.harness, { strict: false }).at(-1)!.event;
  const installed = installedCommands(req.harness, parseConfig(readConfigText(path))).find(
    (c) => c.event === event && /\scontract\s+gate(?:\s|$)/.test(c.command),
  );
  if (installed === undefined) throw notInstalled(req.harness, req.scope, path);
  const dir = mkdtempSync(join(tmpdir(), 'handoff-hooks-test-'));
  try {
    const prompt =
      req.contractId === undefined
        ? 'handoff hooks test: a sample turn that names no contract.\n'
        : `handoff hooks test: a sample turn of a dispatched contract.\n\ncontract_id: ${req.contractId}\n`;
    const transcriptPath = join(dir, 'transcript.jsonl');
    writeFileSync(transcriptPath, a.sampleTranscript?.(prompt) ?? '', { mode: 0o600 });
    const input = a.sampleStop({ sessionId: `hooks-test-${mintTempTag()}`, cwd: root, transcriptPath, prompt });
    const cwd = req.scope === 'project' ? root : req.cwd;
    const runHook = (extra: string) =>
      spawnSync('/bin/sh', ['-c', `${installed.command} --dry-run${extra}`], {
        input: JSON.stringify(input),
        env: req.env,
        cwd,
        encoding: 'utf8',
        timeout: HOOK_TIMEOUT_S * 1000,
      });
    const r = runHook('');
    const exit = r.status ?? 1;
    const answered = exit === 0 || exit === 2;
    const answer = { exit, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
    let verdict: Record<string, unknown> | null = null;
    if (answered) {
      try {
        const v: unknown = JSON.parse(runHook(' --json').stdout ?? '');
        if (typeof v === 'object' && v !== null && !Array.isArray(v)) verdict = v as Record<string, unknown>;
      } catch {
        verdict = null;
      }
    }
    return {
      status: 'ok',
      harness: req.harness,
      scope: req.scope,
      path,
      event,
      command: installed.command,
      input,
      answer,
      verdict,
      answered,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
