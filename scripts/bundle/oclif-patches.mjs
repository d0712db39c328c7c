// Build-time changes to @oclif/core inside the CLI bundle (scripts/build.mjs; docs/decisions.md, "Fast start").
// Each change names the text it expects; when a new oclif version no longer has that text, the build fails, so a
// patch is reviewed, never silently dropped.
import { join } from 'node:path';

export const STUB = join(import.meta.dirname, 'unavailable.cjs');
export const DEBUG_STUB = join(import.meta.dirname, 'debug.cjs');
/** Libraries oclif needs only for plugin discovery, the directory strategy, spinners or TypeScript: stubbed. */
export const STUBBED = ['typescript', 'ts-node', 'tinyglobby', 'lilconfig', 'cli-spinners'];

/** Source patches, by file relative to @oclif/core/lib: [expected text, replacement]. */
export const PATCHES = {
  // Sorting command ids with localeCompare loads ICU collation (~5 ms per call); ids are ASCII, so code-unit order
  // is the same order.
  'config/plugin.js': [['.sort((a, b) => a.id.localeCompare(b.id))', '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))']],
  // oclif reads its manifest (and an optional theme file) with fs/promises; the first async file call starts libuv's
  // thread pool (four threads) and makes every read a round trip through it. A read of a few kilobytes costs less
  // than that round trip, so read synchronously (the function stays async for its callers).
  'util/fs.js': [["const contents = await (0, promises_1.readFile)(path, 'utf8');", "const contents = (0, node_fs_1.readFileSync)(path, 'utf8');"]],
  // The terminal widths are read at load, which creates process.stdout and process.stderr; read them on use.
  'screen.js': [
    [
      'exports.stdtermwidth = columns || termwidth(process.stdout);\nexports.errtermwidth = columns || termwidth(process.stderr);',
      "Object.defineProperty(exports, 'stdtermwidth', { get: () => columns || termwidth(process.stdout) });\n" +
        "Object.defineProperty(exports, 'errtermwidth', { get: () => columns || termwidth(process.stderr) });",
    ],
  ],
};

/** Built-ins oclif requires at load but uses only on some paths: required on first use instead. */
export const LAZY_BUILTINS = { 'util/os.js': 'node:child_process', 'parser/parse.js': 'node:readline', 'performance.js': 'node:perf_hooks' };

/** `source` of @oclif/core/lib/`file` with its patches applied; throws when an expected text is missing. */
export function patchOclifSource(file, source) {
  let out = source;
  for (const [from, to] of PATCHES[file] ?? []) {
    if (!out.includes(from)) throw new Error(`build: the patch of @oclif/core/lib/${file} no longer applies: ${JSON.stringify(from.slice(0, 60))}`);
    out = out.replace(from, to);
  }
  const mod = LAZY_BUILTINS[file];
  if (mod !== undefined) {
    const re = new RegExp(`^const (\\w+) = require\\("${mod}"\\);$`, 'm');
    const m = re.exec(out);
    if (m === null) throw new Error(`build: @oclif/core/lib/${file} no longer requires ${mod} the expected way; review the lazy-load patch`);
    const v = m[1];
    out = out.replace(re, `let ${v}__lazy; const ${v} = new Proxy({}, { get: (_t, k) => (${v}__lazy ??= require("${mod}"))[k] });`);
  }
  return out;
}

/** The texts a file's patches expect to find (tests break each one to see the build refuse). */
export const expectedTexts = (file) => [
  ...(PATCHES[file] ?? []).map(([from]) => from),
  ...(LAZY_BUILTINS[file] === undefined ? [] : [`require("${LAZY_BUILTINS[file]}");`]),
];

/** Every file that has a patch: the build checks that each was part of the bundle. */
export const PATCHED_FILES = [...Object.keys(PATCHES), ...Object.keys(LAZY_BUILTINS)];
