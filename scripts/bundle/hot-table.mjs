// The hot bundle's command table (scripts/build.mjs; docs/decisions.md, "Fast start").
//
// src/cli/registry.ts lists every verb once, each a getter over a literal `require('../commands/<topic>/<verb>.js')`.
// The hot bundle (dist/cli/handoff-hot.cjs) must hold only the hot verbs, which bin/run.js lists in HOT_VERBS and
// routes there. For that bundle this plugin resolves every other verb's module, when the registry requires it, to a
// stand-in whose `default` throws a named internal error, so esbuild never reads that verb's code. One list decides
// both the routing and the table; nothing can disagree.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const NS = 'handoff-cold-verb';
/** A command module as the registry names it: `../commands/contract/set.js` or `../commands/mcp.js`. */
const COMMAND_SPECIFIER = /^\.\.\/commands\/([a-z-]+(?:\/[a-z-]+)?)\.js$/;

/** The hot verbs' ids (`contract:init`, ...), read from bin/run.js, the one place they are listed. */
export function hotVerbs(root) {
  const { HOT_VERBS } = require(join(root, 'bin', 'run.js'));
  if (!(HOT_VERBS instanceof Set) || HOT_VERBS.size === 0)
    throw new Error('build: bin/run.js no longer exports its HOT_VERBS set');
  return HOT_VERBS;
}

/** The command id a registry specifier names (`../commands/contract/set.js` -> `contract:set`), else undefined. */
export function commandIdOf(specifier) {
  const m = COMMAND_SPECIFIER.exec(specifier);
  return m === null ? undefined : m[1].replace('/', ':');
}

/** The module every stand-in shares: given a verb's id, a module whose `default` throws a named internal error. */
const SHARED = 'handoff-cold-verb';
const SHARED_SOURCE =
  "'use strict';\nmodule.exports = (id) => ({ get default() { throw new Error(`internal: ${id} is not in dist/cli/handoff-hot.cjs; " +
  'bin/run.js must run it from dist/cli/handoff.cjs`); } });\n';

/** The stand-in's source for a verb the hot bundle leaves out: one short line per verb, the text shared. */
const coldVerbModule = (id) => `module.exports = require(${JSON.stringify(SHARED)})(${JSON.stringify(id)});\n`;

/**
 * The esbuild plugin for the hot bundle, and what it met: `seen`, every command id the registry required. After the
 * build, `check()` throws unless every hot id was among them (a hot verb missing from the table, or a table that no
 * longer requires its verbs the expected way, would otherwise leave a hot bundle that cannot run it).
 */
export function hotTable(hot) {
  const seen = new Set();
  const plugin = {
    name: 'hot-table',
    setup(build) {
      build.onResolve({ filter: /^\.\.\/commands\// }, (args) => {
        if (!/[\\/]src[\\/]cli[\\/]registry\.ts$/.test(args.importer)) return undefined;
        const id = commandIdOf(args.path);
        if (id === undefined)
          throw new Error(`build: src/cli/registry.ts requires ${args.path}, which names no command module`);
        seen.add(id);
        return hot.has(id) ? undefined : { path: id, namespace: NS };
      });
      build.onResolve({ filter: new RegExp(`^${SHARED}$`) }, (args) =>
        args.namespace === NS ? { path: SHARED, namespace: NS } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: NS }, (args) => ({
        contents: args.path === SHARED ? SHARED_SOURCE : coldVerbModule(args.path),
        loader: 'js',
      }));
    },
  };
  const check = () => {
    const missing = [...hot].filter((id) => !seen.has(id));
    if (missing.length > 0)
      throw new Error(
        `build: the hot verb(s) ${missing.join(', ')} of bin/run.js are not required by src/cli/registry.ts`,
      );
  };
  return { plugin, seen, check };
}
