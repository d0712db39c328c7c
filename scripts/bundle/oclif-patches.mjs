// Build-time changes to @oclif/core inside the CLI bundle (scripts/build.mjs; docs/decisions.md, "Fast start").
// Each change names the text it expects; when a new oclif version no longer has that text, the build fails, so a
// patch is reviewed, never silently dropped.
import { join } from 'node:path';

export const STUB = join(import.meta.dirname, 'unavailable.cjs');
export const DEBUG_STUB = join(import.meta.dirname, 'debug.cjs');
/** Libraries oclif needs only for plugin discovery, the directory strategy, spinners or TypeScript: stubbed. */
export const STUBBED = ['typescript', 'tinyglobby', 'lilconfig', 'cli-spinners'];

/** Source patches, by file relative to @oclif/core/lib: [expected text, replacement]. */
export const PATCHES = {
  // Sorting command ids with localeCompare loads ICU collation (~5 ms per call); ids are ASCII, so code-unit order
  // is the same order.
  'config/plugin.js': [
    ['.sort((a, b) => a.id.localeCompare(b.id))', '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))'],
  ],
  // oclif reads its manifest (and an optional theme file) with fs/promises; the first async file call starts libuv's
  // thread pool (four threads) and makes every read a round trip through it. A read of a few kilobytes costs less
  // than that round trip, so read synchronously (the function stays async for its callers).
  'util/fs.js': [
    [
      "const contents = await (0, promises_1.readFile)(path, 'utf8');",
      "const contents = (0, node_fs_1.readFileSync)(path, 'utf8');",
    ],
  ],
  // oclif names the platform `wsl` under Windows' Linux layer by importing wsl-utils, whose is-wsl reads /proc and
  // probes for container files when it loads, and which requires child_process: on every call, for a name handoff
  // only prints in --version. The kernel release names Microsoft under WSL, which is what is-wsl checks first.
  'util/os.js': [
    [
      "return (await import('wsl-utils')).isWsl ? 'wsl' : (0, node_os_1.platform)();",
      "return (0, node_os_1.platform)() === 'linux' && /microsoft/i.test((0, node_os_1.release)()) ? 'wsl' : (0, node_os_1.platform)();",
    ],
  ],
  // oclif builds its progress display (`ux.action`) when ux loads: it looks at process.stderr, which builds the stderr
  // stream, and the display's constructor keeps process.stdout.write and process.stderr.write, which builds both.
  // handoff never shows one; build it on first use.
  'ux/index.js': [
    [
      'const ACTION_TYPE = (Boolean(process.stderr.isTTY) &&',
      'const ACTION_TYPE = () => (Boolean(process.stderr.isTTY) &&',
    ],
    [
      "exports.action = ACTION_TYPE === 'spinner' ? new spinner_1.default() : new simple_1.default();\nexports.ux = {\n    action: exports.action,",
      "let action__lazy;\nObject.defineProperty(exports, 'action', { enumerable: true, configurable: true, get: () => (action__lazy ??= ACTION_TYPE() === 'spinner' ? new spinner_1.default() : new simple_1.default()) });\nexports.ux = {\n    get action() { return exports.action; },",
    ],
  ],
  // command.js ignores EPIPE on stdout with a listener added when it loads, which builds the stdout stream. handoff
  // writes a verb's output with fs.writeSync and guards each stream it does build (src/cli/stdio.ts, stdStream).
  'command.js': [
    [
      "process.stdout.on('error', (err) => {\n    if (err && err.code === 'EPIPE')\n        return;\n    throw err;\n});",
      '/* handoff: stdout EPIPE is handled by src/cli/stdio.ts */',
    ],
  ],
  // The terminal widths are read at load, which creates process.stdout and process.stderr; read them on use.
  'screen.js': [
    [
      'exports.stdtermwidth = columns || termwidth(process.stdout);\nexports.errtermwidth = columns || termwidth(process.stderr);',
      "Object.defineProperty(exports, 'stdtermwidth', { get: () => columns || termwidth(process.stdout) });\n" +
        "Object.defineProperty(exports, 'errtermwidth', { get: () => columns || termwidth(process.stderr) });",
    ],
  ],
};

