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

  it('links back to the dashboard, follows a dark system setting, and names no "UNLICENSED"', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ colorScheme, viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      for (const path of ['/api/docs/', '/api/docs/errors/']) {
        await page.goto(`${api.url}${path}`);
        const back = page.getByRole('link', { name: /Back to the dashboard/ });
        expect(await back.getAttribute('href')).toBe('/app/playground');
        const background = await page.evaluate(() => window.getComputedStyle(window.document.body).backgroundColor);
        expect({ path, colorScheme, background }).toEqual({
          path,
          colorScheme,
          background: colorScheme === 'dark' ? 'rgb(20, 23, 27)' : expect.not.stringMatching(/^rgb\(20, 23, 27\)$/),
        });
      }
      await page.goto(`${api.url}/api/docs/`);
      await page.locator('.info .title').waitFor({ timeout: 60_000 });
      if (colorScheme === 'dark')
        expect(
          await page.locator('.info .title').evaluate((element: any) => window.getComputedStyle(element).color),
        ).toBe('rgb(230, 233, 238)');
      expect(await page.locator('body').textContent()).not.toContain('UNLICENSED');
      await context.close();
    }
  }, 120_000);

  it('lists webhooks, dictionaries, normalize, Studio and the OpenAI-compatible speech in the /api/v1/ index', async () => {
    const index = (await (await fetch(`${api.url}/api/v1/`)).json()) as {
      resources: Record<string, string>;
      openai_base_url: string;
    };
    expect(index.resources).toMatchObject({
      webhooks: '/api/v1/webhooks/',
      pronunciation_dictionaries: '/api/v1/pronunciation-dictionaries/',
      normalize: '/api/v1/tts/normalize/',
      projects: '/api/v1/projects/',
      studio_convert: '/api/v1/projects/{id}/convert/',
      openai_speech: '/api/v1/audio/speech/',
    });
    expect(index.openai_base_url).toBe('/v1');
    const unversioned = (await (await fetch(`${api.url}/api/`)).json()) as { resources: Record<string, string> };
    expect(unversioned.resources.openai_speech).toBe('/v1/audio/speech/');
  });
});
