/** Flag checks shared by `evidence run` and `contract verify` (step 1: exit 2 before any file or store access). */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { FlagValues } from '../input/flag-values.js';
import { addressingFrom } from '../drafts/cli-flags.js';
import { HandoffError, usage } from '../errors.js';
import { checkSlug } from '../evidence/slug.js';
import type { Env } from '../paths.js';

export const DEFAULT_TIMEOUT_SEC = 600;
export const MAX_TIMEOUT_SEC = 86_400;

const str = (flags: FlagValues, name: string): string | undefined => {
  const v = flags[name];
  return typeof v === 'string' ? v : undefined;
};

/** `--timeout`: whole seconds 1..86400 (default 600), as milliseconds. */
export function timeoutMs(flags: FlagValues): number {
  const raw = str(flags, 'timeout');
  if (raw === undefined) return DEFAULT_TIMEOUT_SEC * 1000;
  if (!/^[1-9][0-9]*$/.test(raw) || Number(raw) > MAX_TIMEOUT_SEC) {
    throw usage(`--timeout ${JSON.stringify(raw)} must be a whole number of seconds from 1 to ${MAX_TIMEOUT_SEC}`);
  }
  return Number(raw) * 1000;
}

const cwdNotFound = (raw: string, why: string): HandoffError =>
  new HandoffError(
    'CWD_NOT_FOUND',
    `--cwd ${JSON.stringify(raw)} ${why}; nothing was run`,
    { cwd: raw },
    'Pass an existing directory, or leave --cwd out to run in the current one.',
  );

/** `--cwd`: an existing directory, made absolute against the caller's cwd (default: the caller's cwd). */
export function runCwd(flags: FlagValues, cwd: string): string {
  const raw = str(flags, 'cwd');
  if (raw === undefined) return resolve(cwd);
  if (raw === '') throw cwdNotFound(raw, 'names no directory');
  const abs = resolve(cwd, raw);
  let isDir: boolean | undefined;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    isDir = undefined;
  }
  if (isDir === undefined) throw cwdNotFound(raw, 'does not exist');
  if (!isDir) throw cwdNotFound(raw, 'is not a directory');
  return abs;
}

/**
 * A command given as one argument holding a space (`-- "npm test"`) that could not be started was almost surely
 * meant as words or as a shell string: say how to pass it.
 */
export function splitHint(argv: readonly string[], shell: boolean): string | undefined {
  if (shell || argv.length !== 1 || !/\s/.test(argv[0].trim())) return undefined;
  const words = argv[0].trim().split(/\s+/).join(' ');
  return `the command is one argument containing a space, so it ran as a program of that whole name: split it into words (-- ${words}) or pass --shell to run it with /bin/sh -c`;
}

/** `--workspace` as given (its slug check runs at step 3, with the derived workspace's). */
export const workspaceFlag = (flags: FlagValues): string | undefined => str(flags, 'workspace');

/** `--brief/--ac`: both or neither, each a safe slug. */
export function briefFlags(flags: FlagValues): { name: string; ac: string } | undefined {
  const name = str(flags, 'brief');
  const ac = str(flags, 'ac');
  if (name === undefined && ac === undefined) return undefined;
  if (name === undefined || ac === undefined) throw usage('--brief and --ac go together: give both or neither');
  return { name: checkSlug(name, '--brief'), ac: checkSlug(ac, '--ac') };
}

/** The command after `--`: argv as given, or exactly one shell string under `--shell`. */
export function commandArgv(rest: string[], shell: boolean): string[] {
  if (rest.length === 0) throw usage('no command: put it after --, e.g. handoff evidence run -- npm test');
  if (shell) {
    if (rest.length !== 1)
      throw usage(`--shell takes exactly one argument after -- (got ${rest.length}); quote the whole shell string`);
    if (rest[0].trim() === '') throw usage('--shell needs a non-blank shell string after --');
    return rest;
  }
  if (rest[0] === '') throw usage('the command after -- is an empty string');
  return rest;
}

/**
 * Step 1 of `evidence run` (the verb and the MCP tool): the ids, the command after `--` and every flag, checked
 * before any file or store access (exit 2).
 */
export function evidenceRunRequest(flags: FlagValues, rest: string[], env: Env, cwd: string) {
  const addressing = addressingFrom(flags);
  const shell = flags.shell === true;
  const argv = commandArgv(rest, shell);
  return {
    env,
    cwd,
    addressing,
    argv,
    shell,
    runCwd: runCwd(flags, cwd),
    timeoutMs: timeoutMs(flags),
    workspaceFlag: workspaceFlag(flags),
    brief: briefFlags(flags),
  };
}
