/**
 * The atomic blob writer, shared by `evidence add` and the receipt output layout
 *: `<evidenceRoot>/<segment>/…/<name>`.
 *
 *   const blob = writeBlob({ evidenceRoot, segments: [ws, brief, ac], name: mintBlobName('.txt') }, { kind: 'bytes', bytes });
 *   try { insertRow(blob.path, blob.sha256, blob.size) } catch (e) { discardBlob(blob); throw e }
 *
 * Steps: create the missing directories (0700) remembering which this call created; refuse any segment that is a
 * symlink or not a directory before anything is created inside it; check realpath(dir) === rootReal/segments
 * (EVIDENCE_PATH_ESCAPE, exit 1); write `.<uuid>.<pid>.tmp` with O_EXCL (0600) while hashing; fsync, rename, fsync the
 * directory; run the canonical-path rule on the final path. Any failure removes the temp file, the blob and the
 * directories this call created (EVIDENCE_WRITE_FAILED, exit 4). Segments are the caller's responsibility: safe
 * slugs, or fixed names (`_receipts`, a receipt id).
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { HandoffError } from '../errors.js';
import { dataRootUnsafe, dataRootUnusable, entryKind } from '../paths.js';
import { entryExists, unlinkQuiet } from '../fs-util.js';
import { fileTypeName } from '../input/files.js';
import { mintUuid } from '../ids.js';
import { checkCanonicalPath, isStrictlyBelow, realEvidenceRoot } from './canonical-path.js';

export interface BlobTarget {
  /** `<root>/evidence` as given by paths.evidenceRoot (unresolved; it is created when missing). */
  evidenceRoot: string;
  /** Directory segments below the evidence root, already checked by the caller. */
  segments: string[];
  /** The final file name (`<uuid><ext>`, `stdout`, `stderr`). */
  name: string;
}

/** The payload: bytes in memory, or a regular file streamed (opened O_NONBLOCK and re-checked with fstat). */
export type BlobSource = { kind: 'bytes'; bytes: Uint8Array } | { kind: 'file'; path: string };

export interface WrittenBlob {
  /** The stored path: built on realpath(<root>/evidence), equal to what the canonical-path rule returns. */
  path: string;
  sha256: string;
  size: number;
  /** realpath of the evidence root (the stop of discardBlob's upward walk). */
  rootReal: string;
  /** Directories this call created, outermost first (the evidence root itself included when it was missing). */
  createdDirs: string[];
}

export const BLOB_SUFFIX_RE = /^\.[A-Za-z0-9_-]{1,16}$/;
/**
 * Temp file names: `.<uuid>.<pid>.tmp`, the pid of the writer (so `gc` can tell an abandoned one from one being
 * written); `.<uuid>.tmp` from before the pid was added. Also how `orphans` recognises them.
 */
export const TEMP_NAME_RE = /^\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?:\.([0-9]+))?\.tmp$/;

/** The extension of a stored file: the source's last suffix when it is safe (case kept), else `.bin`. */
export function blobExtension(sourcePath: string): string {
  const ext = extname(basename(sourcePath));
  return BLOB_SUFFIX_RE.test(ext) ? ext : '.bin';
}

export const mintBlobName = (ext: string): string => `${mintUuid()}${ext}`;

const CHUNK = 64 * 1024;

const writeFailed = (what: string, e: unknown): HandoffError => {
  const err = new HandoffError('EVIDENCE_WRITE_FAILED', `${what}: ${(e as Error).message}`);
  err.cause = e;
  return err;
};

const escape = (dir: string, why: string): HandoffError =>
  new HandoffError(
    'EVIDENCE_PATH_ESCAPE',
    `blob directory ${dir} ${why}; nothing was written`,
    {},
    'remove the symlink from the evidence tree (run handoff evidence orphans to inspect it)',
  );

/** mkdir one directory; true when this call created it. An existing entry must be a real directory. */
function ensureDir(dir: string, created: string[], insideRoot: boolean): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
    created.push(dir);
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw writeFailed(`cannot create ${dir}`, e);
  }
  let st;
  try {
    st = lstatSync(dir);
  } catch (e) {
    throw writeFailed(`cannot inspect ${dir}`, e);
  }
  if (insideRoot && st.isSymbolicLink()) throw escape(dir, 'is a symlink');
  if (!insideRoot && st.isSymbolicLink()) return; // the evidence root (or an ancestor) may be a link; it is resolved
  if (!st.isDirectory()) {
    if (insideRoot) throw escape(dir, `is a ${fileTypeName(st)}, not a directory`);
    throw writeFailed(`cannot create ${dir}`, new Error(`it is a ${fileTypeName(st)}`));
  }
}

/**
 * The evidence root and its missing ancestors, created outermost first, one level at a time. The ancestors (the data
 * root and above) failing is DATA_ROOT_UNUSABLE; the evidence root must end up a real folder, never a symlink
 * (DATA_ROOT_UNSAFE).
 */
function ensureRoot(root: string, created: string[]): void {
  const missing: string[] = [];
  let cur = root;
  for (;;) {
    try {
      lstatSync(cur);
      break;
    } catch {
      missing.unshift(cur);
      const up = dirname(cur);
      if (up === cur) break;
      cur = up;
    }
  }
  for (const dir of missing) {
    if (dir === root) ensureDir(dir, created, false);
    else {
      try {
        ensureDir(dir, created, false);
      } catch (e) {
        throw dataRootUnusable(dirname(root), (e as { cause?: unknown }).cause ?? e);
      }
    }
  }
  let st;
  try {
    st = lstatSync(root);
  } catch (e) {
    throw writeFailed(`cannot inspect ${root}`, e);
  }
  if (!st.isDirectory()) throw dataRootUnsafe(root, entryKind(st));
}

