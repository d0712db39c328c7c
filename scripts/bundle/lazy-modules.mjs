// Lazily loaded modules inside the CLI bundle (scripts/build.mjs; docs/decisions.md, "Fast start").
//
// A module-level `import { createHash } from 'node:crypto'` loads node:crypto when the importing module is
// evaluated, whether or not the call uses it: `contract set` would pay for crypto (nanoid), child_process and
// fs/promises (oclif), tty (chalk's colour detection) on every call. Inside the bundle each module named here is
// replaced by a stand-in whose exports are getters: the real module is required on the first use of any export.
// Named, default and namespace imports all keep working (a namespace or default import gets the stand-in itself).
//
// This changes when a module loads, never what it does. The stand-in lists every export the real module has on the
// building machine (the bundle is built where it runs, by `npm run build`), so a name the real module lacks reads as
// undefined exactly as it would without the stand-in.
import { createRequire } from 'node:module';
import { escapeRegExp } from './oclif-patches.mjs';

const require = createRequire(import.meta.url);

/** Built-ins that only some verbs use. */
export const LAZY_BUILTINS = ['crypto', 'child_process', 'fs/promises', 'readline', 'perf_hooks', 'tty'];
/** Packages whose evaluation has a cost (chalk detects the terminal's colours when it loads). */
export const LAZY_PACKAGES = ['chalk'];

const NS = 'handoff-lazy';

/** The export names of one lazy module, read from the real module. */
async function exportNames(name, resolveDir) {
  if (LAZY_BUILTINS.includes(name)) return Object.keys(require(`node:${name}`));
  const path = createRequire(`${resolveDir}/`).resolve(name);
  return Object.keys(await import(path));
}

/** The stand-in's source: one getter per export, each requiring the real module on first use. */
export function standIn(name, names) {
  const real = LAZY_BUILTINS.includes(name) ? `node:${name}` : name;
  const getters = names
    .filter((n) => n !== '__esModule')
    .map((n) => `  get ${JSON.stringify(n)}() { return load()[${JSON.stringify(n)}]; },`)
    .join('\n');
  return `'use strict';\nlet real;\nconst load = () => (real ??= require(${JSON.stringify(real)}));\nmodule.exports = {\n${getters}\n};\n`;
}

/** Throws unless the build met every lazy module (`seen`): a stand-in nothing imports any more is a stale patch. */
export function checkLazySeen(seen) {
  const unseen = [...LAZY_BUILTINS, ...LAZY_PACKAGES].filter((name) => !seen.has(name));
  if (unseen.length > 0)
    throw new Error(
      `build: nothing in the bundle imports ${unseen.join(', ')} any more; drop it from scripts/bundle/lazy-modules.mjs`,
    );
}

/** The esbuild plugin, and the lazy modules the build met (`root`: the package root, where packages resolve from). */
export function lazyModules(root) {
  const builtins = new RegExp(`^(?:node:)?(${LAZY_BUILTINS.map(escapeRegExp).join('|')})$`);
  const packages = new RegExp(`^(${LAZY_PACKAGES.map(escapeRegExp).join('|')})$`);
  const seen = new Set();
  const plugin = {
    name: 'lazy-modules',
    setup(build) {
      const redirect = (args) => {
        // The stand-in's own require of the real module resolves the usual way.
        if (args.namespace === NS) return undefined;
        const name = args.path.replace(/^node:/, '');
        return { path: name, namespace: NS };
      };
      build.onResolve({ filter: builtins }, redirect);
      build.onResolve({ filter: packages }, redirect);
      build.onLoad({ filter: /.*/, namespace: NS }, async (args) => {
        seen.add(args.path);
        return { contents: standIn(args.path, await exportNames(args.path, root)), loader: 'js', resolveDir: root };
      });
    },
  };
  return { plugin, seen };
}
