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
    // The layering rules of ARCHITECTURE.md section 2.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['electron', '**/main/**', '**/renderer/**', '**/controller/**'] },
      ],
    },
  },
  {
    files: ['controller/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['electron', '**/src/agent/**'] }] },
  },
);