/**
 * Packages oclif requires at load but uses only on some paths (templates, plugin patterns, colours, error boxes):
 * required on first use instead. * ansis reads process.stdout.isTTY when it loads, which builds the stdout stream; supports-color loads tty; wrap-ansi
 * brings string-width and a large emoji regex. Node built-ins are made lazy for the whole bundle by
 * scripts/bundle/lazy-modules.mjs.
 */
export const LAZY_REQUIRES = {
  'config/config.js': ['ejs'],
  'config/plugin-loader.js': ['minimatch'],
  'errors/handle.js': ['clean-stack', '../help/index'],
  'flags.js': ['./help'],
  'help/util.js': ['ejs'],
  'ux/index.js': ['./action/simple', './action/spinner'],
  'ux/theme.js': ['ansis'],
  'ux/supports-color.js': ['supports-color'],
  'errors/errors/cli.js': ['clean-stack', 'indent-string', 'wrap-ansi'],
  'errors/errors/pretty-print.js': ['indent-string', 'wrap-ansi'],
};

/** `text` as a regular expression that matches it literally. */
export const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** How many times `text` occurs in `source`. */
const occurrences = (source, text) => source.split(text).length - 1;

/**
 * `source` of @oclif/core/lib/`file` with its patches applied; throws when an expected text is missing, or found
 * more than once (a patch applied to one copy of two would change half of what it means to change).
 */
export function patchOclifSource(file, source) {
  let out = source;
  for (const [from, to] of PATCHES[file] ?? []) {
    const n = occurrences(out, from);
    if (n !== 1) {
      const what = n === 0 ? 'no longer applies' : `matches ${n} places`;
      throw new Error(`build: the patch of @oclif/core/lib/${file} ${what}: ${JSON.stringify(from.slice(0, 60))}`);
    }
    // A function, so a `$` in the replacement is never read as a replacement pattern.
    out = out.replace(from, () => to);
  }
  for (const mod of LAZY_REQUIRES[file] ?? []) {
    // `const x = require("m");` or `const x = __importDefault(require("m"));`, used as `x.f` or `x.default`.
    const name = escapeRegExp(mod);
    const plain = new RegExp(`^const (\\w+) = require\\("${name}"\\);$`, 'm');
    const wrapped = new RegExp(`^const (\\w+) = __importDefault\\(require\\("${name}"\\)\\);$`, 'm');
    const m = plain.exec(out) ?? wrapped.exec(out);
    if (m === null)
      throw new Error(
        `build: @oclif/core/lib/${file} no longer requires ${mod} the expected way; review the lazy-load patch`,
      );
    const v = m[1];
    const load = m[0].includes('__importDefault') ? `__importDefault(require("${mod}"))` : `require("${mod}")`;
    out = out.replace(
      m[0],
      () => `let ${v}__lazy; const ${v} = new Proxy({}, { get: (_t, k) => (${v}__lazy ??= ${load})[k] });`,
    );
  }
  return out;
}

/** The texts a file's patches expect to find (tests break each one to see the build refuse). */
export const expectedTexts = (file) => [
  ...(PATCHES[file] ?? []).map(([from]) => from),
  ...(LAZY_REQUIRES[file] ?? []).map((mod) => `require("${mod}")`),
];

/** Every file that has a patch: the build checks that each was patched. */
export const PATCHED_FILES = [...new Set([...Object.keys(PATCHES), ...Object.keys(LAZY_REQUIRES)])];

/**
 * The build's checks after the full bundle is written, so no patch goes stale unseen: each patched file was patched
 * (`patched`: the files of @oclif/core/lib the plugin rewrote; a file oclif dropped or moved is not), and each stub
 * stood in for a module something still imports (`stubbed`: the names the plugin redirected; `debug` included).
 */
export function checkPatchesUsed(patched, stubbed) {
  const unpatched = PATCHED_FILES.filter((file) => !patched.has(file));
  if (unpatched.length > 0) {
    throw new Error(
      `build: @oclif/core/lib/${unpatched.join(', ')} ${unpatched.length === 1 ? 'is' : 'are'} no longer part of the bundle; review the patch`,
    );
  }
  const unused = [...STUBBED, 'debug'].filter((name) => !stubbed.has(name));
  if (unused.length > 0)
    throw new Error(
      `build: nothing in the bundle imports ${unused.join(', ')} any more; drop the stub from scripts/bundle/oclif-patches.mjs`,
    );
}
