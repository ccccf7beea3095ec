import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { NAV } from '../../web/src/nav';
import { createAccount, createVoice, type TestAccount } from '../helpers/factories';
import { type BrowserStack, problemsOf, seriousViolations, startBrowserStack, submitLogin } from './browser';

// Callbacks given to page.evaluate run in the browser; the project compiles without the DOM library.
declare const document: any;
declare function getComputedStyle(element: unknown): any;

/**
 * Every page of the dashboard at a desktop's and a phone's width, in light
 * and dark: nothing wider than the screen, axe-core clean, no console error;
 * and what the pages say after a person acts (key snippets that work, a
 * project error that stands alone, the billing period, word timestamps asked
 * for only where they exist).
 */
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;
const SCHEMES = ['light', 'dark'] as const;
const PUBLIC_PAGES = ['/', '/app/login', '/app/signup', '/app/no-such-page'];
// Every page of the main navigation, as the dashboard lists them.
const PRIVATE_PAGES = NAV;

describe('dashboard: every page at 1280 and 390 px, light and dark', () => {
  let stack: BrowserStack;
  let account: TestAccount;

  beforeAll(async () => {
    stack = await startBrowserStack('dashboard-audit');
    account = await createAccount(stack.deps);
    // A clone with a long name: its row must fit a phone too.
    await createVoice(stack.deps, account, {
      name: 'My narrator voice for the long audiobook',
      similarity: 0.87,
      engine: 'festival',
      quality: 'classic',
    });
  }, 120_000);
  afterAll(() => stack?.close());

  /** A page with every console error, failed request and uncaught error it causes collected in `problems`. */
  async function openContext(size: { width: number; height: number }, colorScheme: 'light' | 'dark' = 'light') {
    const context = await stack.browser.newContext({ viewport: size, colorScheme });
    const page = await context.newPage();
    return { context, page, problems: problemsOf(page) };
  }
  const widthOf = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth as number);
  const waitForHeading = (page: Page) => page.getByRole('heading', { level: 1 }).first().waitFor();

  async function logIn(page: Page) {
    await page.goto(`${stack.api.url}/app/login`);
    await submitLogin(page, account);
    await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
  }

  it('loads every public page anonymously with no console error and no failed request, the docs pages included', async () => {
    for (const size of SIZES) {
      const { context, page, problems } = await openContext(size);
      for (const url of [...PUBLIC_PAGES, ...PRIVATE_PAGES.map(([href]) => href)]) {
        await page.goto(`${stack.api.url}${url}`, { waitUntil: 'networkidle' });
        await waitForHeading(page);
        expect({ url, width: await widthOf(page) }).toEqual({ url, width: size.width });
      }
      // A private page sends an anonymous visitor to the login form, without asking the server about a session it has not got.
      expect(new URL(page.url()).pathname).toBe('/app/login');
      for (const url of ['/api/docs/', '/api/docs/errors/']) {
        await page.goto(`${stack.api.url}${url}`, { waitUntil: 'networkidle' });
      }
      expect(problems).toEqual([]);
      await context.close();
    }
  }, 120_000);

  it('serves the site icon at /favicon.svg and /favicon.ico', async () => {
    for (const name of ['favicon.svg', 'favicon.ico']) {
      const response = await fetch(`${stack.api.url}/${name}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/svg+xml');
      expect(await response.text()).toMatch(/^<svg /);
    }
  });

  it('has no serious axe violation and nothing wider than the screen on any page, in light and dark', async () => {
    for (const colorScheme of SCHEMES) {
      for (const size of SIZES) {
        const { context, page, problems } = await openContext(size, colorScheme);
        const label = `${colorScheme}-${size.width}`;
        for (const url of PUBLIC_PAGES) {
          await page.goto(`${stack.api.url}${url}`, { waitUntil: 'networkidle' });
          await waitForHeading(page);
          expect({ url, label, violations: await seriousViolations(page) }).toEqual({ url, label, violations: [] });
          expect({ url, label, width: await widthOf(page) }).toEqual({ url, label, width: size.width });
        }
        await logIn(page);
        // A key and a project, so the tables and lists have rows.
        await page.goto(`${stack.api.url}/app/keys`);
        await page.getByLabel('Key name').fill(`laptop ${label}`);
        await page.getByRole('button', { name: 'Create key' }).click();
        await page.getByLabel('API key').waitFor();
        expect({ label, violations: await seriousViolations(page) }).toEqual({ label, violations: [] });
        expect({ label, width: await widthOf(page) }).toEqual({ label, width: size.width });
        await page.screenshot({ path: path.join(stack.shots, `keys-created-${label}.png`), fullPage: true });
        // The first screen of it, as docs/screenshots/api-keys.png shows it.
        if (label === 'light-1280') await page.screenshot({ path: path.join(stack.shots, 'api-keys-readme.png') });
        await page.getByRole('button', { name: 'Done' }).click();
        for (const [href, title] of PRIVATE_PAGES) {
          await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: title, exact: true }).click();
          await page.getByRole('heading', { level: 1, name: title }).waitFor();
          await page.waitForLoadState('networkidle');
          expect(new URL(page.url()).pathname).toBe(href);
          expect({ href, label, violations: await seriousViolations(page) }).toEqual({ href, label, violations: [] });
          expect({ href, label, width: await widthOf(page) }).toEqual({ href, label, width: size.width });
          await page.screenshot({
            path: path.join(stack.shots, `${title.toLowerCase().replace(/ /g, '-')}-${label}.png`),
            fullPage: true,
          });
        }
        // The clone's Delete button is on the screen, not beyond its right edge.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Voices', exact: true }).click();
        const remove = page.getByRole('button', { name: 'Delete My narrator voice for the long audiobook' });
        const box = (await remove.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(size.width);
        expect(await remove.textContent()).toBe('Delete');
        expect(problems).toEqual([]);
        await context.close();
      }
    }
  }, 600_000);

  it('uses the dark colours when the system asks for them', async () => {
    const backgrounds: string[] = [];
    for (const colorScheme of SCHEMES) {
      const { context, page } = await openContext(SIZES[0], colorScheme);
      await page.goto(`${stack.api.url}/`);
      await waitForHeading(page);
      backgrounds.push(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor as string));
      await context.close();
    }
    expect(backgrounds).toEqual(['rgb(255, 255, 255)', 'rgb(20, 23, 27)']);
  });

  it('shows ready-to-paste snippets with the new key, and the curl one works as pasted', async () => {
    const { context, page, problems } = await openContext(SIZES[1]);
    await logIn(page);
    expect(
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API docs' }).getAttribute('href'),
    ).toBe('/api/docs/');
    await page.goto(`${stack.api.url}/app/keys`);
    await page.getByLabel('Key name').fill('snippets');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('API key').inputValue();
    const snippet = (name: string) => page.getByLabel(name, { exact: true }).textContent();
    const curl = (await snippet('curl'))!;
    const python = (await snippet('OpenAI SDK (Python)'))!;
    const node = (await snippet('OpenAI SDK (Node.js)'))!;
    const cli = (await snippet('openvox CLI'))!;
    for (const code of [curl, python, node, cli]) {
      expect(code).toContain(key);
      expect(code).toContain(stack.api.url);
    }
    expect(python).toContain(`base_url="${stack.api.url}/v1"`);
    expect(node).toContain(`baseURL: '${stack.api.url}/v1'`);
    expect(cli).toContain(`OPENVOX_API_KEY=${key}`);
    // Pasted into a shell, the curl example writes an MP3.
    const dir = await mkdtemp(path.join(tmpdir(), 'openvox-snippet-'));
    try {
      await promisify(execFile)('bash', ['-c', curl], { cwd: dir, timeout: 120_000 });
      const audio = await readFile(path.join(dir, 'hello.mp3'));
      expect(audio.length).toBeGreaterThan(1000);
      expect(
        audio.subarray(0, 3).toString('latin1') === 'ID3' || (audio[0] === 0xff && (audio[1] & 0xe0) === 0xe0),
      ).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);

  it('on a duplicate project name shows only the error, and names projects in accessible labels, not the visible text', async () => {
    const { context, page, problems } = await openContext(SIZES[1]);
    await logIn(page);
    await page.goto(`${stack.api.url}/app/projects`);
    await page.getByLabel('Project name').fill('Audiobook chapter 1');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('status').getByText('Project “Audiobook chapter 1” created.').waitFor();
    const rename = page.getByRole('button', { name: 'Rename Audiobook chapter 1' });
    expect(await rename.textContent()).toBe('Rename');
    expect(await page.getByRole('button', { name: 'Delete Audiobook chapter 1' }).textContent()).toBe('Delete');

    await page.getByLabel('Project name').fill('Audiobook chapter 1');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByText('created.').count()).toBe(0);
    // The name stays so it can be corrected, and the field says it is the problem.
    expect(await page.getByLabel('Project name').inputValue()).toBe('Audiobook chapter 1');
    expect(await page.getByLabel('Project name').getAttribute('aria-invalid')).toBe('true');
    expect(
      problems.filter(
        (problem) => !/^409 POST \/api\/v1\/projects\/$|^console: Failed to load resource.*409/.test(problem),
      ),
    ).toEqual([]);
    await context.close();
  });

  it('shows the billing period and the next refill as the API gives them, and a chart with axis values', async () => {
    const { context, page, problems } = await openContext(SIZES[0]);
    await logIn(page);
    const profile = (await (
      await fetch(`${stack.api.url}/api/v1/auth/profile/`, { headers: { Authorization: `Bearer ${account.access}` } })
    ).json()) as {
      billing_period: { start: string; end: string };
    };
    await page.goto(`${stack.api.url}/app/usage`);
    const refill = new Date(profile.billing_period.end).toLocaleDateString('en-US', {
      month: 'short',
      day: 'numeric',
      timeZone: 'UTC',
    });
    expect(await page.locator('dt:has-text("Next refill") + dd').textContent()).toBe(refill);
    await page.getByText(/^Billing period: /).waitFor();
    // The credit axis has 0 and two more values; the time axis names days.
    const axis = await page.locator('svg.chart text.axis').allTextContents();
    expect(axis.slice(0, 3)[0]).toBe('0');
    expect(axis.slice(0, 3).every((value) => /^[\d ]+$/.test(value))).toBe(true);
    expect(axis.slice(3).every((value) => /^[A-Z][a-z]{2} \d{1,2}$/.test(value))).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('asks for word timestamps only for a voice that has them: none for eSpeak, and 200 for Festival', async () => {
    const { context, page, problems } = await openContext(SIZES[0]);
    const asked: string[] = [];
    page.on(
      'request',
      (request) => request.url().includes('/timestamps/') && asked.push(new URL(request.url()).pathname),
    );
    for (const voice_id of ['en-us-espeak-m', 'en-us-slt']) {
      const response = await fetch(`${stack.api.url}/api/v1/tts/synthesize/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${account.access}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: `Spoken by ${voice_id}.`, voice_id }),
      });
      const { id } = (await response.json()) as { id: string };
      for (let status = ''; status !== 'completed'; await new Promise((resolve) => setTimeout(resolve, 200))) {
        status = (
          (await (
            await fetch(`${stack.api.url}/api/v1/tts/history/${id}/status/`, {
              headers: { Authorization: `Bearer ${account.access}` },
            })
          ).json()) as { status: string }
        ).status;
        expect(status).not.toBe('failed');
      }
    }
    await logIn(page);
    await page.goto(`${stack.api.url}/app/history`);
    for (const voice_id of ['en-us-espeak-m', 'en-us-slt']) {
      const entry = page.locator('li.entry', { hasText: `Spoken by ${voice_id}.` });
      await entry.getByRole('button', { name: /^Play/ }).first().click();
      await entry.getByTestId('audio').waitFor();
    }
    await page.locator('.transcript .word').first().waitFor();
    await page.waitForLoadState('networkidle');
    expect(asked).toHaveLength(1);
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);

  it('manages a pronunciation dictionary: create, add and remove words, export and import PLS, delete', async () => {
    const { context, page, problems } = await openContext(SIZES[1], 'dark');
    context.setDefaultTimeout(30_000);
    await logIn(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dictionaries' }).click();
    await page.getByLabel('Dictionary name').fill('Product names');
    await page.getByRole('button', { name: 'Create dictionary' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dictionary: Product names' }).waitFor();
    const id = new URL(page.url()).searchParams.get('id');
    const entriesOf = async () =>
      (
        (await (
          await fetch(`${stack.api.url}/api/v1/pronunciation-dictionaries/${id}/entries/`, {
            headers: { Authorization: `Bearer ${account.access}` },
          })
        ).json()) as {
          results: { graphemes: string[]; alias: string | null }[];
        }
      ).results.map((entry) => `${entry.graphemes.join(',')}=${entry.alias}`);

    for (const [written, said] of [
      ['OpenVox', 'open voice box'],
      ['SQL', 'sequel'],
    ]) {
      await page.getByLabel('Written form').fill(written);
      await page.getByLabel('Say it as').fill(said);
      await page.getByRole('button', { name: 'Add word' }).click();
      await page.getByRole('status').getByText(`“${written}” added.`).waitFor();
      await page.getByRole('row', { name: new RegExp(written) }).waitFor();
    }
    expect(await entriesOf()).toEqual(['OpenVox=open voice box', 'SQL=sequel']);
    expect({ violations: await seriousViolations(page) }).toEqual({ violations: [] });
    expect(await widthOf(page)).toBe(SIZES[1].width);
    await page.screenshot({ path: path.join(stack.shots, 'dictionary-dark-390.png'), fullPage: true });

    await page.getByRole('button', { name: 'Remove SQL' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove word' }).click();
    await page.getByRole('row', { name: /SQL/ }).waitFor({ state: 'detached' });
    expect(await entriesOf()).toEqual(['OpenVox=open voice box']);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export PLS' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Product-names.pls');
    const exported = await readFile((await download.path())!, 'utf8');
    expect(exported).toContain('<grapheme>OpenVox</grapheme>');
    expect(exported).toContain('<alias>open voice box</alias>');

    const lexicon = (grapheme: string, alias: string) =>
      Buffer.from(
        `<?xml version="1.0" encoding="UTF-8"?>\n<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">\n  <lexeme><grapheme>${grapheme}</grapheme><alias>${alias}</alias></lexeme>\n</lexicon>\n`,
      );
    await page
      .getByLabel('PLS file', { exact: true })
      .setInputFiles({ name: 'tts.pls', mimeType: 'application/pls+xml', buffer: lexicon('TTS', 'text to speech') });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('status').getByText('Imported tts.pls: the dictionary has 2 entries.').waitFor();
    await page.getByRole('row', { name: /TTS/ }).waitFor();
    expect(await entriesOf()).toEqual(['OpenVox=open voice box', 'TTS=text to speech']);
    // Replacing with the exported file brings back what was exported.
    await page
      .getByLabel('PLS file', { exact: true })
      .setInputFiles({ name: 'exported.pls', mimeType: 'application/pls+xml', buffer: Buffer.from(exported) });
    await page.getByLabel('Entries already here').selectOption('replace');
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('status').getByText('Imported exported.pls: the dictionary has 1 entry.').waitFor();
    expect(await entriesOf()).toEqual(['OpenVox=open voice box']);
    // A file that is not PLS is refused with the reason, and changes nothing.
    await page
      .getByLabel('PLS file', { exact: true })
      .setInputFiles({ name: 'notes.pls', mimeType: 'application/pls+xml', buffer: Buffer.from('not a lexicon') });
    await page.getByRole('button', { name: 'Import' }).click();
    await page
      .getByRole('alert')
      .getByText(/^PLS file: Not a valid PLS document/)
      .waitFor();
    expect(await entriesOf()).toEqual(['OpenVox=open voice box']);

    await page.getByRole('link', { name: 'All dictionaries' }).click();
    await page.getByRole('button', { name: 'Delete Product names' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete dictionary' }).click();
    await page.getByText('Dictionary “Product names” deleted.').waitFor();
    expect(
      (
        await fetch(`${stack.api.url}/api/v1/pronunciation-dictionaries/${id}/`, {
          headers: { Authorization: `Bearer ${account.access}` },
        })
      ).status,
    ).toBe(404);
    expect(
      problems.filter(
        (problem) =>
          !/^400 POST \/api\/v1\/pronunciation-dictionaries\/[^/]+\/import\/$|^console: Failed to load resource.*400/.test(
            problem,
          ),
      ),
    ).toEqual([]);
    await context.close();
  }, 180_000);
});
