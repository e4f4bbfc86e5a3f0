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
  ['informational'],
  // webhooks: the management routes and start-up of event delivery (events/delivery/ does the delivering)
  ['auth', 'posture', 'console', 'webhooks'],
  ['catalogue', 'enrollment', 'mfa'],
  ['identities', 'edge-routers'],
  ['access'],
  // backend: the store with what depends on whether instances share its database (limits, outbox, deadlines)
  ['backend'],
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
  { ignores: ['dist/**', 'out/**', 'release/**', 'node_modules/**', 'desktop/renderer/dist/**'] },
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
    // Layering (docs/ARCHITECTURE.md): src/ (the agent core, the wire contract, the shared controller client,
    // the admin CLI) never reaches into Electron, the desktop app, the controller or the edge router.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['electron', '**/desktop/**', '**/controller/**', '**/edge-router/**'] },
      ],
    },
  },
  {
    // The desktop's Electron-free halves: the IPC schema (also read by the renderer) and the desktop agent
    // (driven by main, and by the UI tests without Electron) never reach into Electron, main, the renderer
    // or the controller.
    files: ['desktop/ipc/**/*.ts', 'desktop/agent/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['electron', '**/main/**', '**/renderer/**', '**/controller/**', '**/edge-router/**'] },
      ],
    },
  },
  {
    // The renderer is a sandboxed page without Node: it reaches main only through the preload's bridge, so it
    // imports nothing but its own files, the wire contract (src/api/) and the IPC schema (desktop/ipc/).
    files: ['desktop/renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            'electron',
            'node:*',
            '**/main/**',
            '**/agent/**',
            '**/admin/**',
            '**/common/**',
            '**/controller-client/**',
            '**/controller/**',
            '**/edge-router/**',
            '**/server/**',
          ],
        },
      ],
    },
  },
  {
    // The administrators' console is a web page: it reaches the controller only through the management API
    // (its wire types come from src/api/; its look from the desktop renderer's stylesheet, the one thing it
    // takes from desktop/).
    files: ['console/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            'electron',
            '**/desktop/main/**',
            '**/desktop/agent/**',
            '**/desktop/ipc/**',
            '**/controller/**',
            '**/src/agent/**',
          ],
        },
      ],
    },
  },
  ...controllerLayering(['electron', '**/src/agent/**', '**/desktop/**']),
  {
    // The store answers promises: a forgotten await reads a Promise as a truthy value or lets a write race its
    // answer. These rules need types, so they run where the store is used.
    files: ['controller/**/*.ts', 'server/**/*.ts', 'edge-router/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
);
