/**
 * scripts/typecheck-lint.mjs, `npm test`'s type check and ESLint over one TypeScript program, reports what tsc and
 * ESLint report: run on a small project of its own, a type error and a floating promise (a type-aware rule, which
 * reads the shared program: the project's ESLint config names no usable tsconfig) both fail it, each named and
 * counted, and nothing else is reported. (Its passing run is every `npm test`'s.)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
// Inside the repository's node_modules, so the project's eslint.config.js finds typescript-eslint there.
const CACHE = join(ROOT, 'node_modules', '.cache');
mkdirSync(CACHE, { recursive: true });
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const TSCONFIG = {
  compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true },
  include: ['src/**/*.ts', 'test/**/*.ts'],
};
// The config names a tsconfig that does not exist: ESLint alone would fail to parse every file. The step must give
// the type-aware rules the type check's program, never build one of its own from the config.
const ESLINT_CONFIG = `import tseslint from 'typescript-eslint';
export default tseslint.config({
  files: ['**/*.ts'],
  extends: [...tseslint.configs.recommendedTypeChecked],
  languageOptions: { parserOptions: { project: './no-such-tsconfig.json', tsconfigRootDir: import.meta.dirname } },
});
`;

/** A project with the four folders the script lints; `a` and `b` are src/a.ts and test/b.ts. */
function project(a: string, b: string): string {
  const dir = mkdtempSync(join(CACHE, 'handoff-typecheck-lint-'));
  made.push(dir);
  for (const sub of ['src', 'test', 'scripts', 'bin']) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'tsconfig.check.json'), JSON.stringify(TSCONFIG));
  writeFileSync(join(dir, 'eslint.config.js'), ESLINT_CONFIG);
  writeFileSync(join(dir, 'src', 'a.ts'), a);
  writeFileSync(join(dir, 'test', 'b.ts'), b);
  writeFileSync(join(dir, 'scripts', 'c.mjs'), 'export const c = 1;\n');
  writeFileSync(join(dir, 'bin', 'd.js'), 'export const d = 1;\n');
  return dir;
}

const check = (dir: string) =>
  spawnSync(process.execPath, [join(ROOT, 'scripts', 'typecheck-lint.mjs'), dir], { encoding: 'utf8' });

describe('the type check and ESLint in one step', () => {
  it('fails on a type error and on a floating promise, naming each, with exit 1', () => {
    const r = check(
      project(
        "export function later(): Promise<number> {\n  return Promise.resolve(1);\n}\nexport const n: number = 'one';\n",
        "import { later } from '../src/a.js';\nexport function use(): void {\n  later();\n}\n",
      ),
    );
    expect(r.stdout).toMatch(/src\/a\.ts\(4,14\): error TS2322/);
    expect(r.stdout).toMatch(/test\/b\.ts\n\s+3:3\s+error\s+Promises must be awaited.*no-floating-promises/);
    expect(r.stdout).toContain('1 type error(s), 1 lint error(s)');
    expect(r.status).toBe(1);
  });
});
