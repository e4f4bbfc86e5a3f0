import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'release/**', 'node_modules/**', 'renderer/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // Tests read JSON bodies of many shapes; typing each one would add noise, not safety.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', require: 'readonly', module: 'writable' },
    },
  },
  {
    // Layering (docs/ARCHITECTURE.md): the agent core, wire contract and IPC schema never reach into Electron,
    // main/, renderer/ or the controller; the controller never reaches into the agent.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['electron', '**/main/**', '**/renderer/**', '**/controller/**'] },
      ],
    },
  },
  {
    // The administrators' console is a web page: it reaches the controller only through the management API
    // (its wire types come from src/api/; its look from the renderer's stylesheet).
    files: ['console/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['electron', '**/main/**', '**/controller/**', '**/src/agent/**', '**/src/ipc/**'] },
      ],
    },
  },
  {
    files: ['controller/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['electron', '**/src/agent/**'] }] },
  },
  {
    // The store answers promises: a forgotten await reads a Promise as a truthy value or lets a write race its
    // answer. These rules need types, so they run where the store is used.
    files: ['controller/**/*.ts', 'server/**/*.ts', 'router/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
);
