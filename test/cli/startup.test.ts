/**
 * The fast-start recipe's safety (amendments-2.md §S2): the build's oclif patches fail loudly when their text is
 * gone, and the V8 code cache only ever saves time: a missing, corrupt or unwritable cache never changes a result.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { hotVerbCalls, REPO, tempHome } from '../helpers/cli.js';

const patches = (await import(pathToFileURL(join(REPO, 'scripts', 'bundle', 'oclif-patches.mjs')).href)) as {
  PATCHED_FILES: string[];
  expectedTexts(file: string): string[];
  patchOclifSource(file: string, source: string): string;
};
const OCLIF_LIB = join(createRequire(import.meta.url).resolve('@oclif/core/package.json'), '..', 'lib');

describe('build-time patches of @oclif/core', () => {
  it.each(patches.PATCHED_FILES)('%s: applies to the installed oclif and changes it', (file) => {
    const source = readFileSync(join(OCLIF_LIB, file), 'utf8');
    const patched = patches.patchOclifSource(file, source);
    expect(patched).not.toBe(source);
  });

  it.each(patches.PATCHED_FILES)('%s: the build fails when the expected text is gone', (file) => {
    const source = readFileSync(join(OCLIF_LIB, file), 'utf8');
    // An oclif release that reformatted the line: one more space inside each text a patch expects.
    for (const text of patches.expectedTexts(file)) {
      expect(source).toContain(text);
      const mangled = source.replaceAll(text, `${text.slice(0, 1)} ${text.slice(1)}`);
      expect(() => patches.patchOclifSource(file, mangled)).toThrow(/^build: .*@oclif\/core\/lib\//);
    }
  });
});

/** A copy of the installed package (bin, bundle, manifest, package.json; node_modules and migrations linked). */
function packageCopy(): string {
  const root = tempHome('handoff-pkg-');
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
  for (const f of ['bin/run.js', 'bin/package.json', 'dist/cli/handoff.cjs', 'package.json', 'oclif.manifest.json']) copyFileSync(join(REPO, f), join(root, f));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  symlinkSync(join(REPO, 'migrations'), join(root, 'migrations'));
  return root;
}

function runFrom(root: string, args: string[]) {
  const home = tempHome();
  const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home, NO_COLOR: '1' };
  delete env.HANDOFF_DB;
  const r = spawnSync(process.execPath, [join(root, 'bin', 'run.js'), ...args], { env, cwd: home, encoding: 'utf8', input: '' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the V8 code cache beside the bundle', () => {
  const cacheOf = (root: string): string => join(root, 'dist', 'cli', 'handoff.cjs.cache');

  it('the bundle is ASCII, so V8 holds its source one byte per character', () => {
    const source = readFileSync(join(REPO, 'dist', 'cli', 'handoff.cjs'), 'latin1');
    expect(source.length).toBeGreaterThan(100_000);
    expect(/[^\0-\x7f]/.exec(source)?.index).toBeUndefined();
  });

  it('the bundle carries its module wrapper: as a script its value is the module function; require() runs it', () => {
    const file = join(REPO, 'dist', 'cli', 'handoff.cjs');
    const wrapper: unknown = new Script(readFileSync(file, 'latin1'), { filename: file }).runInThisContext();
    expect(typeof wrapper).toBe('function');
    expect((wrapper as (...a: unknown[]) => unknown).length).toBe(5);
    const required = createRequire(import.meta.url)(file) as Record<string, unknown>;
    expect(typeof required.main).toBe('function');
  });

  it('the build wrote one', () => {
    expect(statSync(join(REPO, 'dist', 'cli', 'handoff.cjs.cache')).size).toBeGreaterThan(10_000);
  });

  it('a missing cache is written by the first call, and the call works the same', () => {
    const root = packageCopy();
    expect(existsSync(cacheOf(root))).toBe(false);
    const r = runFrom(root, ['contract', 'init', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok' });
    expect(statSync(cacheOf(root)).size).toBeGreaterThan(10_000);
  });

  it('a corrupt cache is ignored and replaced', () => {
    const root = packageCopy();
    writeFileSync(cacheOf(root), 'not a V8 code cache');
    const r = runFrom(root, ['contract', 'init', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(readFileSync(cacheOf(root), 'utf8')).not.toBe('not a V8 code cache');
  });

  it('a cache that cannot be read or written (a folder in its place, as on a read-only install) costs nothing but time', () => {
    const root = packageCopy();
    mkdirSync(cacheOf(root));
    const r = runFrom(root, ['contract', 'init', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok' });
    expect(statSync(cacheOf(root)).isDirectory()).toBe(true);
  });
});

describe('lazy modules: what a hot verb does not load', () => {
  // The built-ins a hot verb has no use for; each costs milliseconds of every call when a module-level import loads
  // it (docs/decisions.md, "Fast start"): stdout's stream machinery (net, stream, tty), crypto, child_process.
  const AVOIDED = ['crypto', 'child_process', 'fs/promises', 'net', 'stream', 'tty', 'readline', 'perf_hooks'];
  const RECORDER = join(REPO, 'test', 'fixtures', 'record-modules.cjs');
  const D = 'a0123456789abcdef.0123456789ab';

  /** The public built-ins (`NativeModule x`, not internal/...) the call loaded, with stdout and stderr on pipes. */
  function builtinsOf(home: string, args: string[], stdin: 'pipe' | 'ignore' = 'pipe'): { code: number | null; builtins: string[] } {
    const tag = args.join('-').replace(/[^a-z0-9-]/gi, '_');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HANDOFF_HOME: home,
      NO_COLOR: '1',
      RECORD_MODULES_FILE: join(home, `modules-${tag}.txt`),
      RECORD_BUILTINS_FILE: join(home, `builtins-${tag}.txt`),
    };
    delete env.HANDOFF_DB;
    delete env.HANDOFF_STORE_URL;
    const r = spawnSync(process.execPath, ['--require', RECORDER, join(REPO, 'bin', 'run.js'), ...args], {
      env,
      cwd: home,
      encoding: 'utf8',
      stdio: [stdin, 'pipe', 'pipe'],
    });
    const lines = readFileSync(env.RECORD_BUILTINS_FILE!, 'utf8').split('\n');
    return { code: r.status, builtins: lines.filter((l) => l.startsWith('NativeModule ') && !l.includes('internal/')).map((l) => l.slice(13)) };
  }

  it('init, set, add, fill, view and validate load none of them (stdin a pipe, then /dev/null)', () => {
    const home = tempHome();
    writeFileSync(join(home, 'envelope.json'), '{}');
    const calls = hotVerbCalls(D, join(home, 'envelope.json'));
    for (const stdin of ['pipe', 'ignore'] as const) {
      for (const args of calls) {
        const { code, builtins } = builtinsOf(home, args, stdin);
        expect([0, 1], args.join(' ')).toContain(code);
        expect(builtins.filter((b) => AVOIDED.includes(b)), `${args.join(' ')} (stdin ${stdin})`).toEqual([]);
      }
    }
  });

  it('the recorder sees them where they are used: init minting a new id loads crypto, help on a pipe loads net', () => {
    const home = tempHome();
    const init = builtinsOf(home, ['contract', 'init', '--json']);
    expect(init.code).toBe(0);
    expect(init.builtins).toContain('crypto');
    const help = builtinsOf(home, ['help']);
    expect(help.code).toBe(0);
    expect(help.builtins).toEqual(expect.arrayContaining(['net', 'stream']));
  });
});
