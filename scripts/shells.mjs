// The shells the completion tests run each script in: bash, zsh and fish (test/cli/autocomplete-shells.test.ts).
//
// A shell on PATH is used as it is. A missing zsh or fish is fetched from the Debian archive the machine's apt is
// configured for (`apt-get download`, signatures checked by apt), unpacked with `dpkg-deb -x` into a cache, and run
// from there: no root, nothing installed, nothing written outside the cache. When apt has no package lists (a fresh
// machine; only root may update the system's), apt reads the archive's indexes into the cache instead. Libraries the
// unpacked binaries miss (`ldd`) are fetched the same way and found through LD_LIBRARY_PATH.
//
// Cache: $HANDOFF_SHELLS_CACHE, else $XDG_CACHE_HOME/handoff-shells, else ~/.cache/handoff-shells; one folder per
// release, architecture and package set, made in a temp folder and renamed into place, so a concurrent run or an
// interrupted one never leaves half a shell.
//
// `node scripts/shells.mjs` fetches what is missing and prints where each shell is.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The Debian packages that make each shell; fish's share folder holds its own functions, zsh's holds compinit. */
const PACKAGES = { zsh: ['zsh', 'zsh-common'], fish: ['fish', 'fish-common'] };
/** The package of each library an unpacked binary may miss on a minimal machine. */
const LIBRARY_PACKAGES = {
  'libpcre2-32.so.0': 'libpcre2-32-0',
  'libcap.so.2': 'libcap2',
  'libtinfo.so.6': 'libtinfo6',
  'libstdc++.so.6': 'libstdc++6',
  'libgcc_s.so.1': 'libgcc-s1',
};
/** The zsh modules the tests load (the completion system and zpty); their libraries are checked with zsh's own. */
const ZSH_MODULES = ['zle', 'complete', 'complist', 'computil', 'parameter', 'zutil', 'zpty'];

/**
 * @typedef {{ command: string, env: Record<string, string>, prelude: string }} Shell
 * `command` runs the shell; `env` is added to its environment; `prelude` is shell code to run first (zsh: where its
 * modules and functions are, when it was fetched).
 */

const run = (command, args, options = {}) => spawnSync(command, args, { encoding: 'utf8', ...options });
const onPath = (name) => {
  const r = run('sh', ['-c', `command -v ${name}`]);
  return r.status === 0 ? r.stdout.trim() : undefined;
};

function cacheRoot() {
  if (process.env.HANDOFF_SHELLS_CACHE) return process.env.HANDOFF_SHELLS_CACHE;
  const base = process.env.XDG_CACHE_HOME || join(process.env.HOME || homedir(), '.cache');
  return join(base, 'handoff-shells');
}

/** `<release>-<architecture>-<hash of the package set>`: another release or package set gets a folder of its own. */
function cacheKey(packages) {
  const release = /^VERSION_CODENAME=(.*)$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? 'unknown';
  const arch = run('dpkg', ['--print-architecture']).stdout.trim();
  const hash = createHash('sha256').update(packages.join(' ')).digest('hex').slice(0, 8);
  return `${release}-${arch}-${hash}`;
}

/** apt-get with its lists and archives inside `state` (a private copy of the archive's indexes, read without root). */
const privateApt = (state) => [
  '-o',
  `Dir::State::Lists=${join(state, 'lists')}`,
  '-o',
  `Dir::Cache=${join(state, 'cache')}`,
  '-o',
  'Dir::State::status=/dev/null',
  '-o',
  'Debug::NoLocking=1',
];

/** Downloads `packages` (.deb files) into `dir`: with the machine's package lists, else with private ones. */
function download(packages, dir) {
  const direct = run('apt-get', ['download', ...packages], { cwd: dir });
  if (direct.status === 0) return;
  const state = join(dir, 'apt');
  for (const sub of ['lists/partial', 'cache/archives/partial']) mkdirSync(join(state, sub), { recursive: true });
  if (!existsSync(join(state, 'lists', 'lock'))) {
    const update = run('apt-get', [...privateApt(state), 'update'], { cwd: dir });
    if (update.status !== 0) throw new Error(`shells: apt-get update (private lists) failed:\n${update.stderr}`);
    writeFileSync(join(state, 'lists', 'lock'), '');
  }
  const second = run('apt-get', [...privateApt(state), 'download', ...packages], { cwd: dir });
  if (second.status !== 0)
    throw new Error(`shells: apt-get download ${packages.join(' ')} failed:\n${direct.stderr}${second.stderr}`);
}

/** Unpacks every .deb of `dir` into `root`. */
function unpack(dir, root) {
  for (const deb of readdirSync(dir).filter((f) => f.endsWith('.deb'))) {
    const r = run('dpkg-deb', ['-x', join(dir, deb), root]);
    if (r.status !== 0) throw new Error(`shells: dpkg-deb -x ${deb} failed:\n${r.stderr}`);
    rmSync(join(dir, deb));
  }
}

/** The multiarch library folder of `root` (`usr/lib/x86_64-linux-gnu`), or usr/lib when it has none. */
function libraryPath(root) {
  const lib = join(root, 'usr', 'lib');
  const arch = existsSync(lib) ? readdirSync(lib).find((d) => d.includes('-linux-')) : undefined;
  return arch === undefined ? lib : join(lib, arch);
}

