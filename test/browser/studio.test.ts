import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createAccount, type TestAccount } from '../helpers/factories';
import { type BrowserStack, checkPage, problemsOf, startBrowserStack, submitLogin } from './browser';

// Callbacks given to page.evaluate run in the browser; the project compiles without the DOM library.
declare const document: any;
declare const DataTransfer: any;
declare const File: any;

/**
 * The dashboard's Studio page in a real browser, with the whole stack (API,
 * worker, Temporal, PostgreSQL, MinIO): a project is created, a Markdown
 * document imported by the file input, a block edited (the estimate follows),
 * voices chosen, one block played, the book converted, downloaded and played
 * by chapter; axe-core clean and nothing wider than the screen at 1280 and
 * 390 px.
 */
/** Numbers as the dashboard writes them: a space between thousands (3 716). */
const spaced = (value: number) => value.toLocaleString('en-US').replace(/,/g, ' ');
const MARKDOWN = '# One\n\nIt was night.\n\nThe rain fell.\n\n# Two\n\nMorning came.\n';
const CHANGED = 'The rain fell on the old roof all night long.';

describe('dashboard: Studio turns a book into an audiobook', () => {
  let stack: BrowserStack;
  let account: TestAccount;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let projectUrl = '';

  /** The API's view, to check what the page shows against. */
  const apiGet = async <T>(pathname: string): Promise<T> =>
    (await (
      await fetch(`${stack.api.url}/api/v1/${pathname}`, { headers: { Authorization: `Bearer ${account.access}` } })
    ).json()) as T;
  const projectId = () => new URL(projectUrl).searchParams.get('project')!;
  const project = () =>
    apiGet<{ credits_needed: number; characters: number; default_voice_id: string; speakers: object }>(
      `projects/${projectId()}/`,
    );
  const convertButton = () => page.getByRole('button', { name: /^Convert — / });
  const widthOf = (target: Page) => target.evaluate(() => document.documentElement.scrollWidth as number);

  beforeAll(async () => {
    stack = await startBrowserStack('studio');
    account = await createAccount(stack.deps, { credits: 10_000 });
    context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    // The one refusal the run provokes: a file that is not a document.
    problems = problemsOf(page, {
      expected: (status, pathname) => (status === 415 || status === 422) && /\/content\/$/.test(pathname),
    });
  }, 120_000);
  afterAll(() => stack?.close());

  it('creates a project from the Studio page and says why Convert waits while it is empty', async () => {
    await page.goto(`${stack.api.url}/app/login`);
    await submitLogin(page, account);
    await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Studio', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Studio' }).waitFor();
    await page.getByLabel('New project’s name').fill('The night book');
    await page.getByRole('button', { name: 'Create and open' }).click();
    await page.getByRole('heading', { level: 1, name: 'Studio: The night book' }).waitFor();
    projectUrl = page.url();

    expect(await convertButton().textContent()).toBe('Convert — 0 credits');
    expect(await convertButton().isDisabled()).toBe(true);
    expect(await page.getByText('Nothing to convert yet: import a document first.').isVisible()).toBe(true);
  });

  it('imports a Markdown document by the file input and lists its chapters', async () => {
    await page
      .getByLabel('Document', { exact: true })
      .setInputFiles({ name: 'book.md', mimeType: 'text/markdown', buffer: Buffer.from(MARKDOWN) });
    await page
      .getByRole('status')
      .getByText(/^Imported book\.md: the project has 2 chapters, /)
      .waitFor();
    const { characters } = await project();
    expect(await page.getByRole('status').textContent()).toBe(
      `Imported book.md: the project has 2 chapters, ${spaced(characters)} characters.`,
    );
    for (const title of ['One', 'Two']) {
      const row = page.getByRole('row', { name: new RegExp(`^\\d\\. ${title}`) });
      await row.waitFor();
      expect(await row.getByText('not converted').isVisible()).toBe(true);
    }
    // No voice yet: Convert names the cost and why it waits.
    expect(await convertButton().textContent()).toBe(`Convert — ${spaced(characters)} credits`);
    expect(await convertButton().isDisabled()).toBe(true);
    expect(await page.getByText(/Choose the narrator’s voice first/).isVisible()).toBe(true);
  });

  it('refuses a file it cannot read, in plain words, and changes nothing', async () => {
    const before = await project();
    await page
      .getByLabel('Document', { exact: true })
      .setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: Buffer.from('\x89PNG\r\n\x1a\nnot a book') });
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect((await alert.textContent())!.length).toBeGreaterThan(10);
    expect(await alert.textContent()).not.toMatch(/\{|"code"/);
    expect(await project()).toEqual(before);
  });

  it('sets the narrator, a speaker and the dialogue voice with the voices panel', async () => {
    await page.getByLabel('Narrator (the default voice)').selectOption('en-us-espeak-m');
    await page.getByLabel('Speaker’s name').fill('ALICE');
    await page.getByLabel('Their voice').selectOption('en-us-slt');
    await page.getByRole('button', { name: 'Add speaker' }).click();
    expect(await page.getByLabel('Voice of ALICE').inputValue()).toBe('en-us-slt');
    await page.getByRole('button', { name: 'Save voices' }).click();
    await page.getByRole('status').getByText('Voices saved.', { exact: true }).waitFor();
    expect(await project()).toMatchObject({ default_voice_id: 'en-us-espeak-m', speakers: { ALICE: 'en-us-slt' } });
    const { credits_needed } = await project();
    await page.getByRole('button', { name: `Convert — ${spaced(credits_needed)} credits` }).waitFor();
    expect(await convertButton().isDisabled()).toBe(false);
  });

  it('edits a block’s text and voice in the chapter editor, and the estimate follows', async () => {
    const before = await project();
    await page.getByRole('link', { name: 'Edit One' }).click();
    await page.getByRole('heading', { level: 2, name: 'Chapter 1: One' }).waitFor();
    const block = page.getByLabel('Block 3: paragraph');
    expect(await block.inputValue()).toBe('The rain fell.');
    await block.fill(CHANGED);
    await page.getByLabel('Voice of block 3').selectOption('en-us-slt');
    await page.getByRole('button', { name: 'Save block 3' }).click();
    await page.getByRole('status').getByText('Saved.', { exact: true }).waitFor();
    const after = await project();
    expect(after.credits_needed).toBe(before.credits_needed - 'The rain fell.'.length + CHANGED.length);
    await page.getByRole('button', { name: `Convert — ${spaced(after.credits_needed)} credits` }).waitFor();
    const chapters = await apiGet<{ results: { id: string }[] }>(`projects/${projectId()}/chapters/`);
    const blocks = await apiGet<{ results: { text: string; voice_id: string | null }[] }>(
      `projects/${projectId()}/chapters/${chapters.results[0].id}/blocks/`,
    );
    expect(blocks.results[2]).toMatchObject({ text: CHANGED, voice_id: 'en-us-slt' });
    await checkPage(page, 'studio-chapter-1280', path.join(stack.shots, 'studio-chapter-1280.png'));
  });

  it('plays one block, rendering it first', async () => {
    const before = await project();
    await page.getByRole('button', { name: 'Play block 2' }).click();
    await page.getByLabel('Audio of block 2').waitFor({ timeout: 120_000 });
    // Rendered once, its audio is current: the estimate no longer counts it.
    await page
      .getByRole('button', { name: `Convert — ${spaced(before.credits_needed - 'It was night.'.length)} credits` })
      .waitFor();
  }, 180_000);

  it('converts the book, lists the audiobook with its downloads and plays it by chapter', async () => {
    await page.getByRole('button', { name: 'Close the chapter' }).click();
    await convertButton().click();
    await page
      .getByRole('status')
      .getByText(/^The audiobook is ready/)
      .waitFor({ timeout: 240_000 });
    for (const title of ['One', 'Two']) {
      const row = page.getByRole('row', { name: new RegExp(`^\\d\\. ${title}`) });
      await row.getByText('converted', { exact: true }).waitFor();
    }
    // Nothing left to convert: the button says so.
    await page.getByRole('button', { name: 'Convert — 0 credits' }).waitFor();
    expect(await convertButton().isDisabled()).toBe(true);
    expect(await page.getByText(/^Nothing to convert: the latest audiobook/).isVisible()).toBe(true);

    const card = page.locator('li.entry', { hasText: 'Audiobook of' });
    for (const format of ['M4B', 'MP3', 'ZIP'])
      expect(await card.getByRole('button', { name: new RegExp(`^Download ${format} of the audiobook`) }).count()).toBe(
        1,
      );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      card.getByRole('button', { name: /^Download M4B/ }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('The-night-book.m4b');
    const m4b = await readFile((await download.path())!);
    expect(m4b.subarray(4, 8).toString('latin1')).toBe('ftyp');

    await card.getByRole('button', { name: /^Listen/ }).click();
    const chapters = page.getByRole('navigation', { name: 'Chapters of the audiobook' });
    await chapters.getByRole('button', { name: 'Two' }).click();
    await page.getByText('Chapter 2 of 2: Two').waitFor();
    expect(await chapters.getByRole('button', { name: 'Two' }).getAttribute('aria-current')).toBe('true');
    const snapshot = (
      await apiGet<{ results: { chapters: { start_ms: number }[] }[] }>(`projects/${projectId()}/snapshots/`)
    ).results[0];
    const time = await page.getByLabel(/^Audiobook of/).evaluate((audio: { currentTime: number }) => audio.currentTime);
    expect(time).toBeGreaterThanOrEqual(snapshot.chapters[1].start_ms / 1000 - 0.05);
    await checkPage(page, 'studio-converted-1280', path.join(stack.shots, 'studio-converted-1280.png'));
  }, 300_000);

  it('appends a longer document dropped on the drop zone, and cancels its conversion while it runs', async () => {
    const paragraphs = Array.from(
      { length: 60 },
      (_, at) => `Paragraph ${at + 1} of the long chapter, read slowly by the narrator.`,
    );
    await page.getByLabel('Chapters already here').selectOption('append');
    // Dropped on the drop zone this time, as a file dragged from the desktop.
    const dataTransfer = await page.evaluateHandle(
      (text: string) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([text], 'more.md', { type: 'text/markdown' }));
        return transfer;
      },
      `# Three\n\n${paragraphs.join('\n\n')}\n`,
    );
    await page.getByText(/^Drop an EPUB, PDF/).dispatchEvent('drop', { dataTransfer });
    await page
      .getByRole('status')
      .getByText(/^Imported more\.md: the project has 3 chapters, /)
      .waitFor();
    await page.getByRole('row', { name: /^3\. Three/ }).waitFor();
    // The chapters already there stay (append), converted.
    expect(
      await page
        .getByRole('row', { name: /^1\. One/ })
        .getByText('converted', { exact: true })
        .count(),
    ).toBe(1);
    const { credits_needed } = await project();
    await page.getByRole('button', { name: `Convert — ${spaced(credits_needed)} credits` }).click();
    await page.getByRole('progressbar', { name: /^(Queued|Converting): / }).waitFor();
    await page.getByRole('button', { name: 'Cancel the conversion' }).click();
    await page
      .getByRole('status')
      .getByText(/^The conversion was canceled/)
      .waitFor({ timeout: 120_000 });
    const card = page.locator('li.entry').first();
    await card.getByText('canceled', { exact: true }).waitFor();
    expect(await card.getByRole('button', { name: /^Download/ }).count()).toBe(0);
    // What it had not rendered is still to convert, and Convert can start again.
    const after = await project();
    expect(after.credits_needed).toBeGreaterThan(0);
    await page.getByRole('button', { name: `Convert — ${spaced(after.credits_needed)} credits` }).waitFor();
    expect(await convertButton().isDisabled()).toBe(false);
  }, 180_000);

  it('fits a 390 px phone with the chapter open, axe clean in light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await stack.browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme });
      const small = await phone.newPage();
      const phoneProblems = problemsOf(small);
      await small.goto(`${stack.api.url}/app/login`);
      await submitLogin(small, account);
      await small.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
      await small.goto(projectUrl);
      await small.getByRole('heading', { level: 1, name: 'Studio: The night book' }).waitFor();
      await small.getByRole('link', { name: 'Edit One' }).click();
      await small.getByLabel('Block 3: paragraph').waitFor();
      await small.waitForLoadState('networkidle');
      expect({ colorScheme, width: await widthOf(small) }).toEqual({ colorScheme, width: 390 });
      await checkPage(
        small,
        `studio-chapter-${colorScheme}-390`,
        path.join(stack.shots, `studio-chapter-${colorScheme}-390.png`),
      );
      await small.goto(`${stack.api.url}/app/studio`);
      await small.getByRole('link', { name: 'Open The night book in Studio' }).waitFor();
      expect({ colorScheme, width: await widthOf(small) }).toEqual({ colorScheme, width: 390 });
      await checkPage(
        small,
        `studio-list-${colorScheme}-390`,
        path.join(stack.shots, `studio-list-${colorScheme}-390.png`),
      );
      expect(phoneProblems).toEqual([]);
      await phone.close();
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
