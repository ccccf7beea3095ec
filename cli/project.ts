import { type Command, Option } from 'commander';
import { createWriteStream } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ApiError, clientSettings, OpenVoxClient } from './client';
import { createProgress, formatDuration, printable, progressBar } from './output';
import type {
  ChapterJson,
  ChapterPageJson,
  ContentJson,
  ProfileJson,
  ProjectJson,
  ProjectPageJson,
  SnapshotJson,
} from './wire';

/**
 * Studio from the command line: `openvox project import|convert|snapshots|
 * download|cancel|list|show` and `openvox book` (the whole trip: import into
 * a new project, convert, wait, download). Project names, chapter titles and
 * the server's messages are outside text: every one printed goes through
 * `printable`.
 */

export interface StudioIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  tty: boolean;
  /** Calls `handler` on Ctrl-C (SIGINT) until the returned function is called; absent: Ctrl-C is not caught. */
  onInterrupt?: (handler: () => void) => () => void;
}

type Print = (command: Command, value: unknown, text: () => string) => void;

/** Ctrl-C while waiting for a conversion: the conversion goes on; the message says how to follow or cancel it. */
export class WaitInterrupted extends Error {
  readonly exitCode = 130;
}

export const BOOK_FORMATS = ['m4b', 'mp3', 'zip'] as const;
type BookFormat = (typeof BOOK_FORMATS)[number];

/** One finished chapter of a snapshot's index (API: the snapshot's `chapters`). */
interface SnapshotChapter {
  chapter_id: string;
  title: string;
  index: number;
  start_ms?: number | null;
  duration_ms?: number | null;
}

const ENDED = new Set(['completed', 'failed', 'canceled']);
const BASE = '/api/v1/projects';
const count = (value: number) => value.toLocaleString('en-US');
const chaptersCount = (n: number) => `${n} chapter${n === 1 ? '' : 's'}`;
/** A project's name from its document's file name. */
const nameOf = (file: string) =>
  path
    .basename(file)
    .replace(/\.[^.]*$/, '')
    .trim() || 'Untitled';
const snapshotChapters = (snapshot: SnapshotJson) => snapshot.chapters as unknown as SnapshotChapter[];
/** Outside text cut to `width` characters (after escaping), padded to it. */
const column = (text: string, width: number) => {
  const safe = printable(text);
  return (safe.length > width ? `${safe.slice(0, width - 1)}…` : safe).padEnd(width);
};

/** The book format `-o` asks for by its extension (none: m4b); another extension is a usage error (exit 2). */
function bookFormatOf(output: string | undefined, given: BookFormat | undefined, command: Command): BookFormat {
  if (given) return given;
  const extension = output ? path.extname(output).slice(1).toLowerCase() : '';
  if (!extension) return 'm4b';
  if ((BOOK_FORMATS as readonly string[]).includes(extension)) return extension as BookFormat;
  return command.error(
    `error: cannot tell a book format from .${extension}: name the file .m4b, .mp3 or .zip, or give --format`,
    { exitCode: 2 },
  );
}

/** Every item of a paginated list (pages of 100). */
async function allPages<T>(api: OpenVoxClient, apiPath: string): Promise<T[]> {
  const items: T[] = [];
  const join = apiPath.includes('?') ? '&' : '?';
  for (let page = 1; ; page++) {
    const answer = await api.json<{ next: string | null; results: T[] }>(
      'GET',
      `${apiPath}${join}page_size=100&page=${page}`,
    );
    items.push(...answer.results);
    if (!answer.next || answer.results.length === 0) return items;
  }
}

const chaptersOf = (api: OpenVoxClient, projectId: string) =>
  allPages<ChapterPageJson['results'][number]>(api, `${BASE}/${projectId}/chapters/`);

