// The command tables of the bundles that hold only some verbs (scripts/build.mjs; docs/decisions.md, "Fast start").
//
// src/cli/registry.ts lists every verb once, each a getter over a literal `require('../commands/<topic>/<verb>.js')`.
// The hot bundle (dist/cli/handoff-hot.cjs) must hold only the hot verbs, which bin/run.js lists in HOT_VERBS and
// routes there; the stop bundle (dist/cli/handoff-stop.cjs) only the gate and finalize, its STOP_VERBS. For such a
// bundle this plugin resolves every other verb's module, when the registry requires it, to a stand-in whose `default`
// throws a named internal error, so esbuild never reads that verb's code. One list decides both the routing and the
// table; nothing can disagree.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const NS = 'handoff-cold-verb';
/** A command module as the registry names it: `../commands/contract/set.js` or `../commands/mcp.js`. */
const COMMAND_SPECIFIER = /^\.\.\/commands\/([a-z-]+(?:\/[a-z-]+)?)\.js$/;

/** The verb lists bin/run.js routes by, the one place they are listed: `{ hot, stop }`, each a set of command ids. */
export function routedVerbs(root) {
  const { HOT_VERBS, STOP_VERBS } = require(join(root, 'bin', 'run.js'));
  for (const [name, set] of [
    ['HOT_VERBS', HOT_VERBS],
    ['STOP_VERBS', STOP_VERBS],
  ]) {
    if (!(set instanceof Set) || set.size === 0) throw new Error(`build: bin/run.js no longer exports its ${name} set`);
  }
  return { hot: HOT_VERBS, stop: STOP_VERBS };
}

/** The command id a registry specifier names (`../commands/contract/set.js` -> `contract:set`), else undefined. */
export function commandIdOf(specifier) {
  const m = COMMAND_SPECIFIER.exec(specifier);
  return m === null ? undefined : m[1].replace('/', ':');
}

/** The module every stand-in shares: given a verb's id, a module whose `default` throws a named internal error. */
const SHARED = 'handoff-cold-verb';
const sharedSource = (bundle) =>
  "'use strict';\nmodule.exports = (id) => ({ get default() { throw new Error(`internal: ${id} is not in " +
  `dist/cli/${bundle}; bin/run.js must run it from dist/cli/handoff.cjs\`); } });\n`;

/** The stand-in's source for a verb the bundle leaves out: one short line per verb, the text shared. */
const coldVerbModule = (id) => `module.exports = require(${JSON.stringify(SHARED)})(${JSON.stringify(id)});\n`;

/**
 * The esbuild plugin for the bundle `bundle` (its file name in dist/cli/) that holds only `verbs`, and what it met:
 * `seen`, every command id the registry required. After the build, `check()` throws unless every one of `verbs` was
 * among them (a verb missing from the table, or a table that no longer requires its verbs the expected way, would
 * otherwise leave a bundle that cannot run it).
 */
export function verbTable(verbs, bundle) {
  const seen = new Set();
  const plugin = {
    name: 'verb-table',
    setup(build) {
      build.onResolve({ filter: /^\.\.\/commands\// }, (args) => {
        if (!/[\\/]src[\\/]cli[\\/]registry\.ts$/.test(args.importer)) return undefined;
        const id = commandIdOf(args.path);
        if (id === undefined)
          throw new Error(`build: src/cli/registry.ts requires ${args.path}, which names no command module`);
        seen.add(id);
        return verbs.has(id) ? undefined : { path: id, namespace: NS };
      });
      build.onResolve({ filter: new RegExp(`^${SHARED}$`) }, (args) =>
        args.namespace === NS ? { path: SHARED, namespace: NS } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: NS }, (args) => ({
        contents: args.path === SHARED ? sharedSource(bundle) : coldVerbModule(args.path),
        loader: 'js',
      }));
    },
  };
  const check = () => {
    const missing = [...verbs].filter((id) => !seen.has(id));
    if (missing.length > 0)
      throw new Error(
        `build: the verb(s) ${missing.join(', ')} of dist/cli/${bundle} (bin/run.js) are not required by src/cli/registry.ts`,
      );
  };
  return { plugin, seen, check };
}
