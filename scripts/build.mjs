// npm run build:
// 1. tsc emits dist/ (the library entry dist/index.js and its types); type errors fail the build (after the
//    bundle is written, so one unfinished file does not stop everybody's binary tests).
// 2. esbuild bundles the CLI into one CommonJS file, dist/cli/handoff.cjs. Every call is a fresh process, and
//    Node 20 loads one CommonJS file far faster than ~100 small ES modules (measured: 1.29x vs 1.59x `node -e 0`
//    for `contract set`), so the executable runs the bundle. Verb modules stay lazy inside it.
// 3. schemas/envelope.schema.json is generated from the envelope's zod declaration (scripts/gen-envelope-schema.mjs,
//    which reads tsc's output, so only after a clean tsc).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { stdio: 'inherit' });

const esbuild = require('esbuild');
await esbuild.build({
  entryPoints: [new URL('../src/cli/main.ts', import.meta.url).pathname],
  outfile: new URL('../dist/cli/handoff.cjs', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['better-sqlite3'],
  // The bundle sits at dist/cli/, the same depth as every emitted module, so `new URL('../../x', import.meta.url)`
  // resolves to the same place in both builds.
  banner: { js: "const __bundle_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__bundle_import_meta_url' },
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
if (r.status !== 0) process.exit(r.status ?? 1);
const gen = spawnSync(process.execPath, [new URL('./gen-envelope-schema.mjs', import.meta.url).pathname], { stdio: 'inherit' });
process.exit(gen.status ?? 1);