/** Writes a snapshot's book to `output` (through `<output>.part`, renamed when whole); returns its size. */
async function downloadBook(
  api: OpenVoxClient,
  projectId: string,
  snapshotId: string,
  format: BookFormat,
  output: string,
): Promise<number> {
  const response = await api.request('GET', `${BASE}/${projectId}/snapshots/${snapshotId}/audio/?format=${format}`);
  if (!response.body) throw new Error(`the server sent no ${format} for snapshot ${snapshotId}`);
  const partial = `${output}.part`;
  const file = createWriteStream(partial);
  let bytes = 0;
  try {
    const body = Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>);
    body.on('data', (chunk: Buffer) => (bytes += chunk.length));
    await pipeline(body, file);
    await rename(partial, output);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return bytes;
}

/**
 * Reads a snapshot's Server-Sent Events (`status` events, each the snapshot)
 * until the stream ends; `heard` on every chunk (keep-alives too). Resolves
 * true if the stream said the conversion ended, false if it stopped before.
 */
async function followEvents(
  api: OpenVoxClient,
  apiPath: string,
  signal: AbortSignal,
  onStatus: (snapshot: SnapshotJson) => void,
  heard: () => void,
): Promise<boolean> {
  const response = await api.request('GET', apiPath, { headers: { Accept: 'text/event-stream' }, signal });
  if (!/^text\/event-stream/i.test(response.headers.get('content-type') ?? '') || !response.body) return false;
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    heard();
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const lines = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const event =
        lines
          .find((line) => line.startsWith('event:'))
          ?.slice(6)
          .trim() ?? 'message';
      const data = lines
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (event === 'error') return false;
      if (event !== 'status' || !data) continue;
      const snapshot = JSON.parse(data) as SnapshotJson;
      onStatus(snapshot);
      if (ENDED.has(snapshot.status)) return true;
    }
  }
  return false;
}

