/**
 * Where each harness reads its stop hooks, and the entries `hooks install` adds there, from each harness's adapter:
 * grouped layouts (`hooks.<Event>[]` of matcher groups holding `hooks[]`: Claude Code, Codex, Gemini), flat ones
 * listing commands directly (`{"version":1,"hooks":{"agentStop":[…]}}`: Copilot, Cursor), or a plugin (OpenCode).
 */
import type { HookSpec, InstallOptions, Scope } from '../harnesses/adapter.js';
import { adapterOf, type Harness } from '../harnesses/index.js';
import { gitTopLevel, type Env } from '../paths.js';
import { HOOK_TIMEOUT_S, homeOf } from './command.js';

/**
 * The hooks per harness. A subagent's stop (Claude Code) blocks without a contract; a top-level stop allows one
 * without (interactive sessions stop freely; a worker with a dispatched contract is still held to it). --strict adds
 * --on-store-error block everywhere.
 */
export function hookSpecs(harness: Harness, o: InstallOptions): HookSpec[] {
  const a = adapterOf(harness);
  const strict = o.strict ? ['--on-store-error', 'block'] : [];
  const top = (event: string): HookSpec => ({
    event,
    args: ['--harness', harness, '--on-missing', 'allow', ...strict],
  });
  const stop = a.config.stopHooks(top, o);
  if (o.approvals !== true || a.preTool === undefined) return stop;
  // No matcher: every tool call reaches the gate, which allows a call matching no pattern at once.
  return [...stop, { event: a.preTool.event, verb: 'approval gate', args: ['--harness', harness] }];
}

/** The project a project-scope install writes into: the git top-level of the working directory, else that folder. */
export const projectRoot = (cwd: string): string => gitTopLevel(cwd) ?? cwd;

/** The config file install writes for `harness` at `scope`. */
export const configPath = (harness: Harness, scope: Scope, env: Env, root: string): string =>
  adapterOf(harness).config.path({ scope, env, home: homeOf(env), root });

/** The hook entry as the harness writes it. */
export const hookEntry = (harness: Harness, command: string): Record<string, unknown> =>
  adapterOf(harness).config.entry(command, HOOK_TIMEOUT_S);

/** The key of the entry that holds the command. */
export const commandKey = (harness: Harness): string => adapterOf(harness).config.commandKey;

/** Copilot and Cursor files carry a version and list commands directly; the others group them under matchers. */
export const flatLayout = (harness: Harness): boolean => adapterOf(harness).config.layout === 'flat';
