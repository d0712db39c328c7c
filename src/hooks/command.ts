/**
 * The hook command `hooks install` writes: absolute paths of node and of the installed bin/run.js (a hook shell's
 * PATH cannot lose them), never an npx cache path (it disappears), `--harness` pinned. In a project-scope file a path
 * under the user's home is written as "$HOME/…", so no user name lands in a file others check out.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { HandoffError } from '../errors.js';
import { DEFAULT_GATE_TIMEOUT_MS } from '../gate/budget.js';
import type { Env } from '../paths.js';
import type { Scope } from '../harnesses/adapter.js';

export type { Scope };

/**
 * The hook timeout, in seconds: the gate's default budget (`--timeout`, 20 s) plus 10 s, so the gate always answers
 * before the harness gives up on it (node's start-up and the watchdog's exit fit in the margin).
 */
export const HOOK_TIMEOUT_S = DEFAULT_GATE_TIMEOUT_MS / 1000 + 10;

export const homeOf = (env: Env): string => (env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir());

/** The running executable (`script`: bin/run.js as started), real path. */
export function binPath(arg: string): string {
  try {
    return realpathSync(resolve(arg));
  } catch {
    return resolve(arg);
  }
}

export function checkStablePath(bin: string): void {
  if (/[\\/]_npx[\\/]/.test(bin) || /[\\/]\.npm[\\/]/.test(bin)) {
    throw new HandoffError(
      'HOOK_PATH_UNSTABLE',
      `handoff runs from the npx cache (${bin}), which npm may delete at any time; a hook must not point there, so nothing was written`,
      { path: bin },
      'Install it for good first: npm install -g handoff (or add it to the project: npm install --save-dev handoff), then run hooks install from there.',
    );
  }
}

/** Double-quoted for a POSIX shell: `\`, `"`, `$` and backquote escaped. */
const quote = (s: string): string => `"${s.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;

/** A path for the hook command: "$HOME/…" in a project file when it lies under the home directory. */
export function shellPath(path: string, scope: Scope, env: Env): string {
  const home = homeOf(env);
  const rel = relative(home, path);
  if (scope === 'project' && rel !== '' && !rel.startsWith('..') && !isAbsolute(rel))
    return `"$HOME/${quote(rel.split(sep).join('/')).slice(1)}`;
  return quote(path);
}

export function gateCommand(
  gateArgs: string[],
  scope: Scope,
  env: Env,
  script: string,
  verb: 'contract gate' | 'approval gate' = 'contract gate',
): string {
  const bin = binPath(script);
  checkStablePath(bin);
  return `${shellPath(process.execPath, scope, env)} ${shellPath(bin, scope, env)} ${verb} ${gateArgs.join(' ')}`;
}

/** A hook command that runs the stop gate or the approval gate (any path to handoff or its bin/run.js). */
export const isGateCommand = (command: unknown): boolean =>
  typeof command === 'string' &&
  /(?:^|[\s"'/\\])(?:handoff|run\.js)["']?\s+(?:contract|approval)\s+gate(?:\s|$)/.test(command);

/** The paths a gate command names (its first two words), with $HOME expanded, for `status`. */
export function commandPaths(command: string, env: Env): string[] {
  const words = command.match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? [];
  return words.slice(0, 2).map((w) => {
    const bare = w.startsWith('"') ? w.slice(1, -1).replace(/\\(.)/g, '$1') : w;
    return bare.replace(/^\$HOME(?=\/|$)/, homeOf(env));
  });
}
