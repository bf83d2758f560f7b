// ESLint (flat config) with typescript-eslint's type-aware rules; Prettier owns the layout, so no formatting rules
// here except max-len for the comments and strings Prettier does not wrap.
//
// The rule set: ESLint's and typescript-eslint's recommended-type-checked sets, which catch what matters most in
// this async code (a promise nobody awaits, an async function where a callback's result is ignored, awaiting a
// non-promise), plus a few rules that fit how this codebase is written:
// - return-await in try/catch: a promise returned from inside `try` without `await` escapes its catch and finally.
// - switch-exhaustiveness-check: rule names, kinds and exit codes are unions; a new member must reach every switch.
// - consistent-type-imports: type-only imports say so (inline `type`, as the code already does), so they vanish
//   from dist/ and cannot create a runtime import cycle.
// - eqeqeq (smart): `==` only in `x == null`.
// - only-throw-error and prefer-promise-reject-errors let a caught `unknown` be thrown again as it came (the crawl
//   keeps its first failure and rethrows it); a value the code makes must be an Error.
// - every eslint-disable names its reason after `--` on the same line, and an unneeded one is an error.
// - max-lines-per-function in src/: a function one can hold in mind is at most 100 lines, blank lines and comments
//   not counted (a comment that explains a step is welcome); the steps of a longer one become functions of their own.
// Tests may use `any` (see the block for test/ below).
import eslint from '@eslint/js';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['dist/', '.bench/', 'coverage/', 'out/', 'out.*/']),
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  comments.recommended,
  {
    languageOptions: {
      parserOptions: {
        // Each file is checked with the tsconfig.json that includes it (the root one, or bench/tsconfig.json).
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      '@eslint-community/eslint-comments/require-description': ['error', { ignore: ['eslint-enable'] }],
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      eqeqeq: ['error', 'smart'],
      // Deprecated in ESLint (layout belongs to formatters) but kept until ESLint 11; Prettier wraps code at 120
      // columns and leaves comments, strings and template literals as they are.
      'max-len': ['error', { code: 120, ignoreUrls: true }],
    },
  },
  {
    // A test parses what a server, a file or a client library gave it (JSON.parse, jsona, whose types do not
    // resolve) and states the shape it expects with expect(): there `any` is the honest type, and a wrong guess
    // fails the test. Typing every probe first would add casts, not checks. Library code keeps these rules.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The scripts are plain JavaScript: TypeScript checks their names (checkJs), as it does for .ts files.
    files: ['**/*.js', '**/*.mjs'],
    rules: {
      'no-undef': 'off',
    },
  },
);
