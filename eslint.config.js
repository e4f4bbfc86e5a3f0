import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The controller's modules from the bottom up (docs/ARCHITECTURE.md): a module imports the kernel (the files
 * at controller/'s root), the modules of the rows below its own, and nothing else of the controller. Modules
 * on one row are siblings: neither imports the other. A new module takes the row of the highest module it
 * builds on, plus one.
 */
const CONTROLLER_MODULES = [
  ['store'],
  ['platform'],
  ['http', 'events'],
  ['auth', 'posture', 'console'],
  ['catalogue', 'enrollment', 'mfa'],
  ['identities', 'edge-routers'],
  ['access'],
  ['composition', 'demo'],
];

/** One lint rule per module folder: the imports of modules on its own row and above are refused. */
function controllerLayering(alwaysRefused) {
  const refusedFrom = (modules) => ({
    regex: `^(\\.{1,2}/)+(${modules.join('|')})/`,
    message: 'a controller module imports only the kernel and the modules below its own (eslint.config.js)',
  });
  const always = { group: alwaysRefused };
  const all = CONTROLLER_MODULES.flat();
  const perModule = CONTROLLER_MODULES.flatMap((row, index) =>
    row.map((module) => {
      const above = CONTROLLER_MODULES.slice(index)
        .flat()
        .filter((other) => other !== module);
      return {
        files: [`controller/${module}/**/*.ts`],
        rules: { 'no-restricted-imports': ['error', { patterns: [always, refusedFrom(above)] }] },
      };
    }),
  );
  const kernel = {
    files: ['controller/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [always, refusedFrom(all)] }] },
  };
  return [kernel, ...perModule];
}

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
  ...controllerLayering(['electron', '**/src/agent/**']),
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