/** zsh's module folder inside `root` (`usr/lib/<multiarch>/zsh/<version>`). */
function zshModules(root) {
  const base = join(libraryPath(root), 'zsh');
  const version = existsSync(base) ? readdirSync(base).find((v) => /^\d/.test(v)) : undefined;
  if (version === undefined) throw new Error(`shells: no zsh module folder under ${root}`);
  return join(base, version);
}

/** The binaries of a fetched shell whose libraries must all resolve. */
function binariesOf(name, root) {
  if (name === 'fish') return [join(root, 'usr', 'bin', 'fish')];
  const modules = zshModules(root);
  return [join(root, 'bin', 'zsh'), ...ZSH_MODULES.map((m) => join(modules, 'zsh', `${m}.so`))];
}

/** The libraries `binaries` miss, with `root`'s own library folder searched too. */
function missingLibraries(binaries, root) {
  const missing = new Set();
  for (const bin of binaries) {
    const r = run('ldd', [bin], { env: { ...process.env, LD_LIBRARY_PATH: libraryPath(root) } });
    for (const m of r.stdout.matchAll(/^\s*(\S+) => not found$/gm)) missing.add(m[1]);
  }
  return [...missing];
}

/** Fetches the shells `names` into one cache folder (reused when complete) and returns its root. */
function fetchShells(names) {
  const packages = names.flatMap((n) => PACKAGES[n]).sort();
  const base = cacheRoot();
  const final = join(base, cacheKey(packages));
  if (existsSync(join(final, 'complete'))) return join(final, 'root');
  if (onPath('apt-get') === undefined || onPath('dpkg-deb') === undefined) {
    throw new Error(
      `shells: ${names.join(' and ')} missing, and no apt-get/dpkg-deb to fetch ${names.length > 1 ? 'them' : 'it'} with: install ${packages.join(' ')}`,
    );
  }
  let work;
  try {
    mkdirSync(base, { recursive: true });
    work = mkdtempSync(join(base, '.fetch-'));
  } catch (e) {
    throw new Error(
      `shells: cannot write the cache folder ${base} (${e.code}); set HANDOFF_SHELLS_CACHE to a writable folder`,
      { cause: e },
    );
  }
  try {
    const root = join(work, 'root');
    download(packages, work);
    unpack(work, root);
    // fish finds its functions relative to itself (<prefix>/share/fish) when <prefix>/etc/fish exists as well;
    // Debian's fish-common puts it in /etc.
    if (names.includes('fish') && !existsSync(join(root, 'usr', 'etc')))
      symlinkSync('../etc', join(root, 'usr', 'etc'));
    const binaries = names.flatMap((n) => binariesOf(n, root));
    const missing = missingLibraries(binaries, root);
    if (missing.length > 0) {
      const unknown = missing.filter((lib) => LIBRARY_PACKAGES[lib] === undefined);
      if (unknown.length > 0)
        throw new Error(
          `shells: the fetched shells need ${unknown.join(', ')}, which scripts/shells.mjs does not know`,
        );
      download(
        missing.map((lib) => LIBRARY_PACKAGES[lib]),
        work,
      );
      unpack(work, root);
      const still = missingLibraries(binaries, root);
      if (still.length > 0) throw new Error(`shells: still missing after fetching their packages: ${still.join(', ')}`);
    }
    rmSync(join(work, 'apt'), { recursive: true, force: true });
    writeFileSync(join(work, 'complete'), `${packages.join('\n')}\n`);
    try {
      renameSync(work, final);
    } catch (e) {
      // Another run got there first with the same packages: use its folder.
      if (!existsSync(join(final, 'complete'))) throw e;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return join(final, 'root');
}

/** A fetched shell's description (see Shell), from the cache root `root`. */
function fetched(name, root) {
  if (name === 'fish')
    return { command: join(root, 'usr', 'bin', 'fish'), env: { LD_LIBRARY_PATH: libraryPath(root) }, prelude: '' };
  const functions = join(root, 'usr', 'share', 'zsh', 'functions');
  const prelude = `module_path=(${JSON.stringify(zshModules(root))}); fpath=(${JSON.stringify(functions)}/**/*(/N) $fpath)`;
  return { command: join(root, 'bin', 'zsh'), env: { LD_LIBRARY_PATH: libraryPath(root) }, prelude };
}

/** bash, zsh and fish, each runnable: from PATH when there, else fetched (see the top of this file). @returns {Record<'bash'|'zsh'|'fish', Shell>} */
export function shells() {
  const bash = onPath('bash');
  if (bash === undefined) throw new Error('shells: no bash on PATH');
  const out = { bash: { command: bash, env: {}, prelude: '' } };
  const missing = [];
  for (const name of ['zsh', 'fish']) {
    const found = onPath(name);
    if (found === undefined) missing.push(name);
    else out[name] = { command: found, env: {}, prelude: '' };
  }
  if (missing.length > 0) {
    const root = fetchShells(missing);
    for (const name of missing) out[name] = fetched(name, root);
  }
  return out;
}

if (process.argv[1] === import.meta.filename) {
  const found = shells();
  for (const [name, shell] of Object.entries(found))
    console.log(
      `${name}: ${shell.command}${shell.env.LD_LIBRARY_PATH ? ` (libraries: ${shell.env.LD_LIBRARY_PATH})` : ''}`,
    );
}
