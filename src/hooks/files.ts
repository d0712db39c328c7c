/**
 * Reading and writing a harness's config file: a file that is not valid JSON (or is JSONC with comments) is refused
 * with its path and nothing is written; a write keeps the file's indentation, goes through a temp file and a rename,
 * and is skipped when nothing changed (a second install changes no byte).
 */
import {
  chmodSync,
  existsSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { HandoffError } from '../errors.js';
import { unlinkQuiet } from '../fs-util.js';
import { mintTempTag } from '../ids.js';
import { makeDirs } from '../paths.js';

export interface ConfigText {
  path: string;
  /** The file's text; undefined when it does not exist. */
  text?: string;
}

const invalidConfig = (path: string, why: string): HandoffError =>
  new HandoffError(
    'HOOK_CONFIG_INVALID',
    `${path} ${why}; nothing was written`,
    { path },
    'Repair the file (or add the hook by hand as docs/hooks.md shows), then run the command again.',
  );

export function readConfigText(path: string): ConfigText {
  if (!existsSync(path)) return { path };
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch (e) {
    throw invalidConfig(path, `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** The parsed object; `{}` for a missing or empty file. Comments (JSONC) are refused rather than lost. */
export function parseConfig(c: ConfigText): Record<string, unknown> {
  if (c.text === undefined || c.text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(c.text);
  } catch (e) {
    const commented = /^\s*\/\/|\/\*/m.test(c.text);
    throw invalidConfig(
      c.path,
      commented ? 'has comments (JSONC), which a rewrite would lose' : `is not valid JSON (${(e as Error).message})`,
    );
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidConfig(c.path, 'is not a JSON object');
  return v as Record<string, unknown>;
}

/** Serializes like the file was: its indentation (two spaces by default) and a final newline. */
export function formatConfig(value: Record<string, unknown>, previous: string | undefined): string {
  const indent = previous?.match(/^[{[]\s*\n([ \t]+)\S/)?.[1] ?? '  ';
  return `${JSON.stringify(value, null, indent)}\n`;
}

/** Writes `text` (undefined: removes the file, and its folder when that is left empty). */
export function writeConfig(path: string, text: string | undefined, removeDirs: string[] = []): void {
  if (text === undefined) {
    if (existsSync(path)) unlinkSync(path);
    for (const d of removeDirs) {
      try {
        rmdirSync(d);
      } catch {
        break; // not empty (or not ours to remove): stop climbing
      }
    }
    return;
  }
  makeDirs(dirname(path));
  const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o644;
  const tmp = `${path}.${process.pid}.${mintTempTag()}.tmp`;
  try {
    writeFileSync(tmp, text, { flag: 'wx', mode });
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } finally {
    unlinkQuiet(tmp);
  }
}

/** A line diff (longest common subsequence) in unified style, every line shown: for --dry-run. */
export function lineDiff(path: string, before: string | undefined, after: string | undefined): string {
  const a = before === undefined || before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const b = after === undefined || after === '' ? [] : after.replace(/\n$/, '').split('\n');
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out = [`--- ${before === undefined ? '/dev/null' : path}`, `+++ ${after === undefined ? '/dev/null' : path}`];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(` ${a[i++]}`);
      j++;
    } else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) out.push(`+${b[j++]}`);
    else out.push(`-${a[i++]}`);
  }
  return out.join('\n');
}
