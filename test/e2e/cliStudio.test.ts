import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Io, runCli } from '../../cli/program';
import { PASSWORD, uniqueEmail } from '../helpers/accounts';
import { eventually } from '../helpers/eventually';
import { call } from '../helpers/http';
import { useStack } from '../helpers/stack';

/**
 * The CLI's Studio commands against the whole stack (API, worker, Temporal,
 * PostgreSQL, MinIO, espeak-ng): `openvox book` turns a Markdown file into an
 * M4B with its chapters, `project` imports, converts, lists, downloads and
 * cancels, and a refused document is the server's error with a failing exit.
 */

const run = promisify(execFile);
const VOICE = 'en-us-espeak-m';

/** Two chapters of a few sentences; `tag` keeps each chapter's text (and so its audio, reused per account) its own. */
const markdown = (tag: string) =>
  `# One\n\nIt was night in ${tag}.\n\nThe rain fell on the roofs.\n\n# Two\n\nMorning came to ${tag}. The birds sang.\n`;

interface SnapshotRow {
  id: string;
  status: string;
  duration_ms: number | null;
  credits_charged: number;
}

describe('openvox CLI: Studio', () => {
  const { deps, api } = useStack({ worker: true });
  let dir: string;
  let env: NodeJS.ProcessEnv;

  /** One command line, in process, against the test API with the account's key. */
  async function openvox(args: string[], io: Partial<Pick<Io, 'tty' | 'onInterrupt'>> = {}) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, {
      out: (text) => (stdout += text),
      err: (text) => (stderr += text),
      env: { ...process.env, OPENVOX_CONFIG: path.join(dir, 'none.json'), ...env },
      tty: false,
      ...io,
    });
    return { code, stdout, stderr, json: () => JSON.parse(stdout) };
  }

  const chapterTitles = async (file: string) => {
    const { stdout } = await run('ffprobe', ['-v', 'error', '-show_chapters', '-of', 'json', file]);
    return (JSON.parse(stdout) as { chapters: { tags?: { title?: string } }[] }).chapters.map(
      (chapter) => chapter.tags?.title,
    );
  };

  const projectNamed = async (name: string) =>
    ((await openvox(['project', 'list', '--json'])).json() as { id: string; name: string }[]).find(
      (project) => project.name === name,
    );

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'openvox-cli-studio-'));
    const email = uniqueEmail('cli-studio');
    env = { TEMPORAL_TASK_QUEUE: deps.config.TEMPORAL_TASK_QUEUE, MAIL_DIR: deps.config.MAIL_DIR };
    expect((await openvox(['user', 'create', email, '--password', PASSWORD, '--verified'])).code).toBe(0);
    // More projects than the free plan's three.
    expect((await openvox(['plan', 'set', email, 'creator'])).code).toBe(0);
    const login = await call(api.url, 'POST', '/api/v1/auth/login/', { email, password: PASSWORD });
    const key = await call(api.url, 'POST', '/api/v1/auth/api-keys/', { name: 'cli studio' }, login.body.access);
    env = { ...env, OPENVOX_URL: api.url, OPENVOX_API_KEY: key.body.key };
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('book turns a Markdown file into an M4B whose chapters are its two titles; project snapshots lists it', async () => {
    const name = `novel-${randomUUID().slice(0, 8)}`;
    const source = path.join(dir, `${name}.md`);
    await writeFile(source, markdown(name));
    const output = path.join(dir, 'out.m4b');

    const book = await openvox(['book', source, '-o', output, '--voice', VOICE]);
    expect(book.stderr).not.toMatch(/^openvox:/m);
    expect(book.code).toBe(0);
    expect(await chapterTitles(output)).toEqual(['One', 'Two']);
    expect(book.stdout).toMatch(/^snapshot [0-9a-f-]{36} completed: 2 chapters, \d+\.\d s of audio, \d+ credits/m);
    expect(book.stdout).toContain(`wrote ${output}: M4B, ${(await stat(output)).size} bytes`);
    // Off a terminal: the import's chapters, each converted chapter on a line of its own, the final state.
    expect(book.stderr).toContain(`created project`);
    expect(book.stderr).toMatch(/^0\t\d+\tOne$/m);
    expect(book.stderr).toMatch(/^1\t\d+\tTwo$/m);
    expect(book.stderr).toMatch(/^chapter 1\/2 converted: [01] (One|Two) \(\d+\.\d s\)$/m);
    expect(book.stderr).toMatch(/^chapter 2\/2 converted: /m);
    expect(book.stderr).toMatch(/^completed \[#{16}\] 100% {2}\d+\/\d+ chars/m);

    // The project is named after the file, reads with the voice given, and lists its snapshot.
    const project = await projectNamed(name);
    expect(project).toBeDefined();
    const shown = (await openvox(['project', 'show', project!.id, '--json'])).json();
    expect(shown).toMatchObject({ default_voice_id: VOICE, chapter_count: 2, credits_needed: 0 });
    expect(shown.chapters.map((chapter: { status: string }) => chapter.status)).toEqual(['converted', 'converted']);

    const listed = await openvox(['project', 'snapshots', project!.id, '--json']);
    expect(listed.code).toBe(0);
    const snapshots = listed.json() as SnapshotRow[];
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]).toMatchObject({ status: 'completed', duration_ms: expect.any(Number) });
    const table = await openvox(['project', 'snapshots', project!.id]);
    expect(table.stdout.split('\n')[0]).toBe('id\tstatus\tcreated\tduration\tcredits');
    expect(table.stdout.split('\n')[1].split('\t')).toEqual([
      snapshots[0].id,
      'completed',
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d$/),
      expect.stringMatching(/\d+\.\d s$/),
      String(snapshots[0].credits_charged),
    ]);

    // The same snapshot again, as a zip of MP3s; an extension that is no book format is a usage error.
    const zip = path.join(dir, 'chapters.zip');
    const downloaded = await openvox(['project', 'download', project!.id, snapshots[0].id, '-o', zip]);
    expect(downloaded.code).toBe(0);
    expect((await readFile(zip)).subarray(0, 2).toString('latin1')).toBe('PK');
    const wrong = await openvox(['project', 'download', project!.id, snapshots[0].id, '-o', path.join(dir, 'x.wav')]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('cannot tell a book format from .wav');
  }, 300_000);

  it('project import of a file the server refuses shows its error, exits 1 and leaves no project behind', async () => {
    const name = `broken-${randomUUID().slice(0, 8)}`;
    const file = path.join(dir, `${name}.epub`);
    await writeFile(file, 'this is not a zip archive at all');
    const refused = await openvox(['project', 'import', file, '--voice', VOICE]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^openvox: .+ \(422 document_unreadable\)\n$/);
    expect(await projectNamed(name)).toBeUndefined();

    const asJson = await openvox(['project', 'import', file, '--json']);
    expect(asJson.code).toBe(1);
    expect(asJson.json().error).toMatchObject({ code: 'document_unreadable', status: 422 });
  });

  it('project import creates a project with your default voice, prints its chapters and the credits needed; convert --wait -o draws a bar per chapter on a terminal', async () => {
    const name = `story-${randomUUID().slice(0, 8)}`;
    const source = path.join(dir, `${name}.md`);
    await writeFile(source, markdown(name));
    const imported = await openvox(['project', 'import', source]);
    expect(imported.code).toBe(0);
    const lines = imported.stdout.trimEnd().split('\n');
    const [, id, quotedName] = /^created project ([0-9a-f-]{36}) "([^"]+)", voice (\S+) \(your default voice\)$/.exec(
      lines[0],
    )!;
    expect(quotedName).toBe(name);
    expect(lines.slice(1, 4)).toEqual([
      'index\tcharacters\ttitle',
      expect.stringMatching(/^0\t\d+\tOne$/),
      expect.stringMatching(/^1\t\d+\tTwo$/),
    ]);
    const characters = lines.slice(2, 4).reduce((sum, line) => sum + Number(line.split('\t')[1]), 0);
    expect(lines[4]).toBe(`2 chapters, ${characters} characters; converting needs ${characters} credits`);

    // Read by espeak here, to be quick: the same import again into this project, with a voice, replaces the chapters.
    const again = await openvox(['project', 'import', source, '--project', id, '--voice', VOICE, '--json']);
    expect(again.json()).toMatchObject({ id, created: false, default_voice_id: VOICE, chapter_count: 2 });

    const output = path.join(dir, `${name}.mp3`);
    const converted = await openvox(['project', 'convert', id, '--chapters', '1', '-o', output], { tty: true });
    expect(converted.stderr).not.toMatch(/^openvox:/m);
    expect(converted.code).toBe(0);
    // Redrawn in place: the chapter's bar line, the whole's line, the cursor moved back up over them.
    expect(converted.stderr).toMatch(/ {3}1 Two +\[#{20}\] 100%\x1b\[K\n/);
    expect(converted.stderr).toContain('\x1b[2F');
    expect(converted.stderr).not.toContain(' One ');
    expect(converted.stdout).toMatch(/^snapshot \S+ completed: 1 chapter, /);
    const audio = await readFile(output);
    expect(audio.subarray(0, 3).toString('latin1') === 'ID3' || audio[0] === 0xff).toBe(true);
  }, 300_000);

  it('Ctrl-C while waiting stops waiting, exits 130 and says how to cancel; project cancel ends the conversion', async () => {
    const name = `long-${randomUUID().slice(0, 8)}`;
    const source = path.join(dir, `${name}.md`);
    await writeFile(source, markdown(name).repeat(4));
    const id = (await openvox(['project', 'import', source, '--voice', VOICE, '--json'])).json().id as string;
    const waited = await openvox(['project', 'convert', id, '--wait'], {
      // Ctrl-C at once, as soon as the wait has begun.
      onInterrupt: (handler) => {
        const timer = setTimeout(handler, 0);
        return () => clearTimeout(timer);
      },
    });
    expect(waited.code).toBe(130);
    const hint = new RegExp(`openvox project cancel ${id} ([0-9a-f-]{36})\\n$`);
    expect(waited.stderr).toMatch(hint);
    const sid = hint.exec(waited.stderr)![1];

    const canceled = await openvox(['project', 'cancel', id, sid]);
    expect(canceled.code).toBe(0);
    let status = '';
    await eventually(
      'the conversion to end',
      async () => {
        status = ((await openvox(['project', 'snapshots', id, '--json'])).json() as SnapshotRow[])[0].status;
        return !['queued', 'converting'].includes(status);
      },
      120_000,
    );
    // Canceled, unless it was so quick it had completed before the cancel arrived.
    expect(['canceled', 'completed']).toContain(status);
  }, 300_000);

  it.each([[['book']], [['project']], [['project', 'import']], [['project', 'convert']], [['project', 'download']]])(
    'openvox %j --help explains itself',
    async (args) => {
      const help = await openvox([...args, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: openvox/);
    },
  );
});
