import type { BrowserContext, Page } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, PASSWORD, uniqueEmail } from '../helpers/accounts';
import { createAccount, type TestAccount } from '../helpers/factories';
import { createTestDeps, type RunningApi, startApi } from '../helpers/stack';
import { type BrowserStack, checkPage, problemsOf, startBrowserStack, submitLogin } from './browser';

// Callbacks given to page.evaluate run in the browser; the project compiles without the DOM library, so its few names are declared here.
declare const navigator: any;
declare const document: any;

/**
 * What a person trips over once past the first hour, at a desktop and a
 * phone size: logging out and in again, a text over the plan's limit.
 */
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
];

let stack: BrowserStack;
/** A development server that writes mail to files, as a newcomer's first run does. */
let devDeps: ReturnType<typeof createTestDeps>;
let devApi: RunningApi;
let mailDir: string;

beforeAll(async () => {
  mailDir = await mkdtemp(path.join(tmpdir(), 'openvox-browser-devmail-'));
  devDeps = createTestDeps({ NODE_ENV: 'development', SMTP_URL: undefined, MAIL_DIR: mailDir });
  [stack, devApi] = await Promise.all([startBrowserStack('returning-user'), startApi(devDeps)]);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await devApi?.close();
  await devDeps?.close();
  if (mailDir) await rm(mailDir, { recursive: true, force: true });
});

