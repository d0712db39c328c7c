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
import { dirname, isAbsolute, relative, sep } from 'node:path';
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

/**
 * Serializes like the file was: its indentation (two spaces by default), or on one line when the file was written on
 * one line (compact JSON stays compact), and its final newline (a new file gets one).
 */
export function formatConfig(value: Record<string, unknown>, previous: string | undefined): string {
  const body = previous?.replace(/\n$/, '');
  if (body !== undefined && body.trim() !== '' && !body.includes('\n'))
    return `${JSON.stringify(value)}${previous!.endsWith('\n') ? '\n' : ''}`;
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

const CONTEXT = 3;

/**
 * A unified diff (`---`, `+++`, `@@` hunks with three lines of context, `\ No newline at end of file` where a side
 * ends without one) that `git apply` accepts: `label` is the file's path relative to where it is applied (the project
 * root, or the home folder for a user file), written as `a/label` and `b/label`; a file created or removed has
 * `/dev/null` on that side.
 */
export function lineDiff(label: string, before: string | undefined, after: string | undefined): string {
  const lines = (t: string | undefined): string[] =>
    t === undefined || t === '' ? [] : t.replace(/\n$/, '').split('\n');
  const a = lines(before);
  const b = lines(after);
  const aNoEol = before !== undefined && before !== '' && !before.endsWith('\n');
  const bNoEol = after !== undefined && after !== '' && !after.endsWith('\n');
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] =
        a[i] === b[j] && (i < n - 1 || j < m - 1 || aNoEol === bNoEol)
          ? lcs[i + 1][j + 1] + 1
          : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  // The edit script: ' ' kept, '-' removed, '+' added, with each line's index on its side.
  const ops: { op: ' ' | '-' | '+'; i: number; j: number }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    const same = i < n && j < m && a[i] === b[j] && (i < n - 1 || j < m - 1 || aNoEol === bNoEol);
    if (same && lcs[i][j] === lcs[i + 1][j + 1] + 1) ops.push({ op: ' ', i: i++, j: j++ });
    else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) ops.push({ op: '+', i, j: j++ });
    else ops.push({ op: '-', i: i++, j });
  }
  const out = [
    `--- ${before === undefined ? '/dev/null' : `a/${label}`}`,
    `+++ ${after === undefined ? '/dev/null' : `b/${label}`}`,
  ];
  const changed = ops.map((o, k) => (o.op === ' ' ? -1 : k)).filter((k) => k >= 0);
  let k = 0;
  while (k < changed.length) {
    // A hunk: the changes within 2 * CONTEXT kept lines of each other, with CONTEXT lines around them.
    let end = k;
    while (end + 1 < changed.length && changed[end + 1] - changed[end] <= 2 * CONTEXT) end++;
    const from = Math.max(0, changed[k] - CONTEXT);
    const to = Math.min(ops.length - 1, changed[end] + CONTEXT);
    const hunk = ops.slice(from, to + 1);
    const oldLines = hunk.filter((o) => o.op !== '+').length;
    const newLines = hunk.filter((o) => o.op !== '-').length;
    const oldStart = oldLines === 0 ? hunk[0].i : hunk[0].i + 1;
    const newStart = newLines === 0 ? hunk[0].j : hunk[0].j + 1;
    out.push(`@@ -${oldStart},${oldLines} +${newStart},${newLines} @@`);
    for (const o of hunk) {
      out.push(`${o.op}${o.op === '+' ? b[o.j] : a[o.i]}`);
      if (o.op !== '+' && o.i === n - 1 && aNoEol) out.push('\\ No newline at end of file');
      else if (o.op === '+' && o.j === m - 1 && bNoEol) out.push('\\ No newline at end of file');
    }
    k = end + 1;
  }
  return out.join('\n');
}

/** A file's path as a diff names it: relative to the project root, else to the home folder, else as it is. */
export function diffLabel(path: string, root: string, home: string): string {
  for (const base of [root, home]) {
    const rel = relative(base, path);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/');
  }
  return path.replace(/^\/+/, '');
}
