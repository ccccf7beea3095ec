import type { Browser, BrowserContext, Page } from 'playwright-core';
import path from 'node:path';
import { migrate } from '../../db/migrate';
import { dropDatabase, freePort, type Managed, recreateDatabase, startTemporal } from '../../scripts/stack';
import { ensureVoicePreviews } from '../../worker/voicePreviews';
import { call } from '../helpers/accounts';
import { createAccount, type TestAccount } from '../helpers/factories';
import { createTestDeps, type RunningApi, startApi, startTestWorker } from '../helpers/stack';
import { launchBrowser, screenshotDir, seriousViolations } from './browser';

/**
 * The voice library in a browser at a desktop and a phone size: every
 * premade voice a card with a preview that plays, its quality, its language
 * by name; search and filters; "Use in playground". It runs on a database and
 * a Temporal server of its own, where every preview is rendered first: the
 * shared test database keeps some voices without one, and a preview's workflow
 * id is the same in every database, so on the shared server these renders
 * would turn away voicePreviews.test's (or it theirs), depending on the order.
 */
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];

interface CatalogVoice {
  id: string;
  name: string;
  language: string;
  quality: 'neural' | 'classic';
  engine: string;
  preview_url: string | null;
}

let databaseUrl: string;
let temporal: Managed | undefined;
let deps: ReturnType<typeof createTestDeps>;
let api: RunningApi;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let browser: Browser;
let shots: string;
let account: TestAccount;
let catalog: CatalogVoice[];