/** Several lines redrawn in place on a terminal (stderr): the cursor goes back up over the last drawing. */
function createBoard(io: StudioIo) {
  let drawn = 0;
  return {
    draw(lines: string[]) {
      const up = drawn > 0 ? `\x1b[${drawn}F` : '';
      // A line longer than the terminal would wrap and throw off the count: cut to 79 columns.
      const cut = (line: string) => (line.length > 79 ? `${line.slice(0, 78)}…` : line);
      io.err(`${up}${lines.map((line) => `${cut(line)}\x1b[K\n`).join('')}\x1b[J`);
      drawn = lines.length;
    },
  };
}

/** Polls in a row that may fail (the API restarting, the network) before waiting gives up. */
const MAX_POLL_FAILURES = 60;

/** Chapter lines on a terminal at most: the rest are summed up in one line. */
const MAX_BARS = 10;

interface WatchOptions {
  projectId: string;
  snapshot: SnapshotJson;
  /** The chapters this conversion converts, in order. */
  chapters: ChapterJson[];
  /** Characters the conversion should render (its chapters' credits needed when it started). */
  toRender: number;
  quiet: boolean;
}

/**
 * Waits for a conversion to end: follows its events (SSE), polling the
 * snapshot when the stream is not there or falls silent. Shows a bar per
 * chapter on a terminal (their progress from the chapter list), plain lines
 * elsewhere (each chapter as it finishes, the whole every LOG_INTERVAL_MS at
 * most), with an ETA from the characters rendered per second so far.
 * Ctrl-C stops waiting (WaitInterrupted); the conversion goes on.
 */
async function watchConversion(api: OpenVoxClient, io: StudioIo, options: WatchOptions): Promise<SnapshotJson> {
  const { projectId, chapters, toRender, quiet } = options;
  const snapshotPath = `${BASE}/${projectId}/snapshots/${options.snapshot.id}/`;
  let latest = options.snapshot;
  const started = Date.now();
  const abort = new AbortController();
  let wake: (() => void) | undefined;
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  let interrupted = false;
  const stopListening = io.onInterrupt?.(() => {
    interrupted = true;
    abort.abort();
    wake?.();
  });

  // Server-Sent Events while they flow; polling fills in when they do not.
  let streaming = true;
  let heardAt = Date.now();
  const stream = followEvents(
    api,
    `${snapshotPath}events/`,
    abort.signal,
    (snapshot) => {
      latest = snapshot;
      if (ENDED.has(snapshot.status)) wake?.();
    },
    () => (heardAt = Date.now()),
  )
    .catch(() => false)
    .finally(() => (streaming = false));

  const ids = new Set(chapters.map((chapter) => chapter.id));
  const progressOf = new Map(chapters.map((chapter) => [chapter.id, chapter.progress]));
  const reported = new Set<string>();
  const board = createBoard(io);
  const overall = createProgress(io, { quiet: quiet || io.tty });

  const summary = () => {
    const rendered = latest.characters_rendered;
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? rendered / seconds : 0;
    const left = Math.max(0, toRender - rendered);
    const eta = ENDED.has(latest.status)
      ? ''
      : rate > 0 && left > 0
        ? `, ETA ${formatDuration(left / rate)}`
        : left > 0
          ? ', ETA ?'
          : '';
    if (toRender === 0) return `${latest.status} ${progressBar(latest.progress, 16)}  nothing to render: all reused`;
    const speed = rate > 0 ? `, ${count(Math.round(rate))} chars/s` : '';
    return `${latest.status} ${progressBar(latest.progress, 16)}  ${count(rendered)}/${count(toRender)} chars${speed}${eta}`;
  };
  const drawBars = () => {
    const finished = new Set(snapshotChapters(latest).map((chapter) => chapter.chapter_id));
    const shareOf = (chapter: ChapterJson) => (finished.has(chapter.id) ? 1 : (progressOf.get(chapter.id) ?? 0));
    const line = (chapter: ChapterJson) =>
      `${String(chapter.index).padStart(4)} ${column(chapter.title, 32)} ${progressBar(shareOf(chapter), 20)}`;
    let shown = chapters;
    const lines: string[] = [];
    if (chapters.length > MAX_BARS) {
      const running = chapters.filter((chapter) => shareOf(chapter) < 1 && shareOf(chapter) > 0);
      const waiting = chapters.filter((chapter) => shareOf(chapter) === 0);
      shown = [...running, ...waiting].slice(0, MAX_BARS);
      const done = chapters.length - running.length - waiting.length;
      lines.push(`     ${done} of ${chapters.length} chapters done, ${running.length} converting`);
    }
    board.draw([...lines, ...shown.map(line), summary()]);
  };
  const reportFinished = () => {
    for (const chapter of snapshotChapters(latest)) {
      if (reported.has(chapter.chapter_id) || !ids.has(chapter.chapter_id)) continue;
      reported.add(chapter.chapter_id);
      io.err(
        `chapter ${reported.size}/${chapters.length} converted: ${chapter.index} ${printable(String(chapter.title))}${typeof chapter.duration_ms === 'number' ? ` (${formatDuration(chapter.duration_ms / 1000)})` : ''}\n`,
      );
    }
  };

  let lastChapterPoll = 0;
  let failures = 0;
  try {
    for (;;) {
      if (interrupted) break;
      const silent = Date.now() - heardAt > 20_000;
      try {
        if (!streaming || silent) latest = await api.json<SnapshotJson>('GET', snapshotPath);
        if (!quiet && io.tty && !ENDED.has(latest.status) && Date.now() - lastChapterPoll >= 2000) {
          lastChapterPoll = Date.now();
          for (const chapter of await chaptersOf(api, projectId)) progressOf.set(chapter.id, chapter.progress);
        }
        failures = 0;
      } catch (error) {
        // A restart of the API or a lost connection is waited out for a while; a refusal is not.
        const lasting = error instanceof ApiError && error.status < 500 && error.status !== 429;
        if (lasting || ++failures > MAX_POLL_FAILURES) throw error;
      }
      if (!quiet) {
        if (io.tty) drawBars();
        else {
          reportFinished();
          overall.update(summary);
        }
      }
      if (ENDED.has(latest.status)) break;
      await nap(1000);
    }
  } finally {
    stopListening?.();
    abort.abort();
    await stream;
  }
  if (interrupted) {
    if (!quiet && !io.tty) overall.end();
    throw new WaitInterrupted(
      `stopped waiting; conversion ${latest.id} goes on (${latest.status}, ${Math.round(latest.progress * 100)}%). Follow it: openvox project snapshots ${projectId}; once completed, download it: openvox project download ${projectId} ${latest.id} -o book.m4b; cancel it: openvox project cancel ${projectId} ${latest.id}`,
    );
  }
  if (!quiet && !io.tty) {
    reportFinished();
    overall.end(summary());
  }
  return latest;
}

/** A failed or canceled conversion as the command's error. */
function conversionError(snapshot: SnapshotJson): ApiError {
  const why = snapshot.error ? `: ${printable(snapshot.error.message)} (${printable(snapshot.error.code)})` : '';
  return new ApiError(0, snapshot.error?.code ?? snapshot.status, `conversion ${snapshot.id} ${snapshot.status}${why}`);
}

interface ImportOptions {
  /** Into this project. */
  project?: string;
  /** Into the project of this name, created when there is none. */
  name?: string;
  /** Into a new project of this name (` (2)`… when taken). */
  newName?: string;
  voice?: string;
  append?: boolean;
}

interface Imported {
  content: ContentJson;
  created: boolean;
  /** The default voice set by this import, and whether it is the account's default (no --voice). */
  voice: { id: string; accountDefault: boolean } | null;
}

/** The project of this name (trimmed), if the account has one. */
async function projectNamed(api: OpenVoxClient, name: string): Promise<ProjectJson | undefined> {
  const wanted = name.trim().normalize('NFC');
  return (await allPages<ProjectPageJson['results'][number]>(api, `${BASE}/`)).find(
    (project) => project.name === wanted,
  );
}

/** A new project named `name`; a name in use gets ` (2)`, ` (3)`… when `numbered`. */
async function createProject(api: OpenVoxClient, name: string, numbered: boolean): Promise<ProjectJson> {
  for (let attempt = 1; ; attempt++) {
    const suffix = attempt === 1 ? '' : ` (${attempt})`;
    try {
      return await api.json<ProjectJson>('POST', `${BASE}/`, {
        json: { name: `${name.slice(0, 100 - suffix.length)}${suffix}` },
      });
    } catch (error) {
      if (!(numbered && error instanceof ApiError && error.code === 'conflict' && attempt < 50)) throw error;
    }
  }
}

/**
 * Imports a document: into `--project`, into the project named `--name`
 * (created when there is none), or into a new project (`newName`, numbered
 * when taken).
 * Sets the default voice (`--voice`; a new project without it gets the
 * account's default voice). A project this import created is deleted again
 * when the import fails, so a refused file leaves nothing behind.
 */
async function importDocument(api: OpenVoxClient, file: string, options: ImportOptions): Promise<Imported> {
  const bytes = await readFile(file);
  let project: ProjectJson | undefined;
  let created = false;
  if (options.project) project = await api.json<ProjectJson>('GET', `${BASE}/${options.project}/`);
  else if (options.name) project = await projectNamed(api, options.name);
  if (!project) {
    project = await createProject(api, options.name ?? options.newName ?? nameOf(file), options.name === undefined);
    created = true;
  }
  try {
    let voice: Imported['voice'] = null;
    if (options.voice) voice = { id: options.voice, accountDefault: false };
    else if (created && !project.default_voice_id) {
      const profile = await api.json<ProfileJson>('GET', '/api/v1/auth/profile/');
      voice = { id: profile.default_voice.id, accountDefault: true };
    }
    if (voice) await api.request('PATCH', `${BASE}/${project.id}/`, { json: { default_voice_id: voice.id } });
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(bytes)]), path.basename(file));
    if (options.append) form.set('mode', 'append');
    const content = await api.json<ContentJson>('POST', `${BASE}/${project.id}/content/`, { body: form });
    return { content, created, voice };
  } catch (error) {
    if (created) await api.request('DELETE', `${BASE}/${project.id}/`).catch(() => undefined);
    throw error;
  }
}

