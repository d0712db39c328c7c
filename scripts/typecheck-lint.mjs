// `npm test`'s type check and ESLint in one process, over one TypeScript program: the same results as `npm run
// typecheck` followed by `npx eslint src test scripts bin`, for about half the CPU. Run apart, tsc type-checks every
// file, then ESLint builds the same program again and its type-aware rules ask the checker for the same types anew.
// Here the rules read the program the type check has already checked, so its types are computed once. The program
// is tsconfig.check.json's, the one eslint.config.js names for the type-aware rules. Exit 1 when either reports an
// error (both always run, so one run shows both); 2 when the config cannot be read.
// Usage: node scripts/typecheck-lint.mjs [FOLDER] (default: this repository; the tests point it at a small project).
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { ESLint } from 'eslint';

const REPO = resolve(process.argv[2] ?? resolve(import.meta.dirname, '..'));
const ts = createRequire(import.meta.url)('typescript');

const host = {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    process.stderr.write(ts.formatDiagnostics([d], formatHost));
    process.exit(2);
  },
};
const formatHost = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => REPO,
  getNewLine: () => '\n',
};

const config = ts.getParsedCommandLineOfConfigFile(resolve(REPO, 'tsconfig.check.json'), {}, host);
if (config.errors.length > 0) {
  process.stderr.write(ts.formatDiagnostics(config.errors, formatHost));
  process.exit(2);
}
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
const diagnostics = ts.getPreEmitDiagnostics(program);
// As tsc prints them: with colour and the source line on a terminal, one line each otherwise.
const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
if (diagnostics.length > 0) process.stdout.write(format(diagnostics, formatHost));

const eslint = new ESLint({
  cwd: REPO,
  overrideConfig: { files: ['**/*.ts'], languageOptions: { parserOptions: { programs: [program], project: null } } },
});
const results = await eslint.lintFiles(['src', 'test', 'scripts', 'bin']);
const formatter = await eslint.loadFormatter('stylish');
const report = await formatter.format(results);
if (report !== '') process.stdout.write(report.endsWith('\n') ? report : `${report}\n`);

const lintErrors = results.reduce((n, r) => n + r.errorCount + r.fatalErrorCount, 0);
if (diagnostics.length > 0 || lintErrors > 0) {
  process.stdout.write(`${diagnostics.length} type error(s), ${lintErrors} lint error(s)\n`);
  process.exit(1);
}
