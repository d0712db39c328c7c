/**
 * The build's own safety nets (scripts/build.mjs, scripts/bundle/): the command tables of the hot and stop bundles
 * come from the lists of verbs in bin/run.js, and every build-time change to a library fails the build once what it
 * changes is gone (patches of oclif's text, stubs, lazy modules).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO, tempHome } from '../helpers/cli.js';
import { manifestCommands } from '../helpers/commands.js';

interface EsbuildPlugin {
  name: string;
  setup(build: unknown): void;
}
const load = async <T>(file: string): Promise<T> =>
  (await import(pathToFileURL(join(REPO, 'scripts', 'bundle', file)).href)) as T;
const verbTables = await load<{
  routedVerbs(root: string): { hot: Set<string>; stop: Set<string> };
  commandIdOf(specifier: string): string | undefined;
  verbTable(verbs: Set<string>, bundle: string): { plugin: EsbuildPlugin; seen: Set<string>; check: () => void };
}>('verb-tables.mjs');
const patches = await load<{
  PATCHED_FILES: string[];
  PATCHES: Record<string, [string, string][]>;
  STUBBED: string[];
  expectedTexts(file: string): string[];
  patchOclifSource(file: string, source: string): string;
  checkPatchesUsed(patched: Set<string>, stubbed: Set<string>): void;
}>('oclif-patches.mjs');
const lazy = await load<{ LAZY_BUILTINS: string[]; LAZY_PACKAGES: string[]; checkLazySeen(seen: Set<string>): void }>(
  'lazy-modules.mjs',
);
const esbuild = createRequire(import.meta.url)('esbuild') as {
  build(options: Record<string, unknown>): Promise<unknown>;
};

describe("one list per bundle: the hot and stop bundles' tables are made from bin/run.js's HOT_VERBS and STOP_VERBS", () => {
  const registry = readFileSync(join(REPO, 'src', 'cli', 'registry.ts'), 'utf8');
  const entries = [...registry.matchAll(/get '?([a-z:-]+)'?\(\) \{ return load\(require\('([^']+)'\)\); \}/g)].map(
    (m) => [m[1], m[2]],
  );

  it('the registry lists every verb of the manifest once, each requiring its own module, with no mark of hotness', () => {
    expect(entries.map(([id]) => id).sort()).toEqual(
      manifestCommands()
        .map((c) => c.id)
        .sort(),
    );
    for (const [id, specifier] of entries) expect(verbTables.commandIdOf(specifier), specifier).toBe(id);
    expect(registry).not.toMatch(/HANDOFF_HOT_BUNDLE|notHot/);
    // Every getter is one of the lines read above.
    expect(registry.match(/require\(/g)).toHaveLength(entries.length);
  });

  it('the build reads the lists from bin/run.js, which routes by them', () => {
    const bin = createRequire(import.meta.url)(join(REPO, 'bin', 'run.js')) as {
      HOT_VERBS: Set<string>;
      STOP_VERBS: Set<string>;
    };
    const routed = verbTables.routedVerbs(REPO);
    expect(routed.hot).toBe(bin.HOT_VERBS);
    expect(routed.stop).toBe(bin.STOP_VERBS);
    for (const id of [...bin.HOT_VERBS, ...bin.STOP_VERBS]) expect(entries.map(([e]) => e)).toContain(id);
  });

  /** A two-verb program bundled with the plugin as `bundle`, holding the verbs `own` (`a:x`, not `b`, say). */
  async function tinyBundle(
    own: string[],
    bundle = 'handoff-hot.cjs',
  ): Promise<{ commands: Record<string, unknown>; seen: Set<string>; check: () => void }> {
    const root = tempHome('handoff-verb-table-');
    mkdirSync(join(root, 'src', 'cli'), { recursive: true });
    mkdirSync(join(root, 'src', 'commands', 'a'), { recursive: true });
    writeFileSync(join(root, 'src', 'commands', 'a', 'x.ts'), 'export default class X {}\n');
    writeFileSync(
      join(root, 'src', 'commands', 'b.ts'),
      "export default class B {}\nexport const COLD_TEXT = 'cold verb module';\n",
    );
    writeFileSync(
      join(root, 'src', 'cli', 'registry.ts'),
      [
        'const load = (m: unknown) => (m as { default: unknown }).default;',
        'export const COMMANDS = {',
        "  get 'a:x'() { return load(require('../commands/a/x.js')); },",
        "  get b() { return load(require('../commands/b.js')); },",
        '};',
      ].join('\n'),
    );
    const table = verbTables.verbTable(new Set(own), bundle);
    const outfile = join(root, 'out.cjs');
    await esbuild.build({
      entryPoints: [join(root, 'src', 'cli', 'registry.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      plugins: [table.plugin],
      logLevel: 'silent',
    });
    expect(readFileSync(outfile, 'utf8')).not.toContain('cold verb module');
    const { COMMANDS } = createRequire(import.meta.url)(outfile) as { COMMANDS: Record<string, unknown> };
    return { commands: COMMANDS, seen: table.seen, check: table.check };
  }

  it.each(['handoff-hot.cjs', 'handoff-stop.cjs'])(
    'a verb off the list is left out of %s: its entry throws an internal error naming that bundle; a listed one loads',
    async (bundle) => {
      const t = await tinyBundle(['a:x'], bundle);
      expect(typeof t.commands['a:x']).toBe('function');
      expect(() => t.commands.b).toThrow(
        `internal: b is not in dist/cli/${bundle}; bin/run.js must run it from dist/cli/handoff.cjs`,
      );
      expect([...t.seen].sort()).toEqual(['a:x', 'b']);
      expect(() => t.check()).not.toThrow();
    },
  );

  it('a listed verb the table does not require fails the build', async () => {
    const t = await tinyBundle(['a:x', 'a:y']);
    expect(() => t.check()).toThrow(
      'build: the verb(s) a:y of dist/cli/handoff-hot.cjs (bin/run.js) are not required by src/cli/registry.ts',
    );
  });
});