function importText(imported: Imported): string {
  const { content } = imported;
  return [
    `${imported.created ? 'created project' : 'imported into project'} ${content.id} "${printable(content.name)}"${imported.voice ? `, voice ${printable(imported.voice.id)}${imported.voice.accountDefault ? ' (your default voice)' : ''}` : ''}`,
    'index\tcharacters\ttitle',
    ...content.chapters.map((chapter) =>
      [chapter.index, count(chapter.characters), printable(chapter.title)].join('\t'),
    ),
    `${chaptersCount(content.chapters.length)}, ${count(content.characters)} characters; converting needs ${count(content.credits_needed)} credits`,
  ].join('\n');
}

/** `--chapters`: chapter ids, or indexes as `project show` lists them, comma-separated. */
function pickChapters(all: ChapterJson[], wanted: string | undefined): ChapterJson[] {
  if (wanted === undefined) return all;
  return wanted
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const found = /^\d+$/.test(part)
        ? all.find((chapter) => chapter.index === Number(part))
        : all.find((chapter) => chapter.id === part);
      if (!found) throw new Error(`no chapter ${part} in this project (openvox project show lists them)`);
      return found;
    });
}

interface ConvertOptions {
  chapters?: string;
  wait: boolean;
  output?: string;
  format?: BookFormat;
  quiet: boolean;
}

