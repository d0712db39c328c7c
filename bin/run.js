#!/usr/bin/env node
// The CLI runs from a bundled CommonJS file, compiled through vm.Script with a V8 code cache beside it (written and
// pre-warmed by `npm run build`): every call is a fresh process, and the cache spares it compiling the functions it
// runs (docs/decisions.md, "Fast start"). The hot verbs, which an agent calls dozens of times per turn, run from
// dist/cli/handoff-hot.cjs, the same program without the other verbs' modules. The two that end a turn, the stop gate
// (at every stop of every agent) and finalize, run from dist/cli/handoff-stop.cjs, built the same way. Everything
// else runs from dist/cli/handoff.cjs (`handoff mcp` from dist/cli/handoff-mcp.cjs, the only one with the MCP SDK
// inside).
// bin/package.json makes this file CommonJS too, so start-up never enters the ES module loader. A missing, stale or
// unwritable cache only costs time.
'use strict';

/** The Node.js releases handoff runs on (package.json `engines`; the crypto stack's range). */
const NODE_RANGE = '^22.22.2 || ^24.15.0 || >=26';

/**
 * Whether Node `version` ("22.22.2", as process.versions.node) is in NODE_RANGE: compared as numbers, without a semver
 * library, since this runs on every call. A major between two supported lines (23, 25) is outside it.
 */
function supportedNode(version) {
  const [major, minor, patch] = String(version).split('.').map(Number);
  if (major === 22) return minor > 22 || (minor === 22 && patch >= 2);
  if (major === 24) return minor >= 15;
  return major >= 26;
}

// Before anything else is loaded: an older Node gets one line instead of a syntax error or a module that fails to load.
if (require.main === module && !supportedNode(process.versions.node)) {
  process.stderr.write(
    `handoff: Node.js ${process.versions.node} is not supported: install a supported Node.js (${NODE_RANGE}) and run handoff with it\n`,
  );
  process.exit(1);
}

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const DIST = path.join(__dirname, '..', 'dist', 'cli');
/** Every verb; also the module oclif's explicit strategy require()s (package.json `oclif.commands.target`). */
const BUNDLE = path.join(DIST, 'handoff.cjs');
/** The hot verbs only. */
const HOT_BUNDLE = path.join(DIST, 'handoff-hot.cjs');
/** The stop gate and finalize only. */
const STOP_BUNDLE = path.join(DIST, 'handoff-stop.cjs');
/** Every verb and the MCP SDK, for `handoff mcp`. */
const MCP_BUNDLE = path.join(DIST, 'handoff-mcp.cjs');
/**
 * The hot verbs, by command id: the one list of them. The build reads it to write the hot bundle's command table
 * (every other verb's module is left out of that file), and the routing below reads it on every call, so it stays a
 * constant here rather than a file to read.
 */
const HOT_VERBS = new Set([
  'contract:init',
  'contract:set',
  'contract:add',
  'contract:fill',
  'contract:view',
  'contract:validate',
]);
/** The verbs that end a turn, by command id: the stop bundle's table, read by the build like HOT_VERBS. */
const STOP_VERBS = new Set(['contract:gate', 'contract:finalize', 'approval:gate']);

/**
 * The bundle that serves `argv`: the hot one for a hot verb (its help included), the stop one for the gate and
 * finalize, the MCP one for `mcp`, the full one for anything else.
 */
function bundleFor(argv) {
  const id = `${argv[0]}:${argv[1]}`;
  if (HOT_VERBS.has(id)) return HOT_BUNDLE;
  if (STOP_VERBS.has(id)) return STOP_BUNDLE;
  return argv[0] === 'mcp' ? MCP_BUNDLE : BUNDLE;
}

/**
 * Options that never change what V8 checks before it accepts a code cache: Node's own. Everything else on the command
 * line or in NODE_OPTIONS is a V8 flag and taken to matter, which at worst keeps one more cache than needed (measured:
 * `--expose-gc` invalidates a cache on every major, `--max-old-space-size` on Node 22 and not on 24).
 */
const UNKEYED =
  /^--?(r|require|import|loader|experimental-loader|inspect[\w-]*|title|no-warnings|warnings|trace-warnings|pending-deprecation|no-deprecation|throw-deprecation|trace-deprecation|enable-source-maps|env-file[\w-]*|conditions|C|input-type|unhandled-rejections|disable-warning|dns-result-order|use-openssl-ca|use-bundled-ca|openssl-[\w-]+|tls-[\w-]+|preserve-symlinks[\w-]*|max-http-header-size)(=|$)/;

