import js from '@eslint/js';
import globals from 'globals';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

export default tseslint.config(
  { ignores: ['node_modules/', '.temporal/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A forgotten `await` in workflow code is a bug Temporal will not forgive.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // core/ bundles into the workflow sandbox; workflows/ must stay deterministic.
    files: ['core/**/*.ts', 'workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message: 'No Node built-ins in core/ or workflows/: they run in the workflow sandbox.',
          })),
          patterns: [
            {
              group: ['**/activities/**', '**/client/**', '**/worker/**'],
              allowTypeImports: true,
              message: 'Only types may be imported from activities/, client/ or worker/ here.',
            },
            {
              group: ['@temporalio/activity', '@temporalio/client', '@temporalio/worker'],
              message: 'Not available in the workflow sandbox.',
            },
          ],
        },
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  // Test fixtures in plain JavaScript, and the bin, run in Node.
  { files: ['test/**/*.mjs', 'bin/**/*.js'], languageOptions: { globals: globals.node } },
  // The web view's modules run in the browser.
  { files: ['client/serve/web/**/*.js'], languageOptions: { globals: globals.browser } },
);