describe.each(VIEWPORTS)('the dashboard at $width×$height', (viewport) => {
  let context: BrowserContext;
  let page: Page;
  let account: TestAccount;
  let problems: string[];

  const check = (name: string) => checkPage(page, name, path.join(stack.shots, `${name}-${viewport.name}.png`));
  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
  const logInWithForm = () => submitLogin(page, account);

  beforeAll(async () => {
    account = await createAccount(stack.deps);
    context = await stack.browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.api.url });
    page = await context.newPage();
    // Answers are not judged here: the tests provoke refusals (a text over the plan's limit).
    problems = problemsOf(page, { requests: false });
  });
  afterAll(() => context?.close());

  it('after signing up on a development server without mail, says where the mail went and how to verify without it', async () => {
    const email = uniqueEmail('devmail');
    await page.goto(`${devApi.url}/app/signup`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await heading('Check your mail');
    const note = page.getByRole('note', { name: 'Where the mail went' });
    await note.waitFor();
    expect(await note.textContent()).toContain(mailDir);
    expect(await note.getByText(`openvox user verify ${email}`).isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await check('signup-check-mail-development');

    // Not a development server (this run's is NODE_ENV=test): the page says nothing of files.
    await page.goto(`${stack.api.url}/app/signup`);
    await page.getByLabel('Email').fill(uniqueEmail('testmail'));
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await heading('Check your mail');
    expect(await page.getByRole('note').count()).toBe(0);
  });

  it('logs in, logs out, logs in again and lands in the playground; /app/login while logged in goes there too', async () => {
    await page.goto(`${stack.api.url}/app/login`);
    await heading('Log in');
    await check('login');
    await logInWithForm();
    await heading('Playground');

    await page.getByRole('button', { name: 'Log out' }).click();
    await heading('Log in');
    // Not a "next" back to the login page itself.
    expect(new URL(page.url()).searchParams.get('next')).toBeNull();
    await logInWithForm();
    await heading('Playground');
    expect(new URL(page.url()).pathname).toBe('/app/playground');
    await page.getByRole('button', { name: 'Log out' }).isVisible();

    // A fresh load of the login page with a live session cookie: straight on.
    await page.goto(`${stack.api.url}/app/login`);
    await heading('Playground');

    // The page you came for wins, when it is a dashboard page (and never the login page).
    await page.getByRole('button', { name: 'Log out' }).click();
    await heading('Log in');
    await page.goto(`${stack.api.url}/app/history`);
    await heading('Log in');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/app/history');
    await logInWithForm();
    await heading('History');
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.goto(`${stack.api.url}/app/login?next=${encodeURIComponent('/app/login')}`);
    await logInWithForm();
    await heading('Playground');
  });

  it('keeps a pasted text over the limit whole, turns the counter red and says why Synthesize waits', async () => {
    const plans = await call(stack.api.url, 'GET', '/api/v1/subscription-plans/', undefined, account.access);
    const limit = (plans.body.results as { id: string; max_text_length: number }[]).find(
      (plan) => plan.id === 'free',
    )!.max_text_length;
    const length = 6000;
    expect(limit).toBeLessThan(length);
    const text = 'The quick brown fox jumps over the lazy dog again and again. '.repeat(200).slice(0, length - 1) + '.';

    await page.goto(`${stack.api.url}/app/playground`);
    await heading('Playground');
    const box = page.getByLabel('Text');
    await box.focus();
    await page.evaluate((value) => navigator.clipboard.writeText(value), text);
    await page.keyboard.press('ControlOrMeta+V');
    expect((await box.inputValue()).length).toBe(length);

    const fmt = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
    const counter = page.getByText(`${fmt(length)} characters of ${fmt(limit)}`);
    await counter.waitFor();
    const colour = await counter.evaluate((element) => getComputedStyle(element).color);
    expect(colour).toBe('rgb(180, 35, 24)');
    const submit = page.getByRole('button', { name: 'Synthesize' });
    expect(await submit.isDisabled()).toBe(true);
    const reason = page.getByText(`Remove ${fmt(length - limit)} characters to synthesize.`);
    expect(await reason.isVisible()).toBe(true);
    // The reason is the button's description, so a screen reader hears it on the button.
    const describedBy = await submit.getAttribute('aria-describedby');
    expect(await reason.getAttribute('id')).toBe(describedBy);
    await check('playground-over-limit');

    // Back within the limit: the red and the reason go, Synthesize is offered again.
    await box.fill(text.slice(0, limit));
    await page.getByText(`${fmt(limit)} characters of ${fmt(limit)}`).waitFor();
    expect(await submit.isDisabled()).toBe(false);
    expect(await reason.count()).toBe(0);
  });

  /** A long text (about `length` characters) of whole sentences. */
  const longText = (length: number) =>
    'The keeper of the lighthouse wrote down the weather every evening, the wind, the rain and the ships he saw pass. '
      .repeat(Math.ceil(length / 110))
      .slice(0, length)
      .replace(/\s*\S*$/, '.');
  const balanceOf = async () =>
    (await call(stack.api.url, 'GET', '/api/v1/auth/profile/', undefined, account.access)).body as {
      credit_balance: number;
      credits_reserved: number;
    };
  /** Starts a synthesis of `text` with en-us-joe in the playground: its Result region. */
  const synthesize = async (text: string) => {
    await page.goto(`${stack.api.url}/app/playground?voice=en-us-joe`);
    await heading('Playground');
    await page.waitForFunction(
      () => document.querySelector('select option[value="en-us-joe"]')?.parentElement.value === 'en-us-joe',
    );
    await page.getByLabel('Text').fill(text);
    await page.getByRole('button', { name: 'Synthesize' }).click();
    return page.getByRole('region', { name: 'Result' });
  };

  it('shows percent and the time left while a long text renders, then brings the result into view and focuses the player', async () => {
    const result = await synthesize(longText(900));
    // Percent and time left, as the CLI shows them, while it runs.
    await result.getByText(/^Rendering: \d+ % · about \d+ (s|min)( \d+ s)? left$/).waitFor({ timeout: 240_000 });
    expect(await result.getByRole('button', { name: 'Cancel' }).isVisible()).toBe(true);
    await check('playground-rendering');
    const audio = result.getByTestId('audio');
    await audio.waitFor({ timeout: 240_000 });
    await page.waitForFunction(() => document.activeElement?.dataset?.testid === 'audio');
    const box = (await audio.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
    await check('playground-result');
  }, 300_000);

  it('cancels a running synthesis: nothing is charged', async () => {
    const before = await balanceOf();
    const result = await synthesize(longText(4500));
    await result.getByRole('button', { name: 'Cancel' }).click();
    // The answer comes once the cancel has landed in the workflow, which takes a while on a busy machine.
    await result
      .getByText('Canceled. Nothing was charged: the reserved credits are available again.')
      .waitFor({ timeout: 120_000 });
    expect(await result.getByRole('progressbar').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Synthesize' }).isDisabled()).toBe(false);
    const after = await balanceOf();
    expect(after).toEqual({ ...after, credit_balance: before.credit_balance, credits_reserved: 0 });
    await check('playground-canceled');
  }, 240_000);

  it('history: long texts clamped with an expander, only the voices used in the filter, Play plays at once, Reuse settings fills the playground', async () => {
    await page.goto(`${stack.api.url}/app/history`);
    await heading('History');
    // The canceled synthesis was deleted: the history holds the long one rendered with en-us-joe.
    const used = await call(stack.api.url, 'GET', '/api/v1/voices/?used=true', undefined, account.access);
    expect(used.body.results.map((voice: { id: string }) => voice.id)).toEqual(['en-us-joe']);
    const filter = page.getByRole('form', { name: 'Filters' }).getByLabel('Voice');
    await filter.locator('option', { hasText: used.body.results[0].name }).waitFor({ state: 'attached' });
    expect(await filter.locator('option').allTextContents()).toEqual(['All voices', used.body.results[0].name]);

    const entry = page.getByRole('listitem').filter({ hasText: 'The keeper of the lighthouse' });
    const text = entry.locator('.entry-text');
    const clamped = await text.evaluate((element) => ({ shown: element.clientHeight, whole: element.scrollHeight }));
    expect(clamped.shown).toBeLessThan(clamped.whole);
    const expand = entry.getByRole('button', { name: /^Show the whole text/ });
    expect(await expand.getAttribute('aria-expanded')).toBe('false');
    await expand.click();
    const less = entry.getByRole('button', { name: 'Show less' });
    expect(await less.getAttribute('aria-expanded')).toBe('true');
    const whole = await text.evaluate((element) => ({ shown: element.clientHeight, whole: element.scrollHeight }));
    expect(whole.shown).toBe(whole.whole);
    expect(page.url()).toContain('/app/history');
    await check('history-expanded');

    // One click plays.
    await entry.getByRole('button', { name: 'Play', exact: true }).click();
    const audio = entry.getByTestId('audio');
    await audio.waitFor();
    await page.waitForFunction(() => {
      const element = document.querySelector('[data-testid="audio"]');
      return element && !element.paused && element.currentTime > 0;
    });
    await audio.evaluate((element: { pause(): void }) => element.pause());
    await check('history-playing');

    const fullText = await text.textContent();
    await entry.getByRole('link', { name: 'Reuse settings' }).click();
    await heading('Playground');
    await page.waitForFunction((expected) => document.getElementById('text')?.value === expected, fullText);
    await page.waitForFunction(() =>
      [...document.querySelectorAll('select')].some((element: { value: string }) => element.value === 'en-us-joe'),
    );
    expect(await page.getByLabel('Voice', { exact: true }).inputValue()).toBe('en-us-joe');
    expect(await page.getByLabel('Format').inputValue()).toBe('mp3');
  });

  it('logged nothing to the console and threw nothing', () => {
    expect(problems).toEqual([]);
  });
});

declare function getComputedStyle(element: unknown): { color: string };
