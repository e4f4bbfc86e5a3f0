/**
 * Driving the real, unmodified ZAC (OpenZiti's console) in Chromium as an administrator does: typing into its
 * forms (its handlers listen to keyup and change, so fields are typed, not set), and recording every request
 * it sends to the controller with its answer, every request the browser failed (a CORS refusal is one) and
 * every console line naming CORS. Used by zac-real-console.test.ts.
 */
import type { Browser, Locator, Page } from 'playwright';
import { ADMIN_PASSWORD } from './controller.js';

export interface ZacRequest {
  /** what ZAC was doing (its route, or the form), for the page-by-page record */
  step: string;
  status: number;
  method: string;
  /** path and query as sent */
  url: string;
  /** the request body for writes, for the report */
  body?: string;
}

export interface ZacSession {
  page: Page;
  /** the step requests are recorded under: set by `visit` and by the caller for a form */
  step: string;
  /** every Edge and fabric API request ZAC sent, with its answer's status */
  requests: ZacRequest[];
  /** controller requests the browser failed (no answer handed to ZAC: CORS, reset) */
  failed: string[];
  /** console lines naming CORS */
  corsErrors: string[];
  /** ids of what ZAC created, by collection (`identities`, `configs`, …), from its 201 answers */
  created: Map<string, string[]>;
}

const API_PATH = /^\/(edge|fabric)\//;

/**
 * A new page on `zacUrl` (ZAC's own root, ending in `/zac`), signed in as the administrator. Cross-origin
 * (`controllerUrl` not ZAC's origin), ZAC first asks which controller to use, as it does for any origin that
 * is not itself a controller.
 */
export async function openZac(browser: Browser, zacUrl: string, controllerUrl: string): Promise<ZacSession> {
  const page = await browser.newPage();
  page.setDefaultTimeout(60_000);
  const controllerOrigin = new URL(controllerUrl).origin;
  const session: ZacSession = {
    page,
    step: 'sign-in',
    requests: [],
    failed: [],
    corsErrors: [],
    created: new Map(),
  };
  page.on('response', async (response) => {
    const url = new URL(response.url());
    if (url.origin !== controllerOrigin || !API_PATH.test(url.pathname)) return;
    const request = response.request();
    const method = request.method();
    if (method === 'OPTIONS') return;
    const status = response.status();
    session.requests.push({
      step: session.step,
      status,
      method,
      url: url.pathname + url.search,
      ...(method === 'GET' ? {} : { body: request.postData() ?? '' }),
    });
    if (method === 'POST' && status === 201) {
      const collection = url.pathname.split('/').pop()!;
      const id = ((await response.json().catch(() => ({}))) as { data?: { id?: string } }).data?.id;
      if (id) session.created.set(collection, [...(session.created.get(collection) ?? []), id]);
    }
  });
  page.on('requestfailed', (request) => {
    const url = new URL(request.url());
    // ERR_ABORTED: ZAC's own cancellation when a page is left with calls in flight, not a refusal
    if (url.origin === controllerOrigin && request.failure()?.errorText !== 'net::ERR_ABORTED')
      session.failed.push(`${request.method()} ${url.pathname} ${request.failure()?.errorText}`);
  });
  page.on('console', (message) => {
    if (/CORS|Access-Control/i.test(message.text())) session.corsErrors.push(message.text());
  });
  await page.goto(`${zacUrl}/`);
  const edgeUrl = page.getByPlaceholder('e.g. https://example.domain.io:1280');
  const password = page.locator('input[type=password]').first();
  await edgeUrl.or(password).first().waitFor();
  if (await edgeUrl.isVisible()) {
    await typeInto(page.getByPlaceholder('enter a name for your controller'), 'postern');
    await typeInto(edgeUrl, controllerOrigin);
    await page.getByRole('button', { name: 'Set Controller' }).click();
  }
  await password.waitFor();
  await page.locator('#Username').fill('admin');
  await password.fill(ADMIN_PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/zac\/dashboard/);
  return session;
}

/** Opens one of ZAC's routes and waits until its calls are answered. */
export async function visit(session: ZacSession, zacUrl: string, route: string): Promise<void> {
  session.step = route.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}');
  await session.page.goto(`${zacUrl}/${route}`);
  await session.page.waitForLoadState('networkidle');
}

/** Types into a field as a person does: ZAC derives names and validates on keyup and change. */
export async function typeInto(field: Locator, text: string): Promise<void> {
  await field.click();
  await field.pressSequentially(text);
  await field.press('Tab');
}

/** Adds a role attribute in one of ZAC's tag selectors (found by its placeholder): typed, then Enter. */
export async function addAttribute(page: Page, placeholder: string, attribute: string): Promise<void> {
  const input = page.getByPlaceholder(placeholder, { exact: true }).first();
  await input.click();
  await input.fill(attribute);
  await input.press('Enter');
}

/** Presses a form's Save and waits for ZAC to go back to the list, its writes answered. */
export async function save(session: ZacSession, backTo: string): Promise<void> {
  await session.page.locator('.save-button').first().click();
  await session.page.waitForURL((url) => url.pathname.endsWith(`/zac/${backTo}`));
  await session.page.waitForLoadState('networkidle');
}

/** The requests with a 4xx or 5xx answer, literal `undefined` ids left out (ZAC's own bug, listed in the docs). */
export function refused(session: ZacSession): string[] {
  return session.requests
    .filter((r) => r.status >= 400 && !/\/undefined(\/|$|\?)/.test(r.url))
    .map((r) => `${r.status} ${r.method} ${r.url}`);
}

/** ZAC's requests step by step: `<step>: <n> requests, <status> ×<count>…`, for the report. */
export function requestSummary(session: ZacSession): string[] {
  const steps = new Map<string, ZacRequest[]>();
  for (const r of session.requests) steps.set(r.step, [...(steps.get(r.step) ?? []), r]);
  return [...steps].map(([step, requests]) => {
    const statuses = new Map<number, number>();
    for (const r of requests) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    const counted = [...statuses].map(([status, n]) => `${status} ×${n}`).join(', ');
    return `${step}: ${requests.length} requests, ${counted}`;
  });
}
