import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../db/knex';
import { loadConfig } from '../lib/config';
import { createTemporalClient } from '../lib/temporal';
import { version } from '../package.json';
import {
  AdminError,
  type AdminDeps,
  auditText,
  createUser,
  grantCredits,
  listUsers,
  setPlan,
  verifyUser,
} from './admin';
import { recentAdminActions } from '../db/adminActions';
import { OUTPUT_FORMATS } from '../audio/prosody';
import { addAccountCommands } from './account';
import { ApiError, clientSettings, OpenVoxClient } from './client';
import { historyTable, openAiTable, usageText, voicesTable } from './listings';
import { NetworkError } from './network';
import { createProgress, formatDuration, progressLine } from './output';
import { addStudioCommands, WaitInterrupted } from './project';
import { addPiperVoiceCommands } from './voices';
import { chooseVoice, voiceNotes } from './voiceChoice';
import type {
  HistoryEntryJson,
  HistoryPageJson,
  OpenAiVoiceListJson,
  ProfileJson,
  SynthesisStatusJson,
  VoiceJson,
  VoicePageJson,
} from './wire';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** Whether stderr is a terminal: progress redraws in place there, and prints a line every 5 s at most elsewhere. */
  tty: boolean;
  /** Asks on the terminal (`secret`: without echo); absent when stdin is not a terminal. */
  prompt?: (question: string, options: { secret: boolean }) => Promise<string>;
  /** All of standard input (`openvox login --password-stdin`). */
  readStdin?: () => Promise<string>;
  /** Calls the handler on Ctrl-C until the returned function is called (`project convert --wait` stops waiting). */
  onInterrupt?: (handler: () => void) => () => void;
}

