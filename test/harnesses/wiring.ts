/**
 * The stop gate wired into a harness by `handoff hooks install` alone, as a user runs it: its config file and, for
 * Codex, the hook trust are exactly what install wrote. To see each call the harness makes, install runs as if
 * handoff were installed in a folder of the run (`<root>/handoff`) whose bin/run.js is a tap: it passes every call
 * to the real bin/run.js and logs it (hook-tap.mjs); dist/ and plugins/ there are links to this checkout's.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { baseHarnessEnv, type HarnessName, type RunDirs } from './recipes.js';

const REPO = resolve(import.meta.dirname, '..', '..');
const BIN = join(REPO, 'bin', 'run.js');
const TAP = resolve(import.meta.dirname, 'hook-tap.mjs');
/** node --import this: the install names TAP_AS_SCRIPT as handoff's bin/run.js. */
export const AS_SCRIPT = resolve(import.meta.dirname, 'as-script.mjs');

/**
 * A tapped handoff in `dir` (bin/run.js logging each call to `log`, then running `bin`, default this checkout's);
 * returns its bin/run.js. `tapPath(dir)` holds a `handoff` on it, as `npm install -g` would put one on the user's
 * PATH: a project-scope hook names `handoff` through the PATH only, and `dir` lies outside the run's project.
 * `copyDist`: dist/ is a copy, not a link, so the library a user-scope OpenCode plugin imports from there finds the
 * tap as its bin/run.js (a link would resolve to this checkout's); package.json and node_modules/ beside it make it
 * load as it does here.
 */
export function tapInstall(dir: string, log: string, bin = BIN, copyDist = false): string {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  mkdirSync(tapPath(dir), { recursive: true });
  if (copyDist) {
    // The copied library resolves its dependencies and its module type from here, as from this checkout.
    cpSync(join(REPO, 'dist'), join(dir, 'dist'), { recursive: true });
    cpSync(join(REPO, 'package.json'), join(dir, 'package.json'));
  }
  const links = copyDist ? ['plugins', 'node_modules'] : ['dist', 'plugins'];
  for (const sub of links) symlinkSync(join(REPO, sub), join(dir, sub));
  const script = join(dir, 'bin', 'run.js');
  writeFileSync(
    script,
    [
      "'use strict';",
      '// A tapped handoff (test/harnesses/wiring.ts): each call is logged, then run by the real bin/run.js.',
      `globalThis.HANDOFF_TAP = { log: ${JSON.stringify(log)}, bin: ${JSON.stringify(bin)} };`,
      `import(${JSON.stringify(pathToFileURL(TAP).href)});`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(tapPath(dir), 'handoff'), `#!/bin/sh\nexec "${process.execPath}" "${script}" "$@"\n`, {
    mode: 0o755,
  });
  return script;
}

/**
 * `handoff hooks install --harness H --json [flags]` in the run's project, as the user runs it there: their HOME,
 * CODEX_HOME and a PATH that has the harnesses (Codex's trust comes from `codex app-server`). It runs as if handoff
 * lived in the run's tapped folder (tapInstall, with `log`), so the commands it writes and trusts log each hook call.
 */
export function userInstall(
  harness: HarnessName,
  dirs: RunDirs,
  log: string,
  flags: string[] = [],
): SpawnSyncReturns<string> {
  const tap = tapInstall(tapDir(dirs), log);
  return spawnSync(
    process.execPath,
    ['--import', pathToFileURL(AS_SCRIPT).href, BIN, 'hooks', 'install', '--harness', harness, ...flags, '--json'],
    {
      cwd: dirs.project,
      encoding: 'utf8',
      timeout: 120_000,
      env: {
        PATH: `${process.env.HANDOFF_HARNESS_BIN_DIR ?? ''}:${baseHarnessEnv(dirs).PATH}`,
        HOME: dirs.home,
        CODEX_HOME: dirs.codexHome,
        TAP_AS_SCRIPT: tap,
      },
    },
  );
}

/** The folder holding the tapped `handoff` the run puts first on the harness's PATH. */
export const tapPath = (dir: string): string => join(dir, 'path');

/** Where the run's tapped handoff lives and logs. */
export const tapDir = (dirs: RunDirs): string => join(dirs.root, 'handoff');

/** One line per hook call, in call order. */
export interface HookCall {
  input: Record<string, unknown>;
  exit: number;
  stdout: string;
  stderr: string;
  /** Bytes in the transcript the input named when the hook was called (null: none named, or no such file yet). */
  transcript_bytes: number | null;
}

function parseInput(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { unparsed: text };
  }
}

export function readTap(log: string): HookCall[] {
  let text: string;
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const raw = JSON.parse(l) as Omit<HookCall, 'input'> & { input: string };
      return { ...raw, input: parseInput(raw.input) };
    });
}

/** Where `handoff hooks install --harness H --scope project` writes, per harness. */
export function projectConfigFile(harness: HarnessName, dirs: RunDirs): string {
  switch (harness) {
    case 'claude':
      return join(dirs.project, '.claude', 'settings.json');
    case 'codex':
      return join(dirs.project, '.codex', 'hooks.json');
    case 'gemini':
      return join(dirs.project, '.gemini', 'settings.json');
    case 'copilot':
      return join(dirs.project, '.github', 'hooks', 'handoff.json');
    case 'opencode':
      return join(dirs.project, '.opencode', 'plugin', 'handoff-gate.js');
    case 'qwen':
      return join(dirs.project, '.qwen', 'settings.json');
  }
}
