import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * Layers (docs/architecture.md, "Layers"): dependencies flow one way, adapters -> services -> store -> the pure core.
 * Each folder of src/ is in one layer and may import only from its own layer and the ones below it. The folders are
 * named by the relative specifier (`../cli/x.js`, `../../store/y.js`, `./mcp/z.js` from src/*.ts); the same list is
 * checked for static imports and re-exports (no-restricted-imports) and for `import()` and `require()`
 * (no-restricted-syntax), so a lazy load cannot slip past it.
 */
const ADAPTERS = ['cli', 'commands', 'mcp'];
const SERVICES = [
  'approvals',
  'attest',
  'dispatch',
  'drafts',
  'evidence',
  'finalize',
  'gate',
  'hooks',
  'input',
  'keys',
  'receipts',
  'render',
  'retention',
  'store-copy',
  'ui',
];

/** `^(\.\.?\/)+(a|b)\/`, with `/` written `\x2F` so the same text also serves in an esquery attribute regex. */
function folderRegex(folders) {
  return `^(\\.\\.?\\x2F)+(${folders.join('|')})\\x2F`;
}

/** One config object: `files` may not import `forbidden` (a list of { folders, why }). */
function boundary(name, files, forbidden, ignores = []) {
  const patterns = forbidden.map((f) => ({ regex: folderRegex(f.folders), message: f.why }));
  const calls = forbidden.flatMap((f) => [
    { selector: `ImportExpression > Literal[value=/${folderRegex(f.folders)}/]`, message: f.why },
    { selector: `CallExpression[callee.name='require'] > Literal[value=/${folderRegex(f.folders)}/]`, message: f.why },
  ]);
  return {
    name: `layers/${name}`,
    files,
    ignores,
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [...patterns, { group: ['@oclif/*'], message: 'only src/cli/ and src/commands/ use oclif' }] },
      ],
      'no-restricted-syntax': ['error', ...calls],
    },
  };
}

const NO_ADAPTERS = {
  folders: ADAPTERS,
  why: 'a service never imports src/cli/, src/commands/ or src/mcp/: take a small interface of its own and let the verb adapt',
};
const NO_SERVICES_IN_STORE = {
  folders: SERVICES,
  why: 'the store sits below the services: it may import only the pure core (validator, envelope, codes) and leaf modules',
};
const NO_SERVICES_IN_CORE = {
  folders: [...SERVICES, 'store'],
  why: 'the pure core (validator, envelope, codes) imports no service and no store',
};

/**
 * src/render/ renders and never writes: no file system, no process, no draft write, no store (their types are fine:
 * it renders outcomes of those writes).
 */
const RENDER_ONLY = {
  name: 'layers/render',
  files: ['src/render/**/*.ts'],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        paths: ['node:fs', 'fs', 'node:fs/promises', 'node:child_process'].map((name) => ({
          name,
          message: 'src/render/ renders; the caller writes',
        })),
        patterns: [
          {
            regex: '^(\\.\\.?/)+(store/|drafts/write\\.js$)',
            allowTypeImports: true,
            message: 'src/render/ renders an outcome; the caller runs the write (types are fine)',
          },
        ],
      },
    ],
  },
};

const LAYER_RULES = [
  boundary(
    'services',
    ['src/**/*.ts'],
    [NO_ADAPTERS],
    ADAPTERS.map((a) => `src/${a}/**`),
  ),
  boundary('store', ['src/store/**/*.ts'], [NO_ADAPTERS, NO_SERVICES_IN_STORE]),
  boundary(
    'core',
    ['src/validator/**/*.ts', 'src/envelope/**/*.ts', 'src/codes/**/*.ts'],
    [NO_ADAPTERS, NO_SERVICES_IN_CORE],
  ),
  RENDER_ONLY,
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        // The project service only sees tsconfig.json (src, for the build); tsconfig.check.json adds test/ and
        // vitest.config.ts, so the type-checked rules read that program.
        project: './tsconfig.check.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...LAYER_RULES,
  {
    // Tests read CLI output (RunResult.json), JSON.parse results, SQLite rows and shared case files as untyped data
    // and check them with expect(); the no-unsafe-* family reports every such read (~1,200 places) without finding a
    // defect. They stay on for src/.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // The page of `handoff ui`, run by the browser as a classic script.
    files: ['ui/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        sessionStorage: 'readonly',
        fetch: 'readonly',
      },
    },
  },
  {
    files: [
      'bin/**/*.js',
      'scripts/**/*.cjs',
      'test/fixtures/**/*.cjs',
      'test/helpers/**/*.cjs',
      'test/poolers/**/*.cjs',
    ],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        process: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