const integer = (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('Not a whole number.');
  return Number(value);
};
const number = (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new InvalidArgumentError('Not a number.');
  return parsed;
};
/** The audio format `-o` asks for by its extension: none (or no `-o`) is wav; one that is not a format is a usage error (exit 2). */
function formatOf(output: string | undefined, command: Command): string {
  const extension = output ? path.extname(output).slice(1).toLowerCase() : '';
  if (!extension) return 'wav';
  if ((OUTPUT_FORMATS as readonly string[]).includes(extension)) return extension;
  return command.error(
    `error: cannot tell an audio format from .${extension}: name the file .${OUTPUT_FORMATS.join(', .')}, or give --format`,
    { exitCode: 2 },
  );
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Who runs an admin command, for the audit trail: OPENVOX_OPERATOR (a name your team agrees on), else the OS user at this host. */
function operatorName(env: NodeJS.ProcessEnv): string {
  const named = env.OPENVOX_OPERATOR?.trim();
  if (named) return named.slice(0, 200);
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry (a container's arbitrary uid): the host still says where.
  }
  return `${user}@${os.hostname()}`;
}

/** `openvox`: the operator's admin commands (PostgreSQL and Temporal directly) and the user's commands (the HTTP API). */
function buildProgram(io: Io): Command {
  const program = new Command('openvox')
    .description(
      'OpenVox from the command line: admin commands for the operator (PostgreSQL, Temporal), user commands over the HTTP API',
    )
    .version(version)
    .option('--json', 'print JSON instead of text')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  const json = (command: Command): boolean => Boolean(command.optsWithGlobals().json);
  const print = (command: Command, value: unknown, text: () => string) =>
    io.out(`${json(command) ? JSON.stringify(value, null, 2) : text()}\n`);

  /** Admin commands read DATABASE_URL, TEMPORAL_ADDRESS, … like the service (lib/config.ts). */
  async function withAdmin<T>(run: (deps: AdminDeps) => Promise<T>): Promise<T> {
    const config = loadConfig(io.env);
    const db = createDb(config);
    let temporal: ReturnType<typeof createTemporalClient> | undefined;
    try {
      return await run({
        db,
        config,
        operator: operatorName(io.env),
        temporal: async () => {
          temporal ??= createTemporalClient(config);
          return temporal;
        },
      });
    } finally {
      await temporal?.connection.close().catch(() => undefined);
      await db.destroy();
    }
  }
  const client = () => new OpenVoxClient(clientSettings(io.env));

  // ------------------------------------------------------------ admin
  const user = program.command('user').description('Admin: one account (PostgreSQL directly)');
  user
    .command('create')
    .description(
      'Create an account; with --verified it is verified and credited at once, otherwise the verification mail goes out',
    )
    .argument('<email>')
    .option('--password <password>', 'its password (8-128 characters); a random one is made and printed when omitted')
    .option('--name <name>', 'display name', '')
    .option('--verified', 'verified now, with the free credits')
    .option('--plan <plan>', 'subscription plan id', 'free')
    .action(async (email: string, options, command: Command) => {
      const created = await withAdmin((deps) => createUser(deps, { email, ...options }));
      print(command, created, () =>
        [
          `created ${created.email} (${created.id}), plan ${created.plan}, ${created.email_verified ? `verified, ${created.credit_balance} credits` : 'verification mail sent'}`,
          ...(created.password ? [`password: ${created.password}`] : []),
        ].join('\n'),
      );
    });
  user
    .command('verify')
    .description('Mark an account verified and grant the free credits (once, like the verification link)')
    .argument('<email>')
    .action(async (email: string, _options, command: Command) => {
      const verified = await withAdmin((deps) => verifyUser(deps, email));
      print(
        command,
        verified,
        () =>
          `${verified.email} verified${verified.credits_granted ? `, ${verified.credits_granted} credits granted` : ' (already; nothing granted)'}; balance ${verified.credit_balance}`,
      );
    });

  program
    .command('users')
    .description('Admin: accounts')
    .command('list')
    .description('Accounts, newest first, with this month’s usage')
    .option('--limit <n>', 'at most this many', integer, 100)
    .option('--email <email>', 'only this account')
    .action(async (options, command: Command) => {
      const users = await withAdmin((deps) => listUsers(deps, options));
      print(command, users, () =>
        [
          'email\tplan\tstate\tbalance\treserved\tsyntheses\tfailed\tcredits used\taudio\tclones',
          ...users.map((u) =>
            [
              u.email,
              u.plan,
              u.deleted_at ? 'deleted' : u.email_verified ? 'verified' : 'unverified',
              u.credit_balance,
              u.credits_reserved,
              u.usage.syntheses,
              u.usage.syntheses_failed,
              u.usage.credits_used,
              formatDuration(u.usage.audio_seconds),
              u.usage.cloned_voices,
            ].join('\t'),
          ),
        ].join('\n'),
      );
    });

  program
    .command('credits')
    .description('Admin: credits')
    .command('grant')
    .usage('<email> <credits> --reason <text> [options]')
    .description(
      'Grant credits: one ledger grant row and the balance in one transaction; the same reference applies once',
    )
    .argument('<email>')
    .argument('<credits>', 'how many credits', integer)
    .requiredOption('--reason <text>', 'required: why (kept in the ledger reference)')
    .option('--reference <ref>', 'idempotency reference (default: the reason); repeat a grant with a new one')
    .action(async (email: string, amount: number, options, command: Command) => {
      const granted = await withAdmin((deps) => grantCredits(deps, { email, amount, ...options }));
      print(command, granted, () =>
        granted.applied
          ? `granted ${granted.amount} credits to ${granted.email} (${granted.reference}); balance ${granted.credit_balance}`
          : `already granted under ${granted.reference}: nothing changed; balance ${granted.credit_balance}`,
      );
    });

  program
    .command('plan')
    .description('Admin: plans')
    .command('set')
    .description('Change an account’s subscription plan (its balance stays)')
    .argument('<email>')
    .argument('<plan>', 'plan id, e.g. free, starter, creator, pro')
    .action(async (email: string, plan: string, _options, command: Command) => {
      const changed = await withAdmin((deps) => setPlan(deps, email, plan));
      print(command, changed, () => `${changed.email} is on plan ${changed.plan}`);
    });

  program
    .command('audit')
    .description('Admin: what operators did with these commands, newest first (who, when, which account, what)')
    .option('--limit <n>', 'at most this many (1-1000)', integer, 50)
    .action(async (options, command: Command) => {
      const actions = await withAdmin((deps) =>
        recentAdminActions(deps.db, Math.min(Math.max(options.limit, 1), 1000)),
      );
      print(command, actions, () => auditText(actions));
    });

  // ------------------------------------------------------------- user
  program
    .command('say')
    .description(
      'Synthesize text (an argument or --file) and save the audio (user command: the key of openvox login, or OPENVOX_URL and OPENVOX_API_KEY)',
    )
    .argument('[text]', 'the text; or use --file')
    .option('-f, --file <path>', 'read the text from a file')
    .option(
      '-o, --output <path>',
      'where to write the audio, its format from the extension: .wav, .mp3, .ogg or .flac (default: openvox-<id>.<format> here)',
    )
    .option(
      '-v, --voice <id>',
      'a voice id, or one of OpenAI’s names (alloy, nova, …: the voice each speaks with here); default: your account’s default voice',
    )
    .addOption(
      new Option(
        '--format <format>',
        'the audio format, whatever the output’s extension (default: from the extension, else wav)',
      ).choices(OUTPUT_FORMATS),
    )
    .option('--speed <factor>', '0.5-2.0', number)
    .option('--pitch <semitones>', '-12 to +12', number)
    .option('--emotion <emotion>', 'neutral, happy, sad, angry, calm, excited')
    .option('--project <id>', 'project id')
    .action(async (textArgument: string | undefined, options, command: Command) => {
      if ((textArgument === undefined) === (options.file === undefined))
        command.error('error: give the text as an argument or with --file, not both', { exitCode: 2 });
      const format: string = options.format ?? formatOf(options.output, command);
      const text = textArgument ?? (await readFile(options.file, 'utf8'));
      const api = client();
      const voice = await chooseVoice(api, options.voice);
      if (!json(command)) for (const note of voiceNotes(voice)) io.err(`${note}\n`);
      const voiceId = voice.voice_id;
      const submitted = await api.submit({
        text,
        voice_id: voiceId,
        output_format: format,
        ...(options.speed !== undefined && { speed: options.speed }),
        ...(options.pitch !== undefined && { pitch: options.pitch }),
        ...(options.emotion && { emotion: options.emotion }),
        ...(options.project && { project_id: options.project }),
      });
      const started = Date.now();
      const progress = createProgress(io, { quiet: json(command) });
      const line = (state: { status: string; progress?: number }) =>
        progressLine(state.status, state.progress ?? 0, (Date.now() - started) / 1000);
      let status: SynthesisStatusJson;
      for (;;) {
        status = await api.json<SynthesisStatusJson>('GET', `/api/v1/tts/history/${submitted.id}/status/`);
        if (!['queued', 'processing'].includes(status.status)) break;
        progress.update(() => line(status));
        await sleep(500);
      }
      progress.end(line(status));
      if (status.status !== 'completed')
        throw new ApiError(
          0,
          status.error?.code ?? status.status,
          `synthesis ${submitted.id} ${status.status}${status.error ? `: ${status.error.message} (${status.error.code})` : ''}`,
        );
      const audio = Buffer.from(
        await (await api.request('GET', `/api/v1/tts/history/${submitted.id}/audio/`)).arrayBuffer(),
      );
      const output = options.output ?? `openvox-${submitted.id}.${format}`;
      await writeFile(output, audio);
      const result = {
        id: submitted.id,
        output,
        voice_id: voiceId,
        voice,
        bytes: audio.length,
        duration_seconds: status.duration_seconds,
        credits_charged: status.credits_charged,
        format,
      };
      print(
        command,
        result,
        () =>
          `wrote ${options.output ? output : path.resolve(output)}: ${format.toUpperCase()}, ${formatDuration(result.duration_seconds)} of audio, ${audio.length} bytes (voice ${voiceId}${voice.openai_name ? ` for ${voice.openai_name}` : ''}, ${result.credits_charged} credits)`,
      );
    });

  // `openvox voices [options]` stays the user's list (its default subcommand); the operator's Piper commands sit beside it.
  const voices = program
    .command('voices')
    .description(
      'Voices: the ones you can use (list, the default), and the operator’s Piper voices (available, install, remove)',
    );
  addPiperVoiceCommands(voices, io, print);
  voices
    .command('list', { isDefault: true })
    .description('List the voices you can use (user command)')
    .option('--language <tag>', 'e.g. en or en-GB')
    .option('--category <category>', 'premade or cloned')
    .option('--limit <n>', 'at most this many (1-100)', integer, 100)
    .action(async (options, command: Command) => {
      const query = new URLSearchParams({ page_size: String(options.limit) });
      if (options.language) query.set('language', options.language);
      if (options.category) query.set('category', options.category);
      const page = await client().json<VoicePageJson>('GET', `/api/v1/voices/?${query}`);
      print(command, page.results, () => voicesTable(page.results));
    });
  voices
    .command('openai')
    .description(
      'OpenAI’s voice names (say --voice nova, /v1/audio/speech): the voice each speaks with here, and what the operator installs to make a classic one neural (user command)',
    )
    .action(async (_options, command: Command) => {
      const listed = await client().json<OpenAiVoiceListJson>('GET', '/api/v1/audio/voices/');
      const names = listed.data.filter((voice) => voice.category === 'openai');
      print(command, names, () => openAiTable(names));
    });

  const history = program
    .command('history')
    .description('Your syntheses: list them (the default), download one’s audio again (user command)');
  history
    .command('list', { isDefault: true })
    .description('Your recent syntheses, newest first')
    .option('--limit <n>', 'at most this many (1-100)', integer, 20)
    .option('--status <status>', 'queued, processing, completed, failed or canceled')
    .action(async (options, command: Command) => {
      const query = new URLSearchParams({ page_size: String(options.limit) });
      if (options.status) query.set('status', options.status);
      const page = await client().json<HistoryPageJson>('GET', `/api/v1/tts/history/?${query}`);
      print(command, page.results, () => historyTable(page.results));
    });
  history
    .command('download')
    .description('Download the audio of a completed synthesis again, in the format it was made in')
    .argument('<id>', 'the synthesis id (openvox history lists them)')
    .option('-o, --output <path>', 'where to write it (default: openvox-<id>.<format> here)')
    .action(async (id: string, options, command: Command) => {
      const api = client();
      const entry = await api.json<HistoryEntryJson>('GET', `/api/v1/tts/history/${encodeURIComponent(id)}/`);
      const entryId = entry.id ?? id;
      const format = entry.output_format;
      const extension = options.output ? path.extname(options.output).slice(1).toLowerCase() : '';
      // The service keeps one format per synthesis: a file named for another would lie about its content.
      if ((OUTPUT_FORMATS as readonly string[]).includes(extension) && extension !== format)
        command.error(
          `error: synthesis ${entryId} was made as ${format.toUpperCase()}: name the file .${format} (say --format makes another)`,
          { exitCode: 2 },
        );
      if (entry.status !== 'completed')
        throw new ApiError(
          409,
          'not_ready',
          `synthesis ${entryId} is ${entry.status}: only a completed synthesis has audio${['queued', 'processing'].includes(entry.status) ? ' (try again when it has completed)' : ''}`,
        );
      const audio = Buffer.from(
        await (await api.request('GET', `/api/v1/tts/history/${entryId}/audio/`)).arrayBuffer(),
      );
      const output = options.output ?? `openvox-${entryId}.${format}`;
      await writeFile(output, audio);
      const result = {
        id: entryId,
        output,
        voice_id: entry.voice_id,
        bytes: audio.length,
        duration_seconds: entry.duration_seconds,
        format,
      };
      print(
        command,
        result,
        () =>
          `wrote ${options.output ? output : path.resolve(output)}: ${format.toUpperCase()}, ${formatDuration(entry.duration_seconds)} of audio, ${audio.length} bytes (voice ${entry.voice_id})`,
      );
    });

  program
    .command('usage')
    .description(
      'Your balance, billing period (when credits are topped up), default voice and this calendar month’s usage (user command)',
    )
    .action(async (_options, command: Command) => {
      const profile = await client().json<ProfileJson>('GET', '/api/v1/auth/profile/');
      const summary = {
        email: profile.email,
        plan: profile.subscription_tier,
        credit_balance: profile.credit_balance,
        credits_reserved: profile.credits_reserved,
        billing_period: profile.billing_period,
        default_voice: profile.default_voice,
        usage: profile.usage,
      };
      print(command, summary, () => usageText(profile));
    });

  program
    .command('clone')
    .description('Clone a voice from a recording (user command); waits until it is ready')
    .argument('<sample>', 'WAV, MP3, OGG, FLAC or M4A, 3-300 s, at most 20 MiB')
    .requiredOption('--name <name>', 'the voice’s name')
    .option('--description <text>', 'a description')
    .option('--language <tag>', 'BCP 47 language tag', 'en-US')
    .option('--consent', 'you affirm the speaker authorized cloning (required)')
    .option('--no-wait', 'return once uploaded')
    .action(async (sample: string, options, command: Command) => {
      if (!options.consent) throw new AdminError('--consent is required: the speaker must have authorized cloning');
      const form = new FormData();
      form.set('file', new Blob([await readFile(sample)]), path.basename(sample));
      form.set('name', options.name);
      if (options.description) form.set('description', options.description);
      form.set('language', options.language);
      form.set('consent', 'true');
      const api = client();
      let voice = await api.json<VoiceJson>('POST', '/api/v1/voices/upload/', { body: form });
      const started = Date.now();
      const progress = createProgress(io, { quiet: json(command) || !options.wait });
      const line = () => `cloning ${voice.id}: ${voice.status}, ${formatDuration((Date.now() - started) / 1000)}`;
      while (options.wait && voice.status === 'processing') {
        progress.update(line);
        await sleep(1000);
        voice = await api.json<VoiceJson>('GET', `/api/v1/voices/${voice.id}/`);
      }
      progress.end(line());
      if (voice.status === 'failed')
        throw new ApiError(
          0,
          voice.error?.code ?? 'failed',
          `voice ${voice.id} failed: ${voice.error?.message} (${voice.error?.code})`,
        );
      print(
        command,
        voice,
        () =>
          `${voice.id}\t${voice.status}${voice.similarity !== null ? `\tsimilarity ${voice.similarity}` : ''}\t${voice.name}`,
      );
    });

  addStudioCommands(program, io, print);
  addAccountCommands(program, io, print);
  return program;
}

/** Runs one command line; returns the exit code (0 ok, 1 a failed command, 2 a usage error, 130 a wait stopped by Ctrl-C). */
export async function runCli(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const message =
      error instanceof AdminError || error instanceof ApiError || error instanceof Error
        ? error.message
        : String(error);
    if (argv.includes('--json')) {
      const api =
        error instanceof ApiError
          ? {
              code: error.code,
              ...(error.status && { status: error.status }),
              ...(error.errors && { errors: error.errors }),
            }
          : error instanceof NetworkError
            ? { code: error.code, cause: error.reason }
            : { code: error instanceof WaitInterrupted ? 'interrupted' : 'error' };
      io.out(`${JSON.stringify({ error: { ...api, message } })}\n`);
    }
    io.err(`openvox: ${message}\n`);
    return error instanceof WaitInterrupted ? error.exitCode : 1;
  }
}