/** Starts a conversion and, when asked, waits for it and downloads the book. */
async function convert(api: OpenVoxClient, io: StudioIo, projectId: string, options: ConvertOptions) {
  const chapters = pickChapters(await chaptersOf(api, projectId), options.chapters);
  const toRender = chapters.reduce((sum, chapter) => sum + chapter.credits_needed, 0);
  let snapshot = await api.json<SnapshotJson>('POST', `${BASE}/${projectId}/convert/`, {
    json: options.chapters === undefined ? {} : { chapter_ids: chapters.map((chapter) => chapter.id) },
  });
  if (!options.quiet)
    io.err(
      `converting project ${projectId}: snapshot ${snapshot.id}, ${chaptersCount(chapters.length)}, ${count(toRender)} characters to render\n`,
    );
  if (!options.wait) return { snapshot, output: null, bytes: null, format: null };
  snapshot = await watchConversion(api, io, { projectId, snapshot, chapters, toRender, quiet: options.quiet });
  if (snapshot.status !== 'completed') throw conversionError(snapshot);
  if (!options.output) return { snapshot, output: null, bytes: null, format: null };
  const format = options.format ?? 'm4b';
  const bytes = await downloadBook(api, projectId, snapshot.id, format, options.output);
  return { snapshot, output: options.output, bytes, format };
}

function convertedText(
  projectId: string,
  result: { snapshot: SnapshotJson; output: string | null; bytes: number | null; format: string | null },
): string {
  const { snapshot } = result;
  if (!ENDED.has(snapshot.status))
    return [
      `snapshot ${snapshot.id} ${snapshot.status}`,
      `follow it: openvox project snapshots ${projectId}`,
      `when completed: openvox project download ${projectId} ${snapshot.id} -o book.m4b`,
    ].join('\n');
  return [
    `snapshot ${snapshot.id} completed: ${chaptersCount(snapshotChapters(snapshot).length)}, ${formatDuration(snapshot.duration_ms === null ? null : snapshot.duration_ms / 1000)} of audio, ${snapshot.credits_charged} credits (${snapshot.blocks_rendered} blocks rendered, ${snapshot.blocks_reused} reused)`,
    ...(result.output
      ? [`wrote ${result.output}: ${result.format?.toUpperCase()}, ${result.bytes} bytes`]
      : [`download it: openvox project download ${projectId} ${snapshot.id} -o book.m4b`]),
  ].join('\n');
}

const formatOption = () =>
  new Option('--format <format>', 'the book’s format, whatever the extension (default: from -o, else m4b)').choices(
    BOOK_FORMATS,
  );

