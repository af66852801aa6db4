// Lint rules the code review would otherwise have to repeat. Formatting is Prettier's (see .prettierrc.json).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.scratch/**',
      'docs/.vitepress/dist/**',
      'docs/.vitepress/cache/**',
      'docs/reference/api-entries/**',
      // Compiled in the app the docs walk, where its OpenTelemetry instrumentations are installed (see tsconfig.json).
      'examples/snippets/app/src/instrumentation.ts',
    ],
  },
  { files: ['**/*.js'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
  // The docs' app is an ES module app (`"type": "module"`): its JavaScript files are modules.
  { files: ['examples/snippets/app/**/*.js'], languageOptions: { sourceType: 'module' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-duplicate-imports': 'off',
    },
  },
  {
    // The folders are the modules: another module is reached through its index, never its files.
    files: ['lib/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(\\.\\./)+[^./][^/]*/', message: 'Import another module through its index (e.g. ../store), not its files.' },
            { regex: '(__tests__|chaos|bench|examples)', message: 'The library never imports tests, tools or examples.' },
          ],
        },
      ],
    },
  },
  {
    // Tests, examples, the bench and the chaos suite use the package by its name, as users do; internals
    // under test are imported from their own files.
    files: ['__tests__/**/*.ts', 'examples/**/*.ts', 'bench/**/*.ts', 'chaos/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+lib(/index|/feed(/index)?|/local(/index)?)?$',
              message: "Import the public API by the package's name: 'dynafold', 'dynafold/feed' or 'dynafold/local'.",
            },
          ],
        },
      ],
    },
  },
  {
    // Type-aware rules where a forgotten `await` or a promise passed where a callback is expected would be a
    // bug: the library and the programs that run it. Types come from tsconfig.json (it includes all four).
    files: ['lib/**/*.ts', 'examples/**/*.ts', 'bench/**/*.ts', 'chaos/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // `Promise.all([maybeAWrite, undefined])` is how a step is skipped; an array with no promise at all is still caught.
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      // An abort rejects with the signal's own reason, and a caught error is passed on as it was: both untyped.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // An `async` method without `await` implements a Promise interface and turns a throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // `any` is banned where it is written (no-explicit-any); what these would flag is where it enters by itself:
      // runtime checks of a caller's input (Array.isArray narrows to any[]), the SDK's item records, AbortSignal.reason.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // A test that forgets to await a promise (the test kit's `thenRows`, `thenEvents`) passes without checking anything.
    files: ['__tests__/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
    },
  },
  prettier,
  {
    // The fresh apps of the package check: plain Node scripts and jest tests, CommonJS and ESM, as a user writes them.
    files: ['package-check/*/*.cjs', 'package-check/*/*.mjs', 'package-check/*/*.js'],
    languageOptions: {
      globals: {
        module: 'writable',
        require: 'readonly',
        console: 'readonly',
        process: 'readonly',
        test: 'readonly',
        expect: 'readonly',
        afterAll: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
