/**
 * How `hooks uninstall` gives the user's file back byte for byte: `hooks install` remembers, per config file it
 * changed, the file's bytes before its first change (none: the file did not exist) and the bytes it wrote. Uninstall
 * finds the file still exactly as install left it and writes the remembered bytes back (or removes the file it
 * created), so the user's formatting, key order and empty containers (Gemini's `"hooks": {}`) come back as they were.
 * A file the user changed meanwhile is not restored: only handoff's entries are taken out, the user's stay.
 *
 * The record is one JSON file in the user's state folder ($XDG_STATE_HOME/handoff/hooks-installed.json, default
 * ~/.local/state/handoff/), outside any project, so nothing of it is committed; a teammate without it gets the
 * taking-out.
 */
import { join } from 'node:path';
import type { Env } from '../paths.js';
import { homeOf } from './command.js';
import { readConfigText, writeConfig } from './files.js';

interface Entry {
  /** The bytes before install first changed the file; null: it did not exist. */
  before: string | null;
  /** The bytes install last wrote. */
  after: string;
}

const recordPath = (env: Env): string =>
  join(
    env.XDG_STATE_HOME !== undefined && env.XDG_STATE_HOME !== ''
      ? env.XDG_STATE_HOME
      : join(homeOf(env), '.local', 'state'),
    'handoff',
    'hooks-installed.json',
  );

function readRecord(env: Env): Record<string, Entry> {
  const text = readConfigText(recordPath(env)).text;
  if (text === undefined) return {};
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, Entry>) : {};
  } catch {
    return {}; // an unreadable record remembers nothing: uninstall takes handoff's entries out
  }
}

function writeRecord(env: Env, record: Record<string, Entry>): void {
  const path = recordPath(env);
  writeConfig(path, Object.keys(record).length === 0 ? undefined : `${JSON.stringify(record, null, 2)}\n`);
}

/** Install wrote `after` over `before` at `path`: remember the bytes before its first change. */
export function rememberInstall(env: Env, path: string, before: string | undefined, after: string): void {
  const record = readRecord(env);
  const known = record[path];
  // A second install over its own write keeps the first original; over a file changed since, that file is the original.
  const original = known !== undefined && known.after === before ? known.before : (before ?? null);
  record[path] = { before: original, after };
  writeRecord(env, record);
}

/**
 * The bytes uninstall should give back for `path` holding `current`: the remembered original when the file is exactly
 * as install left it (null: remove the file), else undefined (take handoff's entries out).
 */
export function rememberedOriginal(env: Env, path: string, current: string | undefined): string | null | undefined {
  const known = readRecord(env)[path];
  return known !== undefined && current !== undefined && known.after === current ? known.before : undefined;
}

/** Uninstall is done with `path`: forget it. */
export function forgetInstall(env: Env, path: string): void {
  const record = readRecord(env);
  if (!(path in record)) return;
  delete record[path];
  writeRecord(env, record);
}
