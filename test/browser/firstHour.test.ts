import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { mailsTo, PASSWORD, uniqueEmail } from '../helpers/accounts';
import { makeSample } from '../helpers/samples';
import { createTestDeps } from '../helpers/stack';
import {
  type BrowserStack,
  checkPage,
  focusIsVisible,
  problemsOf,
  startBrowserStack,
  submitLogin,
  tabTo,
} from './browser';

// Callbacks given to page.evaluate run in the browser; the project compiles without the DOM library, so its few names are declared here.
declare const document: any;
declare const navigator: any;
type HTMLAudioElement = any;

/**
 * A person's first hour with the dashboard, in a real browser: sign up, open
 * the mailed link, log in, make and revoke an API key, synthesize and play,
 * find it in the history, clone a voice and delete it; each page checked
 * with axe-core and photographed.
 */
describe('dashboard: the first hour in a browser', () => {
  let mailDir: string;
  let stack: BrowserStack;
  let context: BrowserContext;
  let page: Page;
  const email = uniqueEmail('browser');
  let problems: string[];
  /** Answers the run provokes on purpose: the wrong password. (No refresh without a session, no timestamps asked where there are none.) */
  const EXPECTED_FAILURES: [number, RegExp][] = [[401, /^\/api\/v1\/auth\/session\/$/]];

  const check = (name: string) => checkPage(page, name, path.join(stack.shots, `${name}.png`));
  /** An access token for checking the API's side of what the page shows. */
  const accessOf = async (address: string) => {
    const response = await fetch(`${stack.api.url}/api/v1/auth/login/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: address, password: PASSWORD }),
    });
    return ((await response.json()) as { access: string }).access;
  };
  const goTo = (linkName: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: linkName }).click();

  beforeAll(async () => {
    mailDir = await mkdtemp(path.join(tmpdir(), 'openvox-browser-mail-'));
    stack = await startBrowserStack('dashboard', createTestDeps({ MAIL_DIR: mailDir }));
    context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.api.url });
    page = await context.newPage();
    // A CSP refusal or an uncaught error anywhere in the run fails the last test.
    problems = problemsOf(page, {
      expected: (status, pathname) =>
        EXPECTED_FAILURES.some(([expected, path]) => status === expected && path.test(pathname)),
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await rm(mailDir, { recursive: true, force: true });
  });

  it('shows the landing page at / to a browser, with a strict Content-Security-Policy', async () => {
    const response = await page.goto(`${stack.api.url}/`);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    await expect(page.getByRole('heading', { level: 1, name: 'OpenVox' }).isVisible()).resolves.toBe(true);
    expect(await page.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe('/api/docs/');
    expect(await page.getByText('/v1/audio/speech').count()).toBeGreaterThan(0);
    await check('landing');
  });

  it('signs up, and the link from the mail confirms and says 35 000 credits were granted', async () => {
    await page.getByRole('link', { name: 'Sign up free' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await check('signup');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your mail' }).waitFor();

    let link: string | undefined;
    for (
      const deadline = Date.now() + 20_000;
      !link && Date.now() < deadline;
      await new Promise((resolve) => setTimeout(resolve, 200))
    ) {
      const [mail] = await mailsTo(mailDir, email);
      link = mail && /https?:\/\/\S+\/api\/v1\/auth\/verify-email\/\?token=[A-Za-z0-9_-]+/.exec(mail.body)?.[0];
    }
    expect(link).toBeDefined();
    // The mail names PUBLIC_URL; this test's server listens on another port.
    const url = new URL(link!);
    await page.goto(`${stack.api.url}${url.pathname}${url.search}`);
    expect(new URL(page.url()).pathname).toBe('/app/verify-email');
    await page.getByText('35 000 credits were granted').waitFor();
    await check('verified');
  });

  it('logs in and lands in the playground', async () => {
    await page.getByRole('link', { name: 'Log in' }).first().click();
    await submitLogin(page, { email, password: 'not the password' });
    await page.getByRole('alert').getByText('Invalid email or password.').waitFor();
    await check('login-error');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
    // The refresh token is in an HttpOnly, SameSite=Strict cookie; scripts cannot read it.
    const [cookie] = (await context.cookies()).filter((candidate) => candidate.name === 'openvox_refresh');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('openvox_refresh');
  });

  it('creates an API key that works, shows it once with a copy button, and revokes it after confirmation', async () => {
    await goTo('API keys');
    await page.getByLabel('Key name').fill('laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('API key').inputValue();
    expect(key).toMatch(/^vk_/);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    const withKey = () =>
      fetch(`${stack.api.url}/api/v1/auth/profile/`, { headers: { Authorization: `Bearer ${key}` } }).then(
        (response) => response.status,
      );
    expect(await withKey()).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('row', { name: /laptop/ });
    await row.waitFor();
    expect(await row.textContent()).toContain(key.slice(0, 8));
    await check('api-keys');

    await row.getByRole('button', { name: 'Revoke laptop' }).click();
    const dialog = page.getByRole('dialog');
    await check('api-keys-revoke-dialog');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Key “laptop” revoked').waitFor();
    await page.getByRole('row', { name: /laptop/ }).waitFor({ state: 'detached' });
    expect(await withKey()).toBe(401);
  });

  it('shows in the playground how a text will be read', async () => {
    await goTo('Playground');
    await page.getByLabel('Text').fill('It costs $5m, said Dr. Smith.');
    await page.getByRole('button', { name: 'Show how it will be read' }).click();
    await page.getByText('It costs five million dollars, said Doctor Smith.').waitFor();
  });

  it('synthesizes in the playground with live progress and plays the audio', async () => {
    await goTo('Playground');
    const text = 'Hello from the OpenVox dashboard.';
    await page.getByLabel('Text').fill(text);
    await page.getByText(`${text.length} characters`).waitFor();
    await page.getByText(`costs ${text.length} credits`).waitFor();
    await page.getByLabel('Voice').selectOption('en-us-slt');
    await page.getByLabel('Format').selectOption('wav');
    // A preview button only where the catalog gives the voice a preview_url.
    const voices = (await (
      await fetch(`${stack.api.url}/api/v1/voices/en-us-slt/`, {
        headers: { Authorization: `Bearer ${await accessOf(email)}` },
      })
    ).json()) as { preview_url?: string | null };
    expect(await page.getByRole('button', { name: /Play a preview/ }).count()).toBe(voices.preview_url ? 1 : 0);
    await check('playground-form');
    await page.getByRole('button', { name: 'Synthesize' }).click();
    const audio = page.getByTestId('audio');
    await audio.waitFor({ timeout: 60_000 });
    expect(await audio.getAttribute('src')).toMatch(/^blob:/);
    await page.getByText(`for ${text.length} credits`).waitFor();
    const played = await audio.evaluate(async (element: HTMLAudioElement) => {
      await element.play();
      await new Promise((resolve) => setTimeout(resolve, 700));
      element.pause();
      return { currentTime: element.currentTime, duration: element.duration };
    });
    expect(played.duration).toBeGreaterThan(0.5);
    expect(played.currentTime).toBeGreaterThan(0);
    await check('playground');
  });

  it('lists the synthesis in the history, plays and downloads it', async () => {
    await goTo('History');
    const entry = page.locator('li.entry', { hasText: 'Hello from the OpenVox dashboard.' });
    await entry.waitFor();
    expect(await entry.textContent()).toContain('completed');
    await entry.getByRole('button', { name: 'Play', exact: true }).click();
    await entry.getByTestId('audio').waitFor();
    // en-us-slt (Festival) has word timing: the spoken word is marked while it plays.
    const id = /openvox-([0-9a-f-]{36})\./.exec(
      (await entry.getByRole('link', { name: 'Download WAV' }).getAttribute('download')) ?? '',
    )?.[1];
    const timestamps = await fetch(`${stack.api.url}/api/v1/tts/history/${id}/timestamps/`, {
      headers: { Authorization: `Bearer ${await accessOf(email)}` },
    });
    expect(timestamps.status).toBe(200);
    await entry.getByTestId('audio').evaluate((element: HTMLAudioElement) => element.play());
    await entry.locator('.transcript .word.current').waitFor();
    await entry.getByTestId('audio').evaluate((element: HTMLAudioElement) => element.pause());
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      entry.getByRole('link', { name: 'Download WAV' }).click(),
    ]);
    const bytes = await readFile((await download.path())!);
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
    await check('history');
  });

  it('manages projects and shows usage', async () => {
    await goTo('Projects');
    await page.getByLabel('Project name').fill('Audiobook');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Audiobook' }).waitFor();
    await page.getByRole('button', { name: 'Rename Audiobook' }).click();
    await page.getByLabel('New name for Audiobook').fill('Audiobook, part one');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Audiobook, part one' }).waitFor();
    await check('projects');

    await goTo('Usage');
    await page.getByText('Credits available').waitFor();
    await page.locator('svg.chart').waitFor();
    const available = await page.locator('dt:has-text("Credits available") + dd').textContent();
    expect(available).toBe(
      String(35000 - 'Hello from the OpenVox dashboard.'.length).replace(/\B(?=(\d{3})+(?!\d))/g, ' '),
    );
    await check('usage');
  });

  it('clones a voice from a WAV with consent, then deletes it after confirmation', async () => {
    await goTo('Voices');
    await page
      .getByLabel('Recording', { exact: true })
      .setInputFiles({ name: 'me.wav', mimeType: 'audio/wav', buffer: await makeSample('wav') });
    await page.getByLabel('Voice name').fill('My test voice');
    await page.getByRole('button', { name: 'Upload and clone' }).click();
    // The consent box is required: the browser stops the form first, so nothing is uploaded.
    expect(await page.getByText('Upload:').count()).toBe(0);
    await page.getByLabel(/authorized me to clone it/).check();
    await check('voices');
    await page.getByRole('button', { name: 'Upload and clone' }).click();
    await page.getByText('Upload: 100 %').waitFor({ timeout: 30_000 });
    await page.getByText('“My test voice” is ready').waitFor({ timeout: 600_000 });
    const row = page.getByRole('row', { name: /My test voice/ });
    expect(await row.textContent()).toContain('ready');
    await check('voices-cloned');
    await row.getByRole('button', { name: 'Delete My test voice' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete voice' }).click();
    await page.getByText('“My test voice” deleted').waitFor();
    await page.getByRole('row', { name: /My test voice/ }).waitFor({ state: 'detached' });
    const mine = await fetch(`${stack.api.url}/api/v1/voices/?category=cloned`, {
      headers: { Authorization: `Bearer ${await accessOf(email)}` },
    });
    expect(((await mine.json()) as { count: number }).count).toBe(0);
  }, 660_000);

  it('runs the API keys page by keyboard alone, with a visible focus', async () => {
    // A fresh load: the session comes back from the cookie.
    await page.goto(`${stack.api.url}/app/keys`);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.locator('body').focus();
    await tabTo(page, /Skip to content/);
    expect(await focusIsVisible(page)).toBe(true);
    await tabTo(page, /Key name/);
    expect(await focusIsVisible(page)).toBe(true);
    await page.keyboard.type('keyboard');
    await page.keyboard.press('Enter');
    await page.getByLabel('API key').waitFor();
    await tabTo(page, /^Copy$/);
    await tabTo(page, /^Done$/);
    await page.keyboard.press('Enter');
    await page.getByRole('row', { name: /keyboard/ }).waitFor();
    await tabTo(page, /Revoke keyboard/);
    expect(await focusIsVisible(page)).toBe(true);
    await page.keyboard.press('Enter');
    // The dialog is modal: the focus is inside it.
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest('dialog[open]')))).toBe(true);
    await tabTo(page, /^Revoke key$/, 5);
    await page.keyboard.press('Enter');
    await page.getByText('Key “keyboard” revoked').waitFor();
    await page.getByRole('row', { name: /keyboard/ }).waitFor({ state: 'detached' });
  });

  it('fits a phone screen and logs out', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [link, name] of [
      ['Playground', 'playground-phone'],
      ['API keys', 'api-keys-phone'],
      ['History', 'history-phone'],
    ]) {
      await goTo(link);
      await page.getByRole('heading', { level: 1, name: link }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await check(name);
    }
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
    // The session is gone: a private page sends the browser to the login page.
    await page.goto(`${stack.api.url}/app/keys`);
    await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
    // Nothing in the whole run tripped the CSP, threw, or failed unexpectedly.
    expect(problems).toEqual([]);
  });
});
