import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { ROOT } from '../../lib/config';

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
