#!/usr/bin/env node
// The CLI runs from one bundled CommonJS file (scripts/build.mjs says why); bin/package.json makes this file
// CommonJS too, so start-up never enters the ES module loader.
'use strict';
require('../dist/cli/handoff.cjs').main(process.argv.slice(2));