function removeDirs(dirs: string[]): void {
  for (const dir of [...dirs].reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      // not empty (a concurrent deposit) or already gone: leave it
    }
  }
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch (e) {
    // Some platforms refuse fsync on a directory; the rename is still atomic.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM') throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Copies the source into `fd`, hashing as it goes; returns [sha256, bytes]. */
function copyInto(fd: number, source: BlobSource): [string, number] {
  const hash = createHash('sha256');
  const put = (buf: Uint8Array): void => {
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    hash.update(buf);
  };
  if (source.kind === 'bytes') {
    put(source.bytes);
    return [hash.digest('hex'), source.bytes.length];
  }
  let src: number;
  try {
    src = openSync(source.path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new HandoffError('UNREADABLE_INPUT', `cannot read ${JSON.stringify(source.path)}: ${(e as Error).message}`);
  }
  try {
    const st = fstatSync(src);
    if (!st.isFile()) {
      throw new HandoffError(
        'INPUT_NOT_REGULAR',
        `${JSON.stringify(source.path)} is a ${fileTypeName(st)}, not a regular file; it was not read`,
      );
    }
    const buf = Buffer.allocUnsafe(CHUNK);
    let total = 0;
    for (;;) {
      let n: number;
      try {
        n = readSync(src, buf, 0, CHUNK, null);
      } catch (e) {
        throw new HandoffError(
          'UNREADABLE_INPUT',
          `cannot read ${JSON.stringify(source.path)}: ${(e as Error).message}`,
        );
      }
      if (n === 0) break;
      put(buf.subarray(0, n));
      total += n;
    }
    return [hash.digest('hex'), total];
  } finally {
    closeSync(src);
  }
}

/** A parent vanished under us (a concurrent deposit's cleanup removed an empty directory): worth one more try. */
const isVanished = (e: unknown): boolean => (e as { cause?: NodeJS.ErrnoException })?.cause?.code === 'ENOENT';

/** Writes one blob atomically (see the header). Throws a HandoffError; on any failure nothing it wrote remains. */
export function writeBlob(target: BlobTarget, source: BlobSource): WrittenBlob {
  for (let attempt = 1; ; attempt++) {
    try {
      return writeOnce(target, source);
    } catch (e) {
      if (attempt >= 3 || !isVanished(e)) throw e;
    }
  }
}

function writeOnce(target: BlobTarget, source: BlobSource): WrittenBlob {
  const created: string[] = [];
  let tmp: string | undefined;
  let final: string | undefined;
  try {
    ensureRoot(target.evidenceRoot, created);
    const rootReal = realEvidenceRoot(target.evidenceRoot);
    if (rootReal === undefined)
      throw writeFailed(`cannot resolve ${target.evidenceRoot}`, new Error('realpath failed'));
    let dir = rootReal;
    for (const seg of target.segments) {
      dir = join(dir, seg);
      ensureDir(dir, created, true);
    }
    let dirReal: string;
    try {
      dirReal = realpathSync(dir);
    } catch (e) {
      throw writeFailed(`cannot resolve ${dir}`, e);
    }
    if (dirReal !== dir) throw escape(dir, `resolves to ${dirReal}`);

    const tmpPath = join(dir, `.${mintUuid()}.${process.pid}.tmp`);
    const finalPath = join(dir, target.name);
    let fd: number;
    try {
      fd = openSync(tmpPath, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
    } catch (e) {
      throw writeFailed(`cannot create ${tmpPath}`, e);
    }
    tmp = tmpPath;
    let digest: [string, number];
    try {
      digest = copyInto(fd, source);
      fsyncSync(fd);
    } catch (e) {
      if (e instanceof HandoffError) throw e;
      throw writeFailed(`cannot write ${tmpPath}`, e);
    } finally {
      closeSync(fd);
    }
    if (entryExists(finalPath)) throw writeFailed(`cannot store ${finalPath}`, new Error('a file of that name exists'));
    try {
      renameSync(tmpPath, finalPath);
      tmp = undefined;
      final = finalPath;
      fsyncDir(dir);
    } catch (e) {
      throw writeFailed(`cannot store ${finalPath}`, e);
    }
    const rule = checkCanonicalPath(finalPath, target.evidenceRoot);
    if (!rule.ok) throw escape(dir, `failed the canonical-path check: ${finalPath} ${rule.detail}`);
    if (rule.real !== finalPath) throw escape(dir, `resolves to ${rule.real}`);
    return { path: finalPath, sha256: digest[0], size: digest[1], rootReal, createdDirs: created };
  } catch (e) {
    unlinkQuiet(tmp);
    unlinkQuiet(final);
    removeDirs(created);
    if (e instanceof HandoffError) throw e;
    throw writeFailed('cannot write the blob', e);
  }
}

/**
 * Undoes a written blob after a later failure: unlinks it, removes every directory that is now empty
 * walking upward from its directory, stopping at (never removing) the evidence root, and finally the evidence root
 * and its ancestors when this call created them and they are empty. Never throws.
 */
export function discardBlob(blob: WrittenBlob): void {
  unlinkQuiet(blob.path);
  let dir = dirname(blob.path);
  while (isStrictlyBelow(blob.rootReal, dir)) {
    try {
      rmdirSync(dir);
    } catch {
      break;
    }
    dir = dirname(dir);
  }
  removeDirs(blob.createdDirs.filter((d) => !isStrictlyBelow(blob.rootReal, d)));
}
