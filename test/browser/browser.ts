import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { ROOT } from '../../lib/config';
import { createTestDeps, type RunningApi, startApi, startTestWorker, type TestDeps } from '../helpers/stack';

// Callbacks given to page.evaluate run in the browser; the project compiles without the DOM library, so its few names are declared here.
declare const document: any;
declare const window: any;
declare function getComputedStyle(element: unknown): any;
type HTMLElement = any;
type Document = any;

/**
 * Drives Debian's chromium (scripts/install.sh installs it) with
 * playwright-core: no browser download. Shared by the dashboard's browser tests.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no browser at ${CHROMIUM}: run scripts/install.sh (apt-get install chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    // Root in a container has no user namespace for the sandbox; audio plays without a gesture or a sound card.
    args: [
      '--no-sandbox',
      '--autoplay-policy=no-user-gesture-required',
      '--use-fake-device-for-media-stream',
      '--mute-audio',
    ],
  });
}

/**
 * Where the run's screenshots go, printed once: .data/test-screenshots/ (the
 * run's own data dir is removed at teardown, so they would not outlive it);
 * the three newest runs are kept.
 */
export async function screenshotDir(label: string): Promise<string> {
  const base = process.env.SCREENSHOT_DIR ?? path.join(ROOT, '.data', 'test-screenshots');
  const dir = path.join(base, `${label}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await mkdir(dir, { recursive: true });
  const runs = (await readdir(base)).filter((name) => name.startsWith(`${label}-`)).sort();
  for (const old of runs.slice(0, -3)) await rm(path.join(base, old), { recursive: true, force: true });
  process.stdout.write(`[browser] screenshots in ${dir}\n`);
  return dir;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

let axeSource: string | undefined;
/**
 * Runs axe-core in the page. It goes in through the DevTools protocol
 * (page.evaluate), which the page's Content-Security-Policy does not govern,
 * so the policy under test stays as strict as it is for people.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map((node) => ({ target: node.target })),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** Presses Tab until the focused element's accessible text matches, as a keyboard user would; fails after `max` presses. */
export async function tabTo(page: Page, name: RegExp, max = 40): Promise<void> {
  for (let presses = 0; presses < max; presses++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      if (!element || element === document.body) return '';
      const label = element.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : '';
      return `${element.getAttribute('aria-label') ?? ''} ${label ?? ''} ${element.innerText ?? ''}`.trim();
    });
    if (name.test(focused)) return;
  }
  throw new Error(`Tab never reached ${name} in ${max} presses`);
}

/** Whether the focused element draws a visible focus indicator (an outline or a box-shadow). */
export function focusIsVisible(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return false;
    const style = getComputedStyle(element);
    return (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
  });
}

/** What a dashboard test drives: the API, a worker, the browser, and where its screenshots go. */
export interface BrowserStack {
  deps: TestDeps;
  api: RunningApi;
  worker: Awaited<ReturnType<typeof startTestWorker>>;
  browser: Browser;
  /** The run's screenshot folder (see screenshotDir). */
  shots: string;
  /** Stops the browser, the API, the worker and the deps. */
  close(): Promise<void>;
}

/** Starts the API and a worker on `deps` (the test stack's by default) and the browser, together. */
export async function startBrowserStack(label: string, deps: TestDeps = createTestDeps()): Promise<BrowserStack> {
  const [api, worker, browser, shots] = await Promise.all([
    startApi(deps),
    startTestWorker(deps),
    launchBrowser(),
    screenshotDir(label),
  ]);
  return {
    deps,
    api,
    worker,
    browser,
    shots,
    async close() {
      await browser.close();
      await api.close();
      await worker.shutdown();
      await deps.close();
    },
  };
}

/**
 * Collects what goes wrong in a page as lines: uncaught errors, console
 * errors, and answers of 400 or over. `expected` allows the answers a test
 * provokes on purpose (the browser's console line for a failed load is then
 * left to the answer's own judgement); `requests: false` judges no answer.
 */
export function problemsOf(
  page: Page,
  options: { requests?: boolean; expected?: (status: number, pathname: string) => boolean } = {},
): string[] {
  const { requests = true, expected } = options;
  const problems: string[] = [];
  const failedLoadsJudged = requests && !expected;
  page.on('pageerror', (error) => problems.push(`error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (!failedLoadsJudged && message.text().startsWith('Failed to load resource')) return;
    problems.push(`console: ${message.text()}`);
  });
  if (requests)
    page.on('response', (response) => {
      const { pathname } = new URL(response.url());
      if (response.status() >= 400 && !expected?.(response.status(), pathname))
        problems.push(`${response.status()} ${response.request().method()} ${pathname}`);
    });
  return problems;
}

/** axe-core on the page as it is now (0 serious or critical violations), then a full-page screenshot to `file`. */
export async function checkPage(page: Page, name: string, file: string): Promise<void> {
  expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
  await page.screenshot({ path: file, fullPage: true });
}

/** Fills in the login form the page shows and submits it. */
export async function submitLogin(page: Page, credentials: { email: string; password: string }): Promise<void> {
  await page.getByLabel('Email').fill(credentials.email);
  await page.getByLabel('Password').fill(credentials.password);
  await page.getByRole('button', { name: 'Log in' }).click();
}
