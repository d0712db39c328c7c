/**
 * The hook command `hooks install` writes, `--harness` pinned. In a project-scope file (one a teammate checks out) it
 * names `handoff` through the PATH only: no absolute path of this machine, never node_modules/.bin or a checkout's
 * bin/run.js, which an agent working in the project could replace; `hooks status` exits 1 when the `handoff` it would
 * run resolves inside the workspace. In a user-scope file (the strict recipe: where the agent does not write) it names
 * node and the installed bin/run.js by absolute path (a hook shell's PATH cannot lose them), never an npx cache path
 * (it disappears).
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path';
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
  if (scope === 'project') return `handoff ${verb} ${gateArgs.join(' ')}`;
  const bin = binPath(script);
  checkStablePath(bin);
  return `${shellPath(process.execPath, scope, env)} ${shellPath(bin, scope, env)} ${verb} ${gateArgs.join(' ')}`;
}

/** The executable a bare command name resolves to through `env.PATH` (real path), or undefined. */
export function onPath(name: string, env: Env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      if (statSync(p).isFile()) return realpathSync(p);
    } catch {
      // not here: the next folder
    }
  }
  return undefined;
}

/** A hook command that runs the stop gate or the approval gate (any path to handoff or its bin/run.js). */
export const isGateCommand = (command: unknown): boolean =>
  typeof command === 'string' &&
  /(?:^|[\s"'/\\])(?:handoff|run\.js)["']?\s+(?:contract|approval)\s+gate(?:\s|$)/.test(command);

/**
 * The paths a gate command names, with $HOME expanded, for `status`: its first two words (node and bin/run.js), or
 * for a bare `handoff` the file it resolves to through PATH ("" when it resolves to none).
 */
export function commandPaths(command: string, env: Env): string[] {
  const words = command.match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? [];
  if (words[0] === 'handoff') return [onPath('handoff', env) ?? ''];
  return words.slice(0, 2).map((w) => {
    const bare = w.startsWith('"') ? w.slice(1, -1).replace(/\\(.)/g, '$1') : w;
    return bare.replace(/^\$HOME(?=\/|$)/, homeOf(env));
  });
}
