/**
 * UI tests: the built renderer in Debian's Chromium (Playwright's own browser downloads are unavailable
 * here), driven against the real agent core and a real controller in the test process; plus the
 * `_electron` suite, which runs only where an Electron binary exists.
 */
import { defineConfig } from '@playwright/test';

const CHROMIUM = process.env.POSTERN_CHROMIUM ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: /.*\.spec\.ts$/,
  globalSetup: './test/e2e/global-setup.ts',
  outputDir: 'test-results',
  timeout: 90_000,
  // Generous: a loaded machine must not fail a UI that is right, only slow.
  expect: { timeout: 30_000 },
  // One controller and one agent per spec file; the files run one after another.
  workers: 1,
  fullyParallel: false,
  reporter: [['list']],
  use: {
    viewport: { width: 1000, height: 760 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: CHROMIUM,
      // Root in a container: no user namespaces for Chromium's sandbox.
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