beforeAll(async () => {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `${url.pathname}_voice_library`;
  databaseUrl = url.toString();
  const temporalPort = await freePort();
  [temporal] = await Promise.all([
    startTemporal({
      port: temporalPort,
      uiPort: 0,
      headless: true,
      logDir: path.join(process.env.DATA_DIR!, 'logs', 'voice-library'),
    }),
    recreateDatabase(databaseUrl),
  ]);
  deps = createTestDeps({ DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}` });
  await migrate(deps.db, deps.config);
  [api, worker, browser, shots, account] = await Promise.all([
    startApi(deps),
    startTestWorker(deps),
    launchBrowser(),
    screenshotDir('voice-library'),
    createAccount(deps),
  ]);
  const started = await ensureVoicePreviews(deps.temporal, deps.db, deps.config);
  await Promise.all(started.map((workflowId) => deps.temporal.workflow.getHandle(workflowId).result()));
  catalog = [];
  for (let page = 1; ; page++) {
    const answer = await call(
      api.url,
      'GET',
      `/api/v1/voices/?category=premade&page_size=100&page=${page}`,
      undefined,
      account.access,
    );
    catalog.push(...answer.body.results);
    if (!answer.body.next) break;
  }
}, 900_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
  await worker?.shutdown();
  await deps?.close();
  await temporal?.stop();
  if (databaseUrl) await dropDatabase(databaseUrl);
});

it('has a rendered preview for every premade voice, neural and classic ones among them', () => {
  expect(catalog.length).toBeGreaterThan(50);
  expect(catalog.filter((voice) => voice.preview_url === null)).toEqual([]);
  expect(new Set(catalog.map((voice) => voice.quality))).toEqual(new Set(['neural', 'classic']));
});

describe.each(VIEWPORTS)('the voice library at $width×$height', (viewport) => {
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const library = () => page.getByRole('region', { name: 'Voice library' });
  const cards = () => library().getByRole('listitem');
  const filters = () => page.getByRole('search', { name: 'Voice library' });

  async function checkPage(name: string) {
    expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
    await page.screenshot({ path: path.join(shots, `${name}-${viewport.name}.png`), fullPage: true });
  }

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    page.on(
      'console',
      (message) =>
        message.type() === 'error' &&
        !message.text().startsWith('Failed to load resource') &&
        problems.push(message.text()),
    );
    page.on(
      'response',
      (response) =>
        response.status() >= 400 &&
        !response.url().endsWith('/auth/session/refresh/') &&
        problems.push(`${response.status()} ${response.url()}`),
    );
    await page.goto(`${api.url}/app/login?next=%2Fapp%2Fvoices`);
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Voices' }).waitFor();
  });
  afterAll(() => context?.close());

  it('lists every premade voice as a card, neural first, with its quality and its language by name', async () => {
    await library().getByRole('status').getByText(`${catalog.length} voices`).waitFor();
    expect(await cards().count()).toBe(catalog.length);
    const badges = await cards().locator('.badge').allTextContents();
    const neural = catalog.filter((voice) => voice.quality === 'neural').length;
    expect(badges).toEqual([...Array(neural).fill('neural'), ...Array(catalog.length - neural).fill('classic')]);

    // Languages by name, in the cards and in the filter: no raw tags such as af-ZA.
    const voice = catalog.find((candidate) => candidate.language === 'en-US')!;
    expect(
      await cards()
        .filter({ has: page.getByRole('heading', { name: voice.name, exact: true }) })
        .first()
        .textContent(),
    ).toContain('American English');
    const languages = await filters().getByLabel('Language').locator('option').allTextContents();
    expect(languages).toContain('English');
    expect(languages.filter((label) => /^[a-z]{2,3}(-[A-Za-z0-9]+)*$/.test(label))).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await checkPage('voice-library');
  });

  it('plays every voice’s preview from its own button, one at a time, and stops it', async () => {
    const played: string[] = [];
    for (const voice of catalog) {
      const card = cards().filter({ has: page.getByRole('heading', { name: voice.name, exact: true }) });
      const play = card.getByRole('button', { name: `Play a preview of ${voice.name}`, exact: true });
      const [response] = await Promise.all([
        page.waitForResponse((answer) => answer.url().endsWith(voice.preview_url!)),
        play.first().click(),
      ]);
      expect({ voice: voice.id, status: response.status(), type: response.headers()['content-type'] }).toEqual({
        voice: voice.id,
        status: 200,
        type: 'audio/mpeg',
      });
      // "playing" only once the audio element has started: the preview decoded and plays.
      const stop = card.getByRole('button', { name: `Stop the preview of ${voice.name}`, exact: true });
      await page.waitForFunction(
        (id) => document.querySelectorAll('button.preview[data-state="playing"]').length === 1 && id,
        voice.id,
      );
      await stop.first().waitFor();
      expect(
        await library()
          .getByRole('button', { name: /^Stop the preview of / })
          .count(),
      ).toBe(1);
      played.push(voice.id);
    }
    expect(played).toHaveLength(catalog.length);
    // Stop: the button goes back to Play and nothing plays.
    const first = cards().first();
    await first.getByRole('button', { name: /^Play a preview of / }).click();
    await first.getByRole('button', { name: /^Stop the preview of / }).waitFor();
    await first.getByRole('button', { name: /^Stop the preview of / }).click();
    await first.getByRole('button', { name: /^Play a preview of / }).waitFor();
    await checkPage('voice-library-stopped');
    expect(
      await library()
        .getByRole('button', { name: /^Stop the preview of / })
        .count(),
    ).toBe(0);
  }, 600_000);

  it('searches and filters by quality, engine and language', async () => {
    const neural = catalog.filter((voice) => voice.quality === 'neural');
    await filters().getByLabel('Quality').selectOption('neural');
    await library().getByRole('status').getByText(`${neural.length} of ${catalog.length} voices`).waitFor();
    expect(await cards().locator('.badge').allTextContents()).toEqual(neural.map(() => 'neural'));
    await filters().getByLabel('Quality').selectOption('');

    const festival = catalog.filter((voice) => voice.engine === 'festival');
    await filters().getByLabel('Engine').selectOption('festival');
    await library().getByRole('status').getByText(`${festival.length} of ${catalog.length} voices`).waitFor();
    await filters().getByLabel('Engine').selectOption('');

    const german = catalog.filter((voice) => voice.language.split('-')[0] === 'de');
    await filters().getByLabel('Language').selectOption({ label: 'German' });
    await library().getByRole('status').getByText(`${german.length} of ${catalog.length} voices`).waitFor();
    await filters().getByLabel('Language').selectOption('');

    const target = catalog.find((voice) => voice.id === 'en-us-slt') ?? catalog[0];
    await filters().getByLabel('Search').fill(target.id);
    await cards().first().waitFor();
    expect(await cards().getByRole('heading').allTextContents()).toContain(target.name);
    await filters().getByLabel('Search').fill('no voice is called this');
    await library().getByText('0 of').waitFor();
    await library().getByRole('button', { name: 'Clear the filters' }).click();
    await library().getByRole('status').getByText(`${catalog.length} voices`).waitFor();
  });

  it('opens the playground with a voice chosen by "Use in playground", whose preview button shows its state', async () => {
    const voice = catalog.find((candidate) => candidate.language.startsWith('de')) ?? catalog[catalog.length - 1];
    const card = cards()
      .filter({ has: page.getByRole('heading', { name: voice.name, exact: true }) })
      .first();
    await card.getByRole('link', { name: `Use in playground: ${voice.name}` }).click();
    await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
    const select = page.getByLabel('Voice', { exact: true });
    await page.waitForFunction(
      (id) => [...document.querySelectorAll('select')].some((element: { value: string }) => element.value === id),
      voice.id,
    );
    expect(await select.inputValue()).toBe(voice.id);
    await page.getByRole('button', { name: `Play a preview of ${voice.name}` }).click();
    await page.getByRole('button', { name: `Stop the preview of ${voice.name}` }).waitFor();
    await checkPage('playground-from-library');
    await page.getByRole('button', { name: `Stop the preview of ${voice.name}` }).click();
    await page.getByRole('button', { name: `Play a preview of ${voice.name}` }).waitFor();
  });

  it('logged nothing to the console, threw nothing, failed no request', () => {
    expect(problems).toEqual([]);
  });
});

// Callbacks given to page.evaluate run in the browser; the project compiles without the DOM library.
declare const document: any;