describe('every build-time change fails the build when what it changes is gone', () => {
  const OCLIF_LIB = join(createRequire(import.meta.url).resolve('@oclif/core/package.json'), '..', 'lib');

  it.each(Object.keys(patches.PATCHES))('%s: an expected text found twice is refused too', (file) => {
    const source = readFileSync(join(OCLIF_LIB, file), 'utf8');
    for (const [text] of patches.PATCHES[file]) {
      expect(() => patches.patchOclifSource(file, `${source}\n${text}\n`)).toThrow(
        /^build: the patch of @oclif\/core\/lib\/.* matches 2 places/,
      );
    }
  });

  it('a patched file the bundle no longer patches fails the build', () => {
    const all = new Set(patches.PATCHED_FILES);
    const stubs = new Set([...patches.STUBBED, 'debug']);
    expect(() => patches.checkPatchesUsed(all, stubs)).not.toThrow();
    for (const file of patches.PATCHED_FILES) {
      const without = new Set([...all].filter((f) => f !== file));
      expect(() => patches.checkPatchesUsed(without, stubs)).toThrow(
        `build: @oclif/core/lib/${file} is no longer part of the bundle`,
      );
    }
  });

  it.each([...patches.STUBBED, 'debug'])('a stub for %s that nothing imports any more fails the build', (name) => {
    const stubs = new Set([...patches.STUBBED, 'debug'].filter((s) => s !== name));
    expect(() => patches.checkPatchesUsed(new Set(patches.PATCHED_FILES), stubs)).toThrow(
      `build: nothing in the bundle imports ${name} any more`,
    );
  });

  it.each([...lazy.LAZY_BUILTINS, ...lazy.LAZY_PACKAGES])(
    'a lazy stand-in for %s that nothing imports any more fails the build',
    (name) => {
      const all = [...lazy.LAZY_BUILTINS, ...lazy.LAZY_PACKAGES];
      expect(() => lazy.checkLazySeen(new Set(all))).not.toThrow();
      expect(() => lazy.checkLazySeen(new Set(all.filter((n) => n !== name)))).toThrow(
        `build: nothing in the bundle imports ${name} any more`,
      );
    },
  );
});
