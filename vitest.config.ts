import { defineConfig } from 'vitest/config';

/**
 * Two runs of the suite: everything on the embedded SQLite store, and the tests that start controllers
 * (integration, reliability) again on a real PostgreSQL server the global setup starts. The tests that are
 * about one backend's own pieces run once.
 */
const ONE_BACKEND = [
  'test/integration/postgres-*.test.ts',
  'test/integration/pg-*.test.ts',
  'test/integration/filter-dialects.test.ts',
  // No store at all: the system layer in a network namespace.
  'test/integration/intercept-system.test.ts',
  // Network namespaces, one world at a time (a lock): what they test is the machine's routing, not the store.
  'test/integration/netns-world.test.ts',
  'test/integration/intercept-mode.test.ts',
  'test/integration/intercept-cli.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Integration tests each start a real controller process; two cores are enough for two at once.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/setup/console-build.ts'],
          exclude: ['test/e2e/**', 'node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/integration/**/*.test.ts', 'test/reliability/**/*.test.ts'],
          exclude: ['node_modules/**', ...ONE_BACKEND],
          globalSetup: ['test/setup/console-build.ts', 'test/setup/postgres-server.ts'],
          // Only this project's workers run on PostgreSQL (test/helpers/test-database.ts).
          env: { POSTERN_TEST_BACKEND: 'postgres' },
        },
      },
    ],
  },
});
