/**
 * The canonical-path rule: used for every `artifact_path` that enters the store from an envelope
 * and as the post-check of every blob the tool mints. Never throws: a Node path exception (NUL byte, name too long)
 * is a failure like any other.
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

export type CanonicalPath = { ok: true; real: string } | { ok: false; detail: string };

const errno = (e: unknown): string => (e as NodeJS.ErrnoException)?.code ?? 'error';

/** The resolved evidence root (`fs.realpath`, not `.native`), or undefined when it does not exist. */
export function realEvidenceRoot(evidenceRoot: string): string | undefined {
  try {
    return realpathSync(evidenceRoot);
  } catch {
    return undefined;
  }
}

/** True when `real` is strictly below `rootReal`, by segment comparison (never a string-prefix test). */
export function isStrictlyBelow(rootReal: string, real: string): boolean {
  const rel = relative(rootReal, real);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** Applies checks 1–6 to `p`; returns the resolved path to store, or the failure detail. */
export function checkCanonicalPath(p: unknown, evidenceRoot: string): CanonicalPath {
  if (typeof p !== 'string' || p === '' || p.includes('\0')) return { ok: false, detail: 'must be a non-empty string' };
  if (!isAbsolute(p)) return { ok: false, detail: 'must be an absolute path returned by `handoff evidence add`' };
  const rootReal = realEvidenceRoot(evidenceRoot);
  if (rootReal === undefined) {
    return { ok: false, detail: `no evidence has been deposited (evidence root ${evidenceRoot} does not exist)` };
  }
  let real: string;
  try {
    real = realpathSync(p);
  } catch (e) {
    const code = errno(e);
    const what = code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : 'cannot be resolved';
    return { ok: false, detail: `${what} (${code})` };
  }
  if (relative(rootReal, real) === '') return { ok: false, detail: 'is the evidence root itself' };
  if (!isStrictlyBelow(rootReal, real)) return { ok: false, detail: `resolves outside the evidence root ${rootReal}` };
  try {
    if (!statSync(real).isFile()) return { ok: false, detail: 'is not a regular file' };
  } catch (e) {
    return { ok: false, detail: `cannot be resolved (${errno(e)})` };
  }
  return { ok: true, real };
}

function isRealFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Where a stored file reference leads: the resolved file below the evidence root, outside it, or nowhere. */
export type ConfinedPath = { kind: 'inside'; real: string } | { kind: 'escape' } | { kind: 'missing' };

/**
 * A file path a row holds (an evidence blob, a receipt output), judged before anything is read: it must lie below
 * the evidence root both as written and once resolved (a symlink inside the tree pointing out is an escape too).
 * A row can say anything, so nothing outside the root is ever opened on its word.
 */
export function confinedPath(p: string, evidenceRoot: string): ConfinedPath {
  if (p === '' || p.includes('\0') || !isAbsolute(p)) return { kind: 'escape' };
  // A linked evidence root (the data root's folders must be real ones) leads elsewhere: nothing is read through it.
  const rootReal = isRealFolder(evidenceRoot) ? realEvidenceRoot(evidenceRoot) : undefined;
  const lexical = resolve(p);
  const below = (root: string): boolean => isStrictlyBelow(root, lexical);
  if (!below(resolve(evidenceRoot)) && (rootReal === undefined || !below(rootReal))) return { kind: 'escape' };
  if (rootReal === undefined) return { kind: 'missing' };
  let real: string;
  try {
    real = realpathSync(lexical);
  } catch {
    return { kind: 'missing' };
  }
  return isStrictlyBelow(rootReal, real) ? { kind: 'inside', real } : { kind: 'escape' };
}