export function addStudioCommands(program: Command, io: StudioIo, print: Print): void {
  const json = (command: Command): boolean => Boolean(command.optsWithGlobals().json);
  const client = () => new OpenVoxClient(clientSettings(io.env));
  const project = program
    .command('project')
    .description(
      'Studio projects, long texts as audiobooks: import, convert, snapshots, download, cancel, list, show (user command)',
    );

  project
    .command('list')
    .description('Your projects, newest first')
    .action(async (_options, command: Command) => {
      const projects = await allPages<ProjectJson>(client(), `${BASE}/`);
      print(command, projects, () =>
        projects.length === 0
          ? 'no projects (openvox project import <file> makes one)'
          : [
              'id\tchapters\tcharacters\tcredits needed\tupdated\tname',
              ...projects.map((one) =>
                [
                  one.id,
                  one.chapter_count,
                  one.characters,
                  one.credits_needed,
                  one.updated_at.slice(0, 16).replace('T', ' '),
                  printable(one.name),
                ].join('\t'),
              ),
            ].join('\n'),
      );
    });

  project
    .command('show')
    .description('A project’s settings and chapters')
    .argument('<id>', 'the project’s id')
    .action(async (id: string, _options, command: Command) => {
      const api = client();
      const one = await api.json<ProjectJson>('GET', `${BASE}/${id}/`);
      const chapters = await chaptersOf(api, id);
      const speakers = Object.entries(one.speakers);
      const metadata = Object.entries(one.metadata).filter(([, value]) => value !== null);
      print(command, { ...one, chapters }, () =>
        [
          `${one.id} "${printable(one.name)}"${one.description ? `: ${printable(one.description)}` : ''}`,
          `voice ${printable(one.default_voice_id ?? 'none (openvox project import --voice, or PATCH default_voice_id)')}; headings ${printable(one.heading_voice_id ?? 'the same')}; dialogue ${printable(one.dialogue_voice_id ?? 'the narrator')}`,
          `language ${printable(one.language)}, speed ${one.speed}, normalization ${one.text_normalization}, preset ${one.output_preset}`,
          ...(speakers.length
            ? [`speakers: ${speakers.map(([name, voice]) => `${printable(name)} ${printable(voice)}`).join(', ')}`]
            : []),
          ...(metadata.length
            ? [`metadata: ${metadata.map(([key, value]) => `${key} ${printable(String(value))}`).join('; ')}`]
            : []),
          `${chaptersCount(one.chapter_count)}, ${count(one.characters)} characters; converting needs ${count(one.credits_needed)} credits`,
          ...(chapters.length
            ? [
                'index\tcharacters\tstatus\tprogress\tid\ttitle',
                ...chapters.map((chapter) =>
                  [
                    `${'  '.repeat(chapter.level)}${chapter.index}`,
                    count(chapter.characters),
                    chapter.status,
                    `${Math.round(chapter.progress * 100)}%`,
                    chapter.id,
                    printable(chapter.title),
                  ].join('\t'),
                ),
              ]
            : []),
        ].join('\n'),
      );
    });

  project
    .command('import')
    .description(
      'Import a document (EPUB, PDF, Markdown, text, HTML; at most 50 MiB) into a project: a new one named after the file unless --project or --name says which; prints its chapters and the credits converting needs',
    )
    .argument('<file>', 'the document')
    .option('--project <id>', 'into this project (its chapters are replaced, unless --append)')
    .option('--name <name>', 'into the project of this name, created when you have none')
    .option('-v, --voice <id>', 'the voice that reads the book (default for a new project: your default voice)')
    .option('--append', 'add the document’s chapters after the project’s (default: replace them)')
    .action(async (file: string, options, command: Command) => {
      if (options.project && options.name) command.error('error: give --project or --name, not both', { exitCode: 2 });
      const imported = await importDocument(client(), file, options);
      print(command, { ...imported.content, created: imported.created }, () => importText(imported));
    });

  project
    .command('convert')
    .description(
      'Convert a project (or some chapters) into an audiobook snapshot; --wait shows each chapter’s progress and an ETA, -o downloads the book',
    )
    .argument('<id>', 'the project’s id')
    .option('--chapters <list>', 'only these chapters: ids, or indexes as project show lists them, comma-separated')
    .option('--wait', 'wait until it ends (Ctrl-C stops waiting; the conversion goes on)')
    .option('-o, --output <path>', 'then download the book here (implies --wait); the format from the extension')
    .addOption(formatOption())
    .action(async (id: string, options, command: Command) => {
      if (options.format && !options.output)
        command.error('error: --format goes with -o (the file to download the book to)', { exitCode: 2 });
      const format = options.output ? bookFormatOf(options.output, options.format, command) : undefined;
      const result = await convert(client(), io, id, {
        chapters: options.chapters,
        wait: Boolean(options.wait || options.output),
        output: options.output,
        format,
        quiet: json(command),
      });
      print(command, result, () => convertedText(id, result));
    });

  project
    .command('snapshots')
    .description('A project’s conversions (snapshots), newest first')
    .argument('<id>', 'the project’s id')
    .action(async (id: string, _options, command: Command) => {
      const snapshots = await allPages<SnapshotJson>(client(), `${BASE}/${id}/snapshots/`);
      print(command, snapshots, () =>
        snapshots.length === 0
          ? `no snapshots (openvox project convert ${id} makes one)`
          : [
              'id\tstatus\tcreated\tduration\tcredits',
              ...snapshots.map((snapshot) =>
                [
                  snapshot.id,
                  snapshot.status === 'converting'
                    ? `converting ${Math.round(snapshot.progress * 100)}%`
                    : snapshot.status,
                  snapshot.created_at.slice(0, 16).replace('T', ' '),
                  snapshot.duration_ms === null ? '-' : formatDuration(snapshot.duration_ms / 1000),
                  snapshot.credits_charged,
                ].join('\t'),
              ),
            ].join('\n'),
      );
    });

  project
    .command('download')
    .description('Download a completed snapshot’s book: M4B with chapters, one MP3, or a zip of MP3s per chapter')
    .argument('<id>', 'the project’s id')
    .argument('<sid>', 'the snapshot’s id (project snapshots lists them)')
    .option('-o, --output <path>', 'where to write it, the format from the extension (default: openvox-<sid>.m4b)')
    .addOption(formatOption())
    .action(async (id: string, sid: string, options, command: Command) => {
      const format = bookFormatOf(options.output, options.format, command);
      const output = options.output ?? `openvox-${sid}.${format}`;
      const bytes = await downloadBook(client(), id, sid, format, output);
      print(
        command,
        { id: sid, output, format, bytes },
        () => `wrote ${path.resolve(output)}: ${format.toUpperCase()}, ${bytes} bytes`,
      );
    });

  project
    .command('cancel')
    .description('Cancel a running conversion: what it did not render is released (not charged)')
    .argument('<id>', 'the project’s id')
    .argument('<sid>', 'the snapshot’s id')
    .action(async (id: string, sid: string, _options, command: Command) => {
      const snapshot = await client().json<SnapshotJson>('POST', `${BASE}/${id}/snapshots/${sid}/cancel/`);
      print(command, snapshot, () =>
        ENDED.has(snapshot.status)
          ? `snapshot ${sid} had already ended (${snapshot.status}): nothing to cancel`
          : `cancel requested for snapshot ${sid}; what was not rendered is released (openvox project snapshots ${id} shows it canceled)`,
      );
    });

  program
    .command('book')
    .description(
      'A document to an audiobook in one go: import into a new project, convert, wait (a bar per chapter), download (user command)',
    )
    .argument('<file>', 'EPUB, PDF, Markdown, text or HTML')
    .option('-o, --output <path>', 'where to write the book, the format from the extension (default: <file>.m4b)')
    .option('-v, --voice <id>', 'the voice that reads it (default: your default voice)')
    .option('--name <name>', 'the project’s name (default: from the file’s name)')
    .addOption(formatOption())
    .action(async (file: string, options, command: Command) => {
      const format = bookFormatOf(options.output, options.format, command);
      const output = options.output ?? `${nameOf(file)}.${format}`;
      const api = client();
      const quiet = json(command);
      // Always a new project: --name names it (numbered, like one named after the file, when taken).
      const imported = await importDocument(api, file, { voice: options.voice, newName: options.name });
      if (!quiet) io.err(`${importText(imported)}\n`);
      const result = await convert(api, io, imported.content.id, { wait: true, output, format, quiet });
      print(command, { project: imported.content, ...result }, () => convertedText(imported.content.id, result));
    });
}
