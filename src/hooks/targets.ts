/**
 * Where each harness reads its stop hooks, and the entries `hooks install` adds there. Claude Code, Codex and Gemini
 * share one layout (`hooks.<Event>[]` of matcher groups holding `hooks[]`); Copilot and Cursor list their commands
 * directly (`{"version":1,"hooks":{"agentStop":[…]}}`, `{"version":1,"hooks":{"stop":[…]}}`).
 */
import { join } from 'node:path';
import { usage } from '../errors.js';
import { gitTopLevel, type Env } from '../paths.js';
import { HOOK_TIMEOUT_S, homeOf, type Scope } from './command.js';

export const HOOK_HARNESSES = ['claude', 'codex', 'gemini', 'copilot', 'cursor', 'opencode'] as const;
export type HookHarness = (typeof HOOK_HARNESSES)[number];

/** One hook the install writes: its event, optional matcher, and the gate's flags. */
export interface HookSpec {
  event: string;
  matcher?: string;
  /** The matcher was not given: an existing group keeps the matcher its owner may have edited. */
  keepMatcher?: boolean;
  args: string[];
  /** The verb the hook runs: the stop gate (default) or the pre-tool approval gate. */
  verb?: 'approval gate';
}

export interface InstallOptions {
  strict: boolean;
  /** Claude Code SubagentStop: the agent types that carry contracts (default DEFAULT_MATCHER). */
  matcher?: string;
  /** Also wire the pre-tool approval gate (`approval gate`) where the harness has a pre-tool hook. */
  approvals?: boolean;
}

/** Each harness's pre-tool event (OpenCode's plugin has none here). */
const PRE_TOOL_EVENTS: Partial<Record<HookHarness, string>> = {
  claude: 'PreToolUse',
  codex: 'PreToolUse',
  gemini: 'BeforeTool',
  copilot: 'preToolUse',
  cursor: 'beforeShellExecution',
};

export const DEFAULT_MATCHER = 'implementer|verifier|investigator';

/**
 * The hooks per harness. A subagent's stop (Claude Code) blocks without a contract; a top-level stop allows one
 * without (interactive sessions stop freely; a worker with a dispatched contract is still held to it). --strict adds
 * --on-store-error block everywhere.
 */
export function hookSpecs(harness: HookHarness, o: InstallOptions): HookSpec[] {
  const pre = PRE_TOOL_EVENTS[harness];
  const stop = stopSpecs(harness, o);
  if (o.approvals !== true || pre === undefined) return stop;
  // No matcher: every tool call reaches the gate, which allows a call matching no pattern at once.
  return [...stop, { event: pre, verb: 'approval gate', args: ['--harness', harness] }];
}

function stopSpecs(harness: HookHarness, o: InstallOptions): HookSpec[] {
  const strict = o.strict ? ['--on-store-error', 'block'] : [];
  const top = (event: string): HookSpec => ({
    event,
    args: ['--harness', harness, '--on-missing', 'allow', ...strict],
  });
  switch (harness) {
    case 'claude':
      return [
        {
          event: 'SubagentStop',
          matcher: o.matcher ?? DEFAULT_MATCHER,
          keepMatcher: o.matcher === undefined,
          args: ['--harness', 'claude', ...(o.strict ? ['--on-store-error', 'block', '--on-missing', 'block'] : [])],
        },
        top('Stop'),
      ];
    case 'codex':
      return [top('Stop')];
    case 'gemini':
      return [top('AfterAgent')];
    case 'copilot':
      return [top('agentStop')];
    case 'cursor':
      return [top('stop')];
    case 'opencode':
      return [top('session.idle')];
  }
}

/** The project a project-scope install writes into: the git top-level of the working directory, else that folder. */
export const projectRoot = (cwd: string): string => gitTopLevel(cwd) ?? cwd;

/** The config file install writes for `harness` at `scope`. */
export function configPath(harness: HookHarness, scope: Scope, env: Env, root: string): string {
  const home = homeOf(env);
  const user = scope === 'user';
  switch (harness) {
    case 'claude':
      return join(user ? home : root, '.claude', 'settings.json');
    case 'codex':
      return user
        ? join(
            env.CODEX_HOME !== undefined && env.CODEX_HOME !== '' ? env.CODEX_HOME : join(home, '.codex'),
            'hooks.json',
          )
        : join(root, '.codex', 'hooks.json');
    case 'gemini':
      return join(user ? home : root, '.gemini', 'settings.json');
    case 'copilot':
      if (user) throw usage('Copilot CLI reads hooks from the project (.github/hooks/*.json): use --scope project');
      return join(root, '.github', 'hooks', 'handoff.json');
    case 'cursor':
      return join(user ? home : root, '.cursor', 'hooks.json');
    case 'opencode':
      return user
        ? join(home, '.config', 'opencode', 'plugin', 'handoff-gate.js')
        : join(root, '.opencode', 'plugin', 'handoff-gate.js');
  }
}

/** The hook entry as the harness writes it. */
export function hookEntry(harness: HookHarness, command: string): Record<string, unknown> {
  switch (harness) {
    case 'copilot':
      return { type: 'command', bash: command, timeoutSec: HOOK_TIMEOUT_S };
    case 'cursor':
      return { command };
    case 'gemini':
      return { type: 'command', command, timeout: HOOK_TIMEOUT_S * 1000 };
    default:
      return { type: 'command', command, timeout: HOOK_TIMEOUT_S };
  }
}

/** The key of the entry that holds the command. */
export const commandKey = (harness: HookHarness): string => (harness === 'copilot' ? 'bash' : 'command');

/** Copilot and Cursor files carry a version and list commands directly; the others group them under matchers. */
export const flatLayout = (harness: HookHarness): boolean => harness === 'copilot' || harness === 'cursor';
