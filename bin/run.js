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
 * Compiles and runs `file` as the module oclif knows as `BUNDLE` (registered in the module cache under that name, so
 * oclif's require() finds this instance and loads no second program). The file holds its own module wrapper and is
 * ASCII (scripts/build.mjs), so its text is compiled as read, one byte per character, without a copy. The source and
 * the cache are read through one buffer: the cache's bytes land in memory the source's read has already touched.
 */
function loadBundle(useCache, file = BUNDLE) {
  const read = readInto(file);
  const source = read.buffer.latin1Slice(0, read.length);
  let cachedData;
  if (useCache) {
    try {
      const cache = readInto(`${file}.cache`, read.buffer);
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
  bundle.paths = Module._nodeModulePaths(DIST);
  Module._cache[BUNDLE] = bundle;
  const wrapper = script.runInThisContext();
  wrapper.call(bundle.exports, bundle.exports, (id) => bundle.require(id), bundle, file, DIST);
  bundle.loaded = true;
  return { script, exports: bundle.exports, cacheUsable: cachedData !== undefined && !script.cachedDataRejected };
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
  const cache = `${file}.cache`;
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
