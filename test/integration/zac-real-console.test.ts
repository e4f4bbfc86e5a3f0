/**
 * The real, unmodified ZAC (github.com/openziti/ziti-console, built from its public source with `npm ci` and
 * `ng build`) in Chromium against a real controller serving it with `--zac`: sign in, then each list page;
 * every Edge and fabric request it makes must answer without a 4xx or 5xx. The build is not part of the
 * repository and is never downloaded here: set POSTERN_ZAC_DIR to its `dist/app-ziti-console` (and
 * POSTERN_CHROMIUM to a Chromium binary, default /usr/bin/chromium), or the test is skipped.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright';
import { ADMIN_PASSWORD, startTestBundle, type TestController } from '../helpers/controller.js';

const ZAC_DIR = process.env.POSTERN_ZAC_DIR ?? '';
const CHROMIUM = process.env.POSTERN_CHROMIUM ?? '/usr/bin/chromium';
const present = ZAC_DIR !== '' && existsSync(join(ZAC_DIR, 'index.html')) && existsSync(CHROMIUM);
const PAGES = [
  'dashboard',
  'identities',
  'services',
  'configs',
  'service-policies',
  'posture-checks',
  'routers',
];
const PAGES_MORE = ['sessions', 'jwt-signers', 'certificate-authorities'];

describe.skipIf(!present)(
  'the real ZAC in Chromium (needs POSTERN_ZAC_DIR: a ZAC build; skipped without)',
  () => {
    let tc: TestController;
    let browser: Browser;
    beforeAll(async () => {
      tc = await startTestBundle({ zacDir: ZAC_DIR });
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await tc?.dispose();
    });

    it('signs in and opens every list page with no refused request', async () => {
      const page = await browser.newPage();
      const answered: string[] = [];
      page.on('response', (r) => {
        const url = new URL(r.url());
        if (/^\/(edge|fabric)\//.test(url.pathname))
          answered.push(`${r.status()} ${r.request().method()} ${url.pathname}`);
      });
      await page.goto(`${tc.url}/zac/`, { timeout: 60_000 });
      await page.locator('input[type=password]').first().waitFor({ timeout: 60_000 });
      await page.locator('input[type=text], input[name=username]').first().fill('admin');
      await page.locator('input[type=password]').first().fill(ADMIN_PASSWORD);
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/zac\/dashboard/, { timeout: 60_000 });
      for (const name of [...PAGES, ...PAGES_MORE]) {
        await page.goto(`${tc.url}/zac/${name}`, { timeout: 60_000 });
        await page.waitForLoadState('networkidle', { timeout: 60_000 });
      }
      expect(answered.some((a) => a.includes('/edge/management/v1/identities'))).toBe(true);
      expect(answered.some((a) => a.includes('/edge/management/v1/summary'))).toBe(true);
      expect(answered.filter((a) => !a.startsWith('2'))).toEqual([]);
    }, 300_000);
  },
);
