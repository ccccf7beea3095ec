import type { Browser } from 'playwright-core';
import { createTestDeps, type RunningApi, startApi } from '../helpers/stack';
import { launchBrowser } from './browser';

// Callbacks given to page.evaluate run in the browser; the project compiles without the DOM library.
declare const localStorage: any;
declare const window: any;

/** The API reference under its Content-Security-Policy, in a real browser: it renders, nothing is blocked, no token is kept. */
describe('API docs page in a browser', () => {
  let deps: ReturnType<typeof createTestDeps>;
  let api: RunningApi;
  let browser: Browser;
  beforeAll(async () => {
    deps = createTestDeps();
    [api, browser] = await Promise.all([startApi(deps), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await deps?.close();
  });

  it('renders Swagger UI with every operation drawn as the reader scrolls, no CSP violation, and a pasted token not kept in localStorage', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    const response = await page.goto(`${api.url}/api/docs/`);
    expect(response!.headers()['content-security-policy']).toMatch(/script-src 'self' 'sha256-/);
    // The operations list is drawn by the start-up script (a blocked one would leave the page empty).
    await page.locator('.opblock').first().waitFor({ timeout: 60_000 });

    // From 150 rows (tags and their operations) on, Swagger UI draws only the rows in view and a few around
    // them, and the rest as the page scrolls; the document is past that, so a look for a row further down
    // finds nothing until the reader gets there. Every operation of the document must be drawn on the way down.
    const document = (await (await fetch(`${api.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    const drawn = new Set<string>();
    for (let atBottom = false; !atBottom;) {
      // Until the rows drawn cover the viewport (a list not virtualized is drawn whole).
      await page.waitForFunction(() => {
        const list = window.document.querySelector('.operations-virtual__list');
        if (!list) return true;
        const rows = list.children;
        if (rows.length === 0) return false;
        const top = rows[0].getBoundingClientRect().top <= 0 || parseFloat(list.style.paddingTop) === 0;
        const bottom =
          rows[rows.length - 1].getBoundingClientRect().bottom >= window.innerHeight ||
          parseFloat(list.style.paddingBottom) === 0;
        return top && bottom;
      });
      const seen = await page.evaluate(() => {
        const blocks = [...window.document.querySelectorAll('.opblock')].map(
          (block: any) =>
            `${block.querySelector('.opblock-summary-method')?.textContent} ${block.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
        );
        const end = window.scrollY + window.innerHeight >= window.document.documentElement.scrollHeight - 1;
        window.scrollBy(0, window.innerHeight * 0.75);
        return { blocks, end };
      });
      seen.blocks.forEach((operation) => drawn.add(operation));
      atBottom = seen.end;
    }
    expect(operations).toContain('POST /api/v1/tts/synthesize/');
    expect(operations.filter((operation) => !drawn.has(operation))).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));

    await page
      .getByRole('button', { name: /Authorize/ })
      .first()
      .click();
    const field = page.locator('.modal-ux input').first();
    await field.fill('vk_pasted-secret-token');
    await page.locator('.modal-ux button.authorize').first().click();
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
    expect(stored).not.toContain('vk_pasted-secret-token');
    expect(problems).toEqual([]);
    await page.close();
  }, 180_000);
});
