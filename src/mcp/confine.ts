/**
 * MCP file inputs stay inside the server's roots. An agent on the other end of the channel has no shell of its own,
 * so a tool parameter naming a file must not read what the server's user can read elsewhere (`/etc/shadow`, keys).
 *
 * A file input is resolved against the server's directory and through every symlink; it must lie inside a root
 * (PATH_OUTSIDE_ROOTS, exit 2, nothing read; a missing path outside says nothing about whether it exists). It is
 * then opened, and the opened descriptor itself is checked (its path as the kernel knows it, or its device and inode
 * against the checked path), so a symlink swapped in between the check and the open is caught. The verb reads a
 * private copy made from that descriptor, never the path again. A regular file with more than one link is refused
 * (PATH_HARDLINKED, exit 2, nothing read): a hard link inside a root to a file outside it has no symlink to resolve,
 * and its other names cannot be found; `handoff mcp --allow-hardlinks` opts out. A directory input (evidence_run's
 * `cwd`) is resolved the same way and handed on resolved.
 */
import {
  closeSync,
  constants,
  fstatSync,
  mkdtempSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileTypeName } from '../input/files.js';
import { HandoffError, usage } from '../errors.js';

/** A checked input handed to the verb, and what to remove once the call is over. */
export interface Confined {
  path: string;
  dispose(): void;
}

export function isInside(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`));
}

/** The real path of `abs`, or of its nearest existing ancestor with the rest appended (undefined: nothing exists). */
function realOrNearest(abs: string): { real: string; exists: boolean } {
  let rest = '';
  for (let dir = abs; ; dir = dirname(dir)) {
    try {
      const real = realpathSync(dir);
      return { real: rest === '' ? real : join(real, rest), exists: rest === '' };
    } catch {
      if (dirname(dir) === dir) return { real: abs, exists: false };
      rest = rest === '' ? basename(dir) : join(basename(dir), rest);
    }
  }
}

const outside = (param: string, raw: string, roots: readonly string[], nothing = 'nothing was read'): HandoffError =>
  new HandoffError(
    'PATH_OUTSIDE_ROOTS',
    `${param} ${JSON.stringify(raw)} is outside the server's roots (${roots.join(', ')}); ${nothing}`,
    { param, path: raw, roots: [...roots] },
    "Name a path inside one of the roots (the client's MCP roots, else the directory the server runs in), or start the server with --allow-path DIR.",
  );

const unreadable = (param: string, raw: string, e: unknown): HandoffError =>
  new HandoffError('UNREADABLE_INPUT', `cannot read ${param} ${JSON.stringify(raw)}: ${(e as Error).message}`);

/** Where an open descriptor really points: the kernel's name for it where /proc has one, else the checked path if it is the same file. */
function openedPath(fd: number, checked: string): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    const a = fstatSync(fd);
    const b = statSync(checked);
    return a.dev === b.dev && a.ino === b.ino ? checked : undefined;
  }
}

/** How a server confines its file inputs beyond the roots. */
export interface ConfineOptions {
  /** `handoff mcp --allow-hardlinks`: read a regular file that has more than one link. */
  allowHardlinks?: boolean;
}

const hardlinked = (param: string, raw: string, links: number): HandoffError =>
  new HandoffError(
    'PATH_HARDLINKED',
    `${param} ${JSON.stringify(raw)} is a file with ${links} links: its other names may lie outside the server's roots; nothing was read`,
    { param, path: raw, links },
    'Copy the file into the roots (a copy, not a link), or start the server with --allow-hardlinks.',
  );

/**
 * Opens the file an MCP parameter names, inside the roots, and returns a private copy of what was opened. USAGE for
 * `-` (stdin is the MCP channel) and for an empty name, PATH_OUTSIDE_ROOTS, UNREADABLE_INPUT, INPUT_NOT_REGULAR,
 * PATH_HARDLINKED.
 */