/**
 * The key of this process's code cache: V8 rejects a cache made by another V8 (another Node version) or under other
 * flags, so each Node version and set of V8 flags keeps its own file, and two of them sharing one install (two majors,
 * a harness that sets a V8 flag in NODE_OPTIONS) never rewrite each other's cache call after call. The Node version,
 * then an FNV-1a hash of the flags when there are any: "24.22.3", "24.22.3-1f0c6a2e".
 */
function cacheKey(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS) {
  let flags = '';
  const options = nodeOptions ? execArgv.concat(nodeOptions.split(/\s+/)) : execArgv;
  for (const option of options) if (option.startsWith('-') && !UNKEYED.test(option)) flags += ` ${option}`;
  if (flags === '') return process.versions.node;
  let hash = 0x811c9dc5;
  for (let i = 0; i < flags.length; i++) hash = Math.imul(hash ^ flags.charCodeAt(i), 0x01000193);
  return `${process.versions.node}-${(hash >>> 0).toString(16).padStart(8, '0')}`;
}

/** The code cache file of bundle `file` for this process (cacheKey). */
const cacheOf = (file) => `${file}.${cacheKey()}.cache`;

/**
 * Compiles and runs `file` as the module oclif knows as `BUNDLE` (registered in the module cache under that name, so
 * oclif's require() finds this instance and loads no second program). The file holds its own module wrapper and is
 * ASCII (scripts/build.mjs), so its text is compiled as read, one byte per character, without a copy. The source and
 * the cache are read through one buffer: the cache's bytes land in memory the source's read has already touched.
 */
function loadBundle(useCache, file = BUNDLE) {
  const read = readInto(file);
  const source = asciiText(read.buffer, read.length);
  let cachedData;
  if (useCache) {
    try {
      const cache = readInto(cacheOf(file), read.buffer);
      cachedData = cache.buffer.subarray(0, cache.length);
    } catch {
      cachedData = undefined;
    }
  }
  const script = new vm.Script(source, {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const bundle = new Module(BUNDLE, module);
  bundle.filename = file;
  bundle.paths = nodeModulePaths(DIST);
  require.cache[BUNDLE] = bundle;
  const wrapper = script.runInThisContext();
  wrapper.call(bundle.exports, bundle.exports, (id) => bundle.require(id), bundle, file, DIST);
  bundle.loaded = true;
  return { script, exports: bundle.exports, cacheUsable: cachedData !== undefined && !script.cachedDataRejected };
}

/**
 * The first `length` bytes of `bytes`, ASCII, as a string: through Buffer's undocumented latin1Slice, which makes a
 * one-byte string without a copy; where it is missing, through TextDecoder (ASCII is valid UTF-8; a copy).
 */
function asciiText(bytes, length) {
  if (typeof bytes.latin1Slice === 'function') return bytes.latin1Slice(0, length);
  return new (require('node:util').TextDecoder)().decode(bytes.subarray(0, length));
}

/**
 * The node_modules folders a module in `dir` resolves from: Node's own list (Module._nodeModulePaths, undocumented),
 * else the same list made here (every folder up to the root, each one's node_modules, none inside a node_modules).
 */
function nodeModulePaths(dir, loader = Module) {
  if (typeof loader._nodeModulePaths === 'function') return loader._nodeModulePaths(dir);
  const paths = [];
  for (let at = dir; ; at = path.dirname(at)) {
    if (path.basename(at) !== 'node_modules') paths.push(path.join(at, 'node_modules'));
    if (path.dirname(at) === at) return paths;
  }
}

/** Reads `file` into `buffer` when it fits, else into a new buffer of at least 1 MiB: that buffer and the bytes read. */
function readInto(file, buffer) {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const into =
      buffer !== undefined && size <= buffer.length ? buffer : Buffer.allocUnsafeSlow(Math.max(size, 1 << 20));
    let length = 0;
    while (length < size) {
      const got = fs.readSync(fd, into, length, size - length, null);
      if (got === 0) break;
      length += got;
    }
    return { buffer: into, length };
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes the script's code cache through a temp file and a rename; a read-only install simply keeps none. */
function writeCache(script, file = BUNDLE) {
  const cache = cacheOf(file);
  const tmp = `${cache}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, cache);
  } catch {
    try {
      fs.unlinkSync(tmp);
    } catch {
      // nothing was written
    }
  }
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const file = bundleFor(argv);
  const { script, exports, cacheUsable } = loadBundle(true, file);
  if (!cacheUsable) process.once('exit', () => writeCache(script, file));
  exports.main(argv);
} else {
  module.exports = {
    supportedNode,
    NODE_RANGE,
    cacheKey,
    cacheOf,
    nodeModulePaths,
    asciiText,
    loadBundle,
    writeCache,
    bundleFor,
    BUNDLE,
    HOT_BUNDLE,
    STOP_BUNDLE,
    MCP_BUNDLE,
    HOT_VERBS,
    STOP_VERBS,
  };
}
