// npm run build:
// 1. tsc emits dist/ (the library entry dist/index.js and its types); type errors fail the build (after the
//    bundle is written, so one unfinished file does not stop everybody's binary tests).
// 2. esbuild bundles the CLI, oclif included, into one CommonJS file, dist/cli/handoff.cjs (docs/decisions.md, "Fast
//    start"), and the same entry once more into dist/cli/handoff-hot.cjs, which holds only the hot verbs (bin/run.js's
//    HOT_VERBS, which also picks the file; scripts/bundle/verb-tables.mjs), and into dist/cli/handoff-stop.cjs, which
//    holds only the stop gate and finalize (STOP_VERBS). `handoff mcp` runs from a fourth,
//    dist/cli/handoff-mcp.cjs, the only one holding the MCP SDK. Libraries oclif needs only for plugin discovery,
//    globbing, spinners or TypeScript are replaced by stubs; Node built-ins oclif needs only now and then are required
//    lazily; oclif sources are patched at build. Every patch fails the build when its pattern is gone (a new oclif
//    version must be looked at, not guessed at).
// 3. oclif.manifest.json is generated from the command classes, so help and routing load no command module.
// 4. The V8 code cache beside each bundle is written by one warm-up process that runs the verbs that bundle serves.
// 5. schemas/envelope.schema.json is generated from the envelope's zod declaration (scripts/gen-envelope-schema.mjs,
//    which reads tsc's output, so only after a clean tsc).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { routedVerbs, verbTable } from './bundle/verb-tables.mjs';
import { checkLazySeen, lazyModules } from './bundle/lazy-modules.mjs';
import {
  checkPatchesUsed,
  DEBUG_STUB,
  patchOclifSource,
  PATCHED_FILES,
  STUB,
  STUBBED,
} from './bundle/oclif-patches.mjs';

const ROOT = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
// A clean dist/: tsc never removes the output of a source file that is gone.
rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { stdio: 'inherit' });

// What the patches met in the full bundle (checkPatchesUsed): the oclif files patched and the stubbed names resolved.
const patched = new Set();
const stubbed = new Set();
const oclifPatches = {
  name: 'oclif-patches',
  setup(build) {
    build.onResolve(
      { filter: new RegExp(`^(${STUBBED.join('|')})$`) },
      (args) => (stubbed.add(args.path), { path: STUB }),
    );
    build.onResolve({ filter: /^debug$/ }, () => (stubbed.add('debug'), { path: DEBUG_STUB }));
    build.onLoad({ filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/].*\.js$/ }, (args) => {
      const file = args.path.split(/[\\/]@oclif[\\/]core[\\/]lib[\\/]/)[1].replaceAll('\\', '/');
      if (PATCHED_FILES.includes(file)) patched.add(file);
      return { contents: patchOclifSource(file, readFileSync(args.path, 'utf8')), loader: 'js' };
    });
  },
};

const BUNDLE = join(ROOT, 'dist', 'cli', 'handoff.cjs');
// The hot verbs' own bundle: the same entry with every other verb's module left out (scripts/bundle/verb-tables.mjs),
// so the calls an agent makes dozens of times per turn read, compile and run less (bin/run.js picks the file, from
// its HOT_VERBS, the list this build reads too).
const HOT_BUNDLE = join(ROOT, 'dist', 'cli', 'handoff-hot.cjs');
// The verbs that end a turn, the stop gate (at every stop of every agent) and finalize, in a bundle of their own made
// the same way (bin/run.js's STOP_VERBS): they read, compile and deserialize less than from the full one.
const STOP_BUNDLE = join(ROOT, 'dist', 'cli', 'handoff-stop.cjs');
// `handoff mcp`'s own bundle: the same entry with the MCP SDK and zod's JSON Schema generator inside, so the server
// starts from its code cache instead of loading those packages from node_modules (bin/run.js picks it for `mcp`).
const MCP_BUNDLE = join(ROOT, 'dist', 'cli', 'handoff-mcp.cjs');
const routed = routedVerbs(ROOT);
/** The command table of each bundle that holds only some verbs, by kind. */
const tables = {
  hot: verbTable(routed.hot, 'handoff-hot.cjs'),
  stop: verbTable(routed.stop, 'handoff-stop.cjs'),
};
const lazy = lazyModules(ROOT);
const esbuild = require('esbuild');

/** `text` with every non-ASCII character written as a \u escape (which means the same in JS and JSON text). */
const toAscii = (text) => text.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * Writes one bundle; `kind` is `full` (every verb), `hot` (the hot verbs only), `stop` (the gate and finalize only) or
 * `mcp` (every verb and the SDK).
 */
