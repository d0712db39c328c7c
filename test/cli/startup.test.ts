/**
 * The fast-start recipe's safety: the build's oclif patches fail loudly when their text is
 * gone, and the V8 code cache only ever saves time: a missing, corrupt or unwritable cache never changes a result.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { hotVerbCalls, RECORDER, recordedBuiltins, REPO, run, tempHome } from '../helpers/cli.js';

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

const BUNDLES = ['handoff.cjs', 'handoff-hot.cjs', 'handoff-stop.cjs', 'handoff-mcp.cjs'];

/** A copy of the installed package (bin, bundles, manifest, package.json; node_modules and migrations linked). */
function packageCopy(): string {
  const root = tempHome('handoff-pkg-');
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
  const files = [
    'bin/run.js',
    'bin/package.json',
    'package.json',
    'oclif.manifest.json',
    ...BUNDLES.map((b) => `dist/cli/${b}`),
  ];
  for (const f of files) copyFileSync(join(REPO, f), join(root, f));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  symlinkSync(join(REPO, 'migrations'), join(root, 'migrations'));
  return root;
}

function runFrom(root: string, args: string[], input = '') {
  const home = tempHome();
  const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home, NO_COLOR: '1' };
  delete env.HANDOFF_DB;
  const r = spawnSync(process.execPath, [join(root, 'bin', 'run.js'), ...args], {
    env,
    cwd: home,
    encoding: 'utf8',
    input,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The code cache key of a child process this file starts (no options of its own, this environment's NODE_OPTIONS). */
const KEY = (
  createRequire(import.meta.url)(join(REPO, 'bin', 'run.js')) as { cacheKey(a: string[], o?: string): string }
).cacheKey([], process.env.NODE_OPTIONS);

describe('the bundles and their V8 code caches', () => {
  const cacheOf = (root: string, bundle: string): string => join(root, 'dist', 'cli', `${bundle}.${KEY}.cache`);
  // One verb served by each bundle (bin/run.js bundleFor), with its stdin.
  const HOOK = JSON.stringify({ hook_event_name: 'Stop', session_id: 's1', stop_reason: 'end_turn' });
  // init's one stderr line is the claim token it prints for the orchestrator, not a warning.
  const quiet = (stderr: string): string => stderr.replace(/^claim_token=hct_[A-Za-z0-9_-]{43}\n/, '');
  const CALLS: [string, string[], string][] = [
    ['handoff-hot.cjs', ['contract', 'init', '--json'], ''],
    ['handoff-stop.cjs', ['contract', 'gate', '--on-missing', 'allow', '--json'], HOOK],
    ['handoff.cjs', ['contract', 'list', '--json'], ''],
  ];

  it.each(BUNDLES)('%s is ASCII, so V8 holds its source one byte per character', (bundle) => {
    const source = readFileSync(join(REPO, 'dist', 'cli', bundle), 'latin1');
    expect(source.length).toBeGreaterThan(100_000);
    expect(/[^\0-\x7f]/.exec(source)?.index).toBeUndefined();
  });

  it('oclif.manifest.json, which every call parses, is ASCII and compact (one line)', () => {
    const text = readFileSync(join(REPO, 'oclif.manifest.json'), 'latin1');
    expect(/[^\0-\x7f]/.exec(text)?.index).toBeUndefined();
    expect(text.indexOf('\n')).toBe(text.length - 1);
    // The escapes keep the text: a summary with a non-ASCII character reads back as written.
    const manifest = JSON.parse(text) as { commands: Record<string, { summary?: string; description?: string }> };
    expect(Object.values(manifest.commands).some((c) => /[^\0-\x7f]/.test(`${c.summary}${c.description}`))).toBe(true);
  });

  it.each(BUNDLES)(
    '%s carries its module wrapper: as a script its value is the module function; require() runs it',
    (bundle) => {
      const file = join(REPO, 'dist', 'cli', bundle);
      const wrapper: unknown = new Script(readFileSync(file, 'latin1'), { filename: file }).runInThisContext();
      expect(typeof wrapper).toBe('function');
      expect((wrapper as (...a: unknown[]) => unknown).length).toBe(5);
      const required = createRequire(import.meta.url)(file) as Record<string, unknown>;
      expect(typeof required.main).toBe('function');
    },
  );

  it.each(BUNDLES)('the build wrote the cache of %s', (bundle) => {
    expect(statSync(cacheOf(REPO, bundle)).size).toBeGreaterThan(10_000);
  });

  it.each(CALLS)(
    'a missing cache of %s is written by the first call, and the call works the same',
    (bundle, args, input) => {
      const root = packageCopy();
      expect(existsSync(cacheOf(root, bundle))).toBe(false);
      const r = runFrom(root, args, input);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok' });
      expect(statSync(cacheOf(root, bundle)).size).toBeGreaterThan(10_000);
      // Only the bundle that ran wrote a cache.
      expect(BUNDLES.filter((b) => b !== bundle && existsSync(cacheOf(root, b)))).toEqual([]);
    },
  );

  it.each(CALLS)('a corrupt cache of %s is ignored and replaced', (bundle, args, input) => {
    const root = packageCopy();
    writeFileSync(cacheOf(root, bundle), 'not a V8 code cache');
    const r = runFrom(root, args, input);
    expect(r.code, r.stderr).toBe(0);
    expect(quiet(r.stderr)).toBe('');
    expect(readFileSync(cacheOf(root, bundle), 'utf8')).not.toBe('not a V8 code cache');
  });

  it.each(CALLS)(
    'a cache of %s that cannot be read or written (a folder in its place, as on a read-only install) costs nothing but time',
    (bundle, args, input) => {
      const root = packageCopy();
      mkdirSync(cacheOf(root, bundle));
      const r = runFrom(root, args, input);
      expect(r.code, r.stderr).toBe(0);
      expect(quiet(r.stderr)).toBe('');
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok' });
      expect(statSync(cacheOf(root, bundle)).isDirectory()).toBe(true);
    },
  );
});

describe("the hot and stop bundles: their verbs without the other verbs' modules", () => {
  const bin = createRequire(import.meta.url)(join(REPO, 'bin', 'run.js')) as {
    bundleFor(argv: string[]): string;
    BUNDLE: string;
    HOT_BUNDLE: string;
    STOP_BUNDLE: string;
    MCP_BUNDLE: string;
    HOT_VERBS: Set<string>;
    STOP_VERBS: Set<string>;
  };
  const manifest = JSON.parse(readFileSync(join(REPO, 'oclif.manifest.json'), 'utf8')) as {
    commands: Record<string, unknown>;
  };
  const ids = Object.keys(manifest.commands);
  const hotIds = [...bin.HOT_VERBS];
  const stopIds = [...bin.STOP_VERBS];
  /** Each bundle that holds only some verbs, with its verbs and the summary of a verb it leaves out. */
  const PARTIAL: [string, string, string[], string][] = [
    ['handoff-hot.cjs', bin.HOT_BUNDLE, hotIds, 'Persist the draft in a closing state into the store'],
    ['handoff-stop.cjs', bin.STOP_BUNDLE, stopIds, 'Start a new draft envelope'],
  ];

  it('bin/run.js sends exactly init, set, add, fill, view and validate to the hot one, the stop gate, finalize and the approval gate to the stop one, help included; mcp to its own bundle, everything else to the full one', () => {
    expect(hotIds.sort()).toEqual([
      'contract:add',
      'contract:fill',
      'contract:init',
      'contract:set',
      'contract:validate',
      'contract:view',
    ]);
    expect(stopIds.sort()).toEqual(['approval:gate', 'contract:finalize', 'contract:gate']);
    for (const id of ids) {
      const words = id.split(':');
      const want = hotIds.includes(id)
        ? bin.HOT_BUNDLE
        : stopIds.includes(id)
          ? bin.STOP_BUNDLE
          : id === 'mcp'
            ? bin.MCP_BUNDLE
            : bin.BUNDLE;
      expect(bin.bundleFor([...words, '--json']), id).toBe(want);
      expect(bin.bundleFor([...words, '--help']), `${id} --help`).toBe(want);
    }
    const others = [
      [],
      ['--version'],
      ['help', 'contract', 'set'],
      ['help', 'contract', 'gate'],
      ['contract'],
      ['contrat', 'set'],
      ['set', 'contract'],
      ['gate', 'contract'],
      ['contract', '--help'],
      ['contract:set'],
      ['contract:gate'],
      ['contract', 'set:x'],
    ];
    for (const argv of others) {
      expect(bin.bundleFor(argv), argv.join(' ')).toBe(bin.BUNDLE);
    }
  });

  it.each(PARTIAL)(
    'the command table of %s loads its verbs and refuses every other verb of the manifest by name',
    (name, file, own) => {
      const partial = createRequire(import.meta.url)(file) as { COMMANDS: Record<string, unknown> };
      const full = createRequire(import.meta.url)(bin.BUNDLE) as { COMMANDS: Record<string, unknown> };
      expect(Object.keys(partial.COMMANDS)).toEqual(ids);
      for (const id of ids) {
        expect(typeof full.COMMANDS[id], id).toBe('function');
        if (own.includes(id)) expect(typeof partial.COMMANDS[id], id).toBe('function');
        else expect(() => partial.COMMANDS[id], id).toThrow(`internal: ${id} is not in dist/cli/${name}`);
      }
    },
  );

  it.each(PARTIAL)(
    "%s is the smaller file: a verb's module text that it leaves out is not in it",
    (_name, file, _own, left) => {
      const partial = readFileSync(file, 'latin1');
      const full = readFileSync(bin.BUNDLE, 'latin1');
      expect(partial.length).toBeLessThan(full.length * 0.8);
      // Summaries, each written once, in its command class: one verb this bundle leaves out, and `store copy`.
      for (const text of [left, 'Copy the SQLite store into an empty PostgreSQL store']) {
        expect(full, text).toContain(text);
        expect(partial, text).not.toContain(text);
      }
    },
  );
});

describe('lazy modules: what a hot verb does not load', () => {
  // The built-ins a hot verb has no use for; each costs milliseconds of every call when a module-level import loads
  // it (docs/decisions.md, "Fast start"): stdout's stream machinery (net, stream, tty), crypto, child_process.
  const AVOIDED = ['crypto', 'child_process', 'fs/promises', 'net', 'stream', 'tty', 'readline', 'perf_hooks'];
  const D = 'a0123456789abcdef.0123456789ab';

  /** The public built-ins (`NativeModule x`, not internal/...) the call loaded, with stdout and stderr on pipes. */
  function builtinsOf(
    home: string,
    args: string[],
    stdin: 'pipe' | 'ignore' = 'pipe',
    input?: string,
    extra: NodeJS.ProcessEnv = {},
  ): { code: number | null; builtins: string[] } {
    const tag = args.join('-').replace(/[^a-z0-9-]/gi, '_');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HANDOFF_HOME: home,
      NO_COLOR: '1',
      RECORD_MODULES_FILE: join(home, `modules-${tag}.txt`),
      RECORD_BUILTINS_FILE: join(home, `builtins-${tag}.txt`),
      ...extra,
    };
    delete env.HANDOFF_DB;
    delete env.HANDOFF_STORE_URL;
    const r = spawnSync(process.execPath, ['--require', RECORDER, join(REPO, 'bin', 'run.js'), ...args], {
      env,
      cwd: home,
      encoding: 'utf8',
      stdio: [stdin, 'pipe', 'pipe'],
      input,
    });
    return { code: r.status, builtins: recordedBuiltins(env.RECORD_BUILTINS_FILE!) };
  }

  it('init, set, add, fill, view and validate load none of them (stdin a pipe, then /dev/null)', () => {
    const home = tempHome();
    writeFileSync(join(home, 'envelope.json'), '{}');
    const calls = hotVerbCalls(D, join(home, 'envelope.json'));
    // The calls cover every hot verb bin/run.js lists, and nothing else.
    const { HOT_VERBS } = createRequire(import.meta.url)(join(REPO, 'bin', 'run.js')) as { HOT_VERBS: Set<string> };
    expect(new Set(calls.map((c) => `${c[0]}:${c[1]}`))).toEqual(HOT_VERBS);
    for (const stdin of ['pipe', 'ignore'] as const) {
      for (const args of calls) {
        const { code, builtins } = builtinsOf(home, args, stdin);
        expect([0, 1], args.join(' ')).toContain(code);
        expect(
          builtins.filter((b) => AVOIDED.includes(b)),
          `${args.join(' ')} (stdin ${stdin})`,
        ).toEqual([]);
      }
    }
  });

  it('init mints its ids without crypto: the bytes come from the kernel (src/ids.ts)', () => {
    const home = tempHome();
    const init = builtinsOf(home, ['contract', 'init', '--json']);
    expect(init.code).toBe(0);
    expect(init.builtins).not.toContain('crypto');
  });

  it('the recorder sees them where they are used: a finalize that creates the store hashes its migrations with crypto, help on a pipe loads net', () => {
    const home = tempHome();
    const d = JSON.parse(run(home, ['contract', 'init', '--json']).stdout).draft_id as string;
    expect(
      run(home, ['contract', 'fill', '--draft-id', d, '--json', '{"agent_status":{"agent_state":"BLOCKED"}}']).code,
    ).toBe(0);
    const finalize = builtinsOf(home, ['contract', 'finalize', '--draft-id', d]);
    expect(finalize.code).toBe(0);
    expect(finalize.builtins).toContain('crypto');
    const help = builtinsOf(home, ['help']);
    expect(help.code).toBe(0);
    expect(help.builtins).toEqual(expect.arrayContaining(['net', 'stream']));
  });

  it('finalize and the stop gate take their small digests without crypto (src/sha256.ts); a large envelope loads it', () => {
    const home = tempHome();
    const closed = (args: string[], prose = 'p'): string => {
      const id = JSON.parse(run(home, [...args, '--json']).stdout).draft_id as string;
      const fill = ['contract', 'fill', '--draft-id', id, '--json'];
      expect(
        run(home, [...fill, JSON.stringify({ agent_status: { agent_state: 'BLOCKED' }, report_prose: prose })]).code,
      ).toBe(0);
      return id;
    };
    // The first finalize creates the store (its migrations are hashed with crypto); the measured ones find it.
    expect(run(home, ['contract', 'finalize', '--draft-id', closed(['contract', 'init'])]).code).toBe(0);
    const small = builtinsOf(home, ['contract', 'finalize', '--draft-id', closed(['contract', 'init'])]);
    expect(small.code).toBe(0);
    expect(small.builtins).not.toContain('crypto');
    // A dispatched contract, finalized, then its stop allowed, with both counter folders present: the allow names
    // (and removes) the key's counter file in each, which hashes the key.
    const dispatched = closed(['contract', 'dispatch', '--goal', 'g']);
    expect(run(home, ['contract', 'finalize', '--draft-id', dispatched]).code).toBe(0);
    mkdirSync(join(home, 'gate'));
    mkdirSync(join(home, `handoff-gate-${process.getuid?.() ?? 0}`), { mode: 0o700 });
    const hook = JSON.stringify({ hook_event_name: 'Stop', session_id: 's1', stop_reason: 'end_turn' });
    const allow = builtinsOf(home, ['contract', 'gate', '--draft-id', dispatched], 'pipe', hook, { TMPDIR: home });
    expect(allow.code).toBe(0);
    expect(allow.builtins).not.toContain('crypto');
    // Above the size src/sha256.ts hands to node:crypto, finalize's envelope digest loads it (the control).
    const large = builtinsOf(home, [
      'contract',
      'finalize',
      '--draft-id',
      closed(['contract', 'init'], 'x'.repeat(5000)),
    ]);
    expect(large.code).toBe(0);
    expect(large.builtins).toContain('crypto');
  });
});

describe("oclif's Config.load: not on the verbs of every step and every stop", () => {
  const READER = join(REPO, 'test', 'fixtures', 'record-reads.cjs');
  const MANIFEST = join(REPO, 'oclif.manifest.json');

  /** Whether `handoff ...args` read oclif.manifest.json, which Config.load reads (exit code and the answer). */
  function readsManifest(home: string, args: string[], input = ''): { code: number | null; read: boolean } {
    const file = join(home, `reads-${args.join('-').replace(/[^a-z0-9-]/gi, '_')}.txt`);
    const env: NodeJS.ProcessEnv = { ...process.env, HANDOFF_HOME: home, NO_COLOR: '1', RECORD_READS_FILE: file };
    delete env.HANDOFF_DB;
    delete env.HANDOFF_STORE_URL;
    const r = spawnSync(process.execPath, ['--require', READER, join(REPO, 'bin', 'run.js'), ...args], {
      env,
      cwd: home,
      encoding: 'utf8',
      input,
    });
    return { code: r.status, read: readFileSync(file, 'utf8').split('\n').includes(MANIFEST) };
  }

  it("they are bin/run.js's hot and stop verbs, exactly", () => {
    const bin = createRequire(import.meta.url)(join(REPO, 'bin', 'run.js')) as {
      BUNDLE: string;
      HOT_VERBS: Set<string>;
      STOP_VERBS: Set<string>;
    };
    const { LEAN_VERBS } = createRequire(import.meta.url)(bin.BUNDLE) as { LEAN_VERBS: Set<string> };
    expect([...LEAN_VERBS].sort()).toEqual([...bin.HOT_VERBS, ...bin.STOP_VERBS].sort());
  });

  it('the hot verbs, the stop gate, finalize and the approval gate run without reading the manifest; help and list read it', () => {
    const home = tempHome();
    writeFileSync(join(home, 'envelope.json'), '{}');
    for (const args of hotVerbCalls('a0123456789abcdef.0123456789ab', join(home, 'envelope.json'))) {
      const r = readsManifest(home, args);
      expect([0, 1], args.join(' ')).toContain(r.code);
      expect(r.read, args.join(' ')).toBe(false);
    }
    const d = JSON.parse(run(home, ['contract', 'init', '--json']).stdout).draft_id as string;
    expect(
      run(home, ['contract', 'fill', '--draft-id', d, '--json', '{"agent_status":{"agent_state":"BLOCKED"}}']).code,
    ).toBe(0);
    const stop = JSON.stringify({ hook_event_name: 'Stop', session_id: 's1', stop_reason: 'end_turn' });
    const tool = JSON.stringify({
      hook_event_name: 'PreToolUse',
      session_id: 's1',
      cwd: home,
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 't1',
    });
    for (const [args, input] of [
      [['contract', 'finalize', '--draft-id', d], ''],
      [['contract', 'gate', '--on-missing', 'allow'], stop],
      [['approval', 'gate', '--harness', 'claude'], tool],
    ] as const) {
      const r = readsManifest(home, [...args], input);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.read, args.join(' ')).toBe(false);
    }
    // The control: the same recorder sees the read where Config.load runs.
    for (const args of [['contract', 'list', '--json'], ['contract', 'set', '--help'], ['--version']]) {
      const r = readsManifest(home, args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.read, args.join(' ')).toBe(true);
    }
  });
});