export function confineFile(
  param: string,
  raw: string,
  cwd: string,
  roots: readonly string[],
  seam: { beforeOpen?: () => void } = {},
  options: ConfineOptions = {},
): Confined {
  if (raw === '-') throw usage(`${param} "-" would read stdin, which is the MCP channel: name a file`);
  if (raw === '') throw usage(`${param} must not be empty`);
  const resolved = realOrNearest(resolve(cwd, raw));
  if (!isInside(resolved.real, roots)) throw outside(param, raw, roots);
  seam.beforeOpen?.(); // test seam: the window a swapped symlink would use
  let fd: number;
  try {
    fd = openSync(resolved.real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    throw unreadable(param, raw, e);
  }
  try {
    const opened = openedPath(fd, resolved.real);
    if (opened === undefined || !isInside(opened, roots)) throw outside(param, raw, roots);
    const st = fstatSync(fd);
    if (!st.isFile()) {
      throw new HandoffError(
        'INPUT_NOT_REGULAR',
        `${param} ${JSON.stringify(raw)} is a ${fileTypeName(st)}, not a regular file; it was not read`,
      );
    }
    if (st.nlink > 1 && options.allowHardlinks !== true) throw hardlinked(param, raw, st.nlink);
    return copyOf(fd, basename(resolved.real), param, raw);
  } finally {
    closeSync(fd);
  }
}

/** The bytes of `fd` in a fresh private folder, under the source's name (whose extension the verbs keep). */
function copyOf(fd: number, name: string, param: string, raw: string): Confined {
  const dir = mkdtempSync(join(tmpdir(), 'handoff-mcp-'));
  const dispose = (): void => rmSync(dir, { recursive: true, force: true });
  const path = join(dir, name);
  try {
    const out = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      const buf = Buffer.allocUnsafe(64 * 1024);
      for (let n = readSync(fd, buf, 0, buf.length, null); n > 0; n = readSync(fd, buf, 0, buf.length, null)) {
        for (let off = 0; off < n;) off += writeSync(out, buf, off, n - off);
      }
    } finally {
      closeSync(out);
    }
  } catch (e) {
    dispose();
    throw unreadable(param, raw, e);
  }
  return { path, dispose };
}

/** A directory parameter (evidence_run's `cwd`): inside the roots, handed on resolved; a missing one is left to the verb. */
export function confineDir(param: string, raw: string, cwd: string, roots: readonly string[]): string {
  if (raw === '') return raw;
  const resolved = realOrNearest(resolve(cwd, raw));
  if (!isInside(resolved.real, roots)) throw outside(param, raw, roots, 'nothing was run');
  return resolved.exists ? resolved.real : raw;
}

/** The parameters of a tool that name a file it reads, or a directory it works in. */
export interface PathParams {
  files?: readonly string[];
  dirs?: readonly string[];
}

export const namesPaths = (spec: PathParams, args: Record<string, unknown>): boolean =>
  [...(spec.files ?? []), ...(spec.dirs ?? [])].some((p) => typeof args[p] === 'string');

/** The arguments with every path parameter confined (files replaced by their private copies), and their cleanup. */
export function confineArgs(
  spec: PathParams,
  args: Record<string, unknown>,
  cwd: string,
  roots: readonly string[],
  options: ConfineOptions = {},
): { args: Record<string, unknown>; dispose(): void } {
  const out = { ...args };
  const copies: Confined[] = [];
  const dispose = (): void => copies.forEach((c) => c.dispose());
  try {
    for (const p of spec.dirs ?? []) if (typeof args[p] === 'string') out[p] = confineDir(p, args[p], cwd, roots);
    for (const p of spec.files ?? []) {
      if (typeof args[p] !== 'string') continue;
      const copy = confineFile(p, args[p], cwd, roots, {}, options);
      copies.push(copy);
      out[p] = copy.path;
    }
  } catch (e) {
    dispose();
    throw e;
  }
  return { args: out, dispose };
}
