/**
 * The shared input reader for every file argument: follows symlinks, refuses what is
 * not a regular file without reading it, and reads `-` from stdin where allowed. It sits below the CLI because the
 * services read files too (evidence deposits, update_contracts, a dispatch goal): none of them may import src/cli/.
 */
import { openSync, closeSync, fstatSync, readFileSync, statSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { HandoffError } from '../errors.js';

export function fileTypeName(st: import('node:fs').Stats): string {
  if (st.isDirectory()) return 'directory';
  if (st.isFIFO()) return 'FIFO';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  if (st.isSymbolicLink()) return 'symlink';
  return 'special file';
}

const notRegular = (path: string, type: string): HandoffError =>
  new HandoffError('INPUT_NOT_REGULAR', `${JSON.stringify(path)} is a ${type}, not a regular file; it was not read`);

const at = (path: string, cwd: string | undefined): string => (cwd === undefined ? path : resolve(cwd, path));

const unreadable = (path: string, e: unknown): HandoffError =>
  new HandoffError('UNREADABLE_INPUT', `cannot read ${JSON.stringify(path)}: ${(e as Error).message}`);

/**
 * Checks that `path` names a readable regular file (following symlinks) without reading it. Returns its size. A
 * relative path resolves against `cwd` (the verb's working directory, never the process's); messages name the path
 * as given. Without `cwd` the path is one the tool made itself (absolute).
 */
export function checkRegularFile(path: string, cwd?: string): number {
  let st;
  try {
    st = statSync(at(path, cwd));
  } catch (e) {
    throw unreadable(path, e);
  }
  if (!st.isFile()) throw notRegular(path, fileTypeName(st));
  return st.size;
}

/** Reads a regular file whole (O_NONBLOCK open so a FIFO swapped in after the stat can never hang us). */
export function readRegularFile(path: string, cwd?: string): Buffer {
  checkRegularFile(path, cwd);
  let fd: number;
  try {
    fd = openSync(at(path, cwd), constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw unreadable(path, e);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(path, fileTypeName(st));
    return readFileSync(fd);
  } catch (e) {
    if (e instanceof HandoffError) throw e;
    throw unreadable(path, e);
  } finally {
    closeSync(fd);
  }
}

/**
 * Decodes UTF-8 strictly (a BOM is kept as U+FEFF). Bytes that are not valid UTF-8 are refused (INVALID_UTF8, exit 2,
 * naming `source`) instead of being stored with U+FFFD in their place. TextDecoder is a global: no module is loaded.
 */
export function decodeUtf8(bytes: Uint8Array, source: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw invalidUtf8(source);
  }
}

export const invalidUtf8 = (source: string): HandoffError =>
  new HandoffError(
    'INVALID_UTF8',
    `${source} is not valid UTF-8; nothing was read from it`,
    {},
    'Re-encode it as UTF-8.',
  );

/** Reads a regular file as text, decoding UTF-8 strictly (INVALID_UTF8 names the file). */
export function readUtf8File(path: string, cwd: string): string {
  return decodeUtf8(readRegularFile(path, cwd), JSON.stringify(path));
}

/** `--json-file` / `--file`: a path, or `-` for stdin when `allowStdin`. */
export async function readInput(
  path: string,
  cwd: string,
  readStdin: () => Promise<Buffer>,
  allowStdin = true,
): Promise<Buffer> {
  if (path === '-' && allowStdin) return readStdin();
  return readRegularFile(path, cwd);
}