async function bundle(outfile, kind) {
  await esbuild.build({
    entryPoints: [join(ROOT, 'src', 'cli', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Native or optional at run time: required from node_modules only when a verb opens that store. `pg` loads only
    // with HANDOFF_STORE_URL set (src/store/pg-driver.ts); bundling it would not make it lazier, only the bundle
    // larger. The MCP SDK and zod's JSON Schema generator (`zod/v4/core`; the verbs' zod/mini is bundled) are
    // required by `handoff mcp` alone: only its bundle holds them, so the bundles every other call reads hold neither.
    // better-sqlite3's JavaScript is bundled (in the code cache, nothing to resolve at run time: src/store/sqlite.ts);
    // its native addon is required by path, never through `bindings`.
    external: [
      'bindings',
      'pg',
      'pg-native',
      ...(kind === 'mcp' ? [] : ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*', 'zod/v4/core']),
    ],
    // The bundles sit at dist/cli/, the same depth as every emitted module, so `new URL('../../x', import.meta.url)`
    // resolves to the same place in every build.
    banner: { js: "const __bundle_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
    define: { 'import.meta.url': '__bundle_import_meta_url' },
    minify: true,
    keepNames: true,
    plugins: [...(kind in tables ? [tables[kind].plugin] : []), oclifPatches, lazy.plugin],
    logLevel: 'warning',
  });
  // The full bundle holds every module the hot one does: each patch must have met its text there.
  if (kind === 'full') checkPatchesUsed(patched, stubbed);
  // Two changes to the text esbuild wrote (docs/decisions.md, "Fast start"):
  // - ASCII only. A source with one non-ASCII character is held by V8 as two bytes per character (twice the memory,
  //   a slower read and compile); esbuild leaves such characters raw inside regular expression literals. An escape
  //   means the same there and inside strings, the only places the bundle has them.
  // - The module wrapper written into the file. bin/run.js compiles the file's text as it is: wrapping it at run time
  //   (Module.wrap) makes V8 copy the whole source into one new string, a young-generation allocation that costs
  //   every call a garbage collection. Compiled as a script, the file's value is the module function, which
  //   bin/run.js calls; loaded by require() (the build, oclif's explicit strategy, tests), it calls that function with
  //   the arguments of Node's own wrapper, so the file stays an ordinary CommonJS module.
  const ascii = toAscii(readFileSync(outfile, 'utf8'));
  writeFileSync(
    outfile,
    `((module) => (typeof arguments === 'undefined' ? module : module.apply(this, arguments)))((function (exports, require, module, __filename, __dirname) {\n${ascii}\n}));\n`,
  );
}
await bundle(BUNDLE, 'full');
await bundle(HOT_BUNDLE, 'hot');
await bundle(STOP_BUNDLE, 'stop');
await bundle(MCP_BUNDLE, 'mcp');
for (const table of Object.values(tables)) table.check();
checkLazySeen(lazy.seen);

// 3. The manifest: oclif's own Config, loading every command class from the bundle once.
rmSync(join(ROOT, 'oclif.manifest.json'), { force: true });
const { Config } = require('@oclif/core');
const pjson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const config = await Config.load({
  root: ROOT,
  pjson,
  userPlugins: false,
  devPlugins: false,
  ignoreManifest: true,
  errorOnManifestCreate: true,
});
const manifest = config.plugins.get(pjson.name).manifest;
// Every call reads it: compact, and ASCII (escaped like the bundle), so V8 parses a one-byte string of 54 KB instead
// of a two-byte one of 73 KB.
writeFileSync(join(ROOT, 'oclif.manifest.json'), `${toAscii(JSON.stringify(manifest))}\n`);
delete require.cache[BUNDLE];

// 4. The code caches, each written by one process that ran the verbs its bundle serves (so it holds their compiled
//    functions): the hot verbs for the hot bundle, the gate and finalize for the stop one, dispatch and list for the
//    full one, a served session for the MCP one (scripts/warm-cache.cjs).
for (const [file, verbs] of [
  [HOT_BUNDLE, 'hot'],
  [STOP_BUNDLE, 'stop'],
  [BUNDLE, 'full'],
  [MCP_BUNDLE, 'mcp'],
]) {
  // Every Node version's and V8 flags' cache of the old bundle (bin/run.js cacheKey), and one from before the key.
  const name = basename(file);
  for (const f of readdirSync(dirname(file)))
    if (f === `${name}.cache` || (f.startsWith(`${name}.`) && f.endsWith('.cache'))) rmSync(join(dirname(file), f));
  const warm = spawnSync(process.execPath, [join(import.meta.dirname, 'warm-cache.cjs'), file, verbs], {
    stdio: 'ignore',
    cwd: dirname(file),
  });
  if (warm.status !== 0)
    console.warn(`build: the code cache of ${file} was not written (the CLI runs without it, only slower)`);
}

// 5. The envelope's JSON Schema, from the zod declaration in tsc's output.
if (r.status !== 0) process.exit(r.status ?? 1);
const gen = spawnSync(process.execPath, [join(import.meta.dirname, 'gen-envelope-schema.mjs')], { stdio: 'inherit' });
process.exit(gen.status ?? 1);
