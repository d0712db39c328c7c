#!/usr/bin/env node
// The CLI runs from one bundled CommonJS file, compiled through vm.Script with a V8 code cache beside it
// (dist/cli/handoff.cjs.cache, written and pre-warmed by `npm run build`): every call is a fresh process, and the
// cache spares it compiling the functions it runs (docs/decisions.md, "Fast start"). bin/package.json makes this file
// CommonJS too, so start-up never enters the ES module loader. A missing, stale or unwritable cache only costs time.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const BUNDLE = path.join(__dirname, '..', 'dist', 'cli', 'handoff.cjs');
const CACHE = `${BUNDLE}.cache`;

/**
 * Compiles and runs the bundle as the module `BUNDLE` (registered in the module cache under its own name). The file
 * holds its own module wrapper and is ASCII (scripts/build.mjs), so its text is compiled as read, one byte per
 * character, without a copy.
 */
function loadBundle(useCache) {
  const source = fs.readFileSync(BUNDLE, 'latin1');
  let cachedData;
  if (useCache) {
    try {
      cachedData = fs.readFileSync(CACHE);
    } catch {
      cachedData = undefined;
    }
  }
  const script = new vm.Script(source, {
    filename: BUNDLE,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const bundle = new Module(BUNDLE, module);
  bundle.filename = BUNDLE;
  bundle.paths = Module._nodeModulePaths(path.dirname(BUNDLE));
  // oclif's explicit strategy require()s the bundle by file name: it must find this instance, not load a second.
  Module._cache[BUNDLE] = bundle;
  const wrapper = script.runInThisContext();
  wrapper.call(bundle.exports, bundle.exports, (id) => bundle.require(id), bundle, BUNDLE, path.dirname(BUNDLE));
  bundle.loaded = true;
  return { script, exports: bundle.exports, cacheUsable: cachedData !== undefined && !script.cachedDataRejected };
}

/** Writes the script's code cache through a temp file and a rename; a read-only install simply keeps none. */
function writeCache(script) {
  const tmp = `${CACHE}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, CACHE);
  } catch {
    try {
      fs.unlinkSync(tmp);
    } catch {
      // nothing was written
    }
  }
}

if (require.main === module) {
  const { script, exports, cacheUsable } = loadBundle(true);
  if (!cacheUsable) process.once('exit', () => writeCache(script));
  exports.main(process.argv.slice(2));
} else {
  module.exports = { loadBundle, writeCache, BUNDLE, CACHE };
}
