import { type Command, InvalidArgumentError } from 'commander';
import { installKokoroVoice, type KokoroInstallResult, removeKokoroVoice } from '../engines/kokoro/install';
import {
  type InstallProgress,
  type InstallResult,
  installVoice,
  isInstalled,
  removeVoice,
} from '../engines/piper/install';
import { recommendedKeys } from '../engines/piper/recommendedVoices';
import { fetchVoiceIndex, listVoices, QUALITIES, VoiceInstallError, voiceSize } from '../engines/piper/voiceIndex';
import { loadConfig } from '../lib/config';
import { NetworkError, networkFailure } from './network';
import { LOG_INTERVAL_MS, printable, progressLine } from './output';

/**
 * The operator's Piper voice commands: `openvox voices available|install|remove`.
 * They read MODELS_DIR and PIPER_VOICES_URL like the service (lib/config.ts)
 * and download only when run; the service itself never does. What the index
 * and the model cards say is outside text: every field of it printed goes
 * through `printable`, so none can drive the terminal or forge a line.
 */

interface VoiceCommandIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  tty: boolean;
}

type Print = (command: Command, value: unknown, text: () => string) => void;

const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1);

const quality = (value: string) => {
  if (!QUALITIES.includes(value as (typeof QUALITIES)[number]))
    throw new InvalidArgumentError(`One of ${QUALITIES.join(', ')}.`);
  return value;
};

/**
 * A redrawn bar on a terminal; elsewhere a line saying what is downloading,
 * then a bar line every LOG_INTERVAL_MS at most (a log has no use for more).
 */
function progressReporter(
  io: VoiceCommandIo,
  quiet: boolean,
): { report(progress: InstallProgress): void; end(): void } {
  const started = Date.now();
  let lastLine: number | null = null;
  let drawn = false;
  return {
    report({ key, done, total }) {
      if (quiet) return;
      const line = () =>
        progressLine(
          `${printable(key)} ${megabytes(done)}/${megabytes(total)} MB`,
          total > 0 ? done / total : 1,
          (Date.now() - started) / 1000,
        );
      if (io.tty) {
        io.err(`\r${line()}`);
        drawn = true;
      } else if (lastLine === null) {
        io.err(`${printable(key)}: downloading ${megabytes(total)} MB\n`);
        lastLine = Date.now();
      } else if (Date.now() - lastLine >= LOG_INTERVAL_MS) {
        io.err(`${line()}\n`);
        lastLine = Date.now();
      }
    },
    end() {
      if (drawn) io.err('\n');
      drawn = false;
    },
  };
}

type Action = Parameters<Command['action']>[0];

/**
 * The installer's refusals quote the index (a speaker's name, a size): escaped like the rest of the output.
 * An index or file that could not be fetched says why (fetch's own words are only "fetch failed"): the
 * system's reason and address in the message, a code for --json (cli/network.ts).
 */
function escapingRefusals(action: Action): Action {
  return async function (this: Command, ...args) {
    try {
      await action.apply(this, args);
    } catch (error) {
      if (!(error instanceof VoiceInstallError)) throw error;
      const failure = networkFailure(error.cause);
      if (!failure) {
        error.message = printable(error.message);
        throw error;
      }
      // Duck-typed: fetch's errors come from Node's own realm (instanceof Error fails under a test runner's vm).
      const causeMessage = (error.cause as { message?: unknown } | undefined)?.message;
      const said = typeof causeMessage === 'string' ? `: ${causeMessage}` : null;
      const message =
        said && error.message.includes(said)
          ? error.message.replace(said, `: ${failure.detail}`)
          : `${error.message}: ${failure.detail}`;
      throw new NetworkError(failure.code, failure.cause, printable(message));
    }
  };
}

export function addPiperVoiceCommands(voices: Command, io: VoiceCommandIo, print: Print): void {
  const json = (command: Command): boolean => Boolean(command.optsWithGlobals().json);
  const settings = () => {
    const config = loadConfig(io.env);
    return {
      modelsDir: config.MODELS_DIR,
      baseUrl: config.PIPER_VOICES_URL,
      kokoroUrl: config.KOKORO_VOICES_URL,
      kokoroSha256: config.KOKORO_VOICES_SHA256,
    };
  };
  /** `kokoro:<voice>` names a Kokoro voice style (KOKORO_VOICES_URL); any other key a Piper voice. */
  const kokoroName = (key: string) => (key.startsWith('kokoro:') ? key.slice('kokoro:'.length) : null);

  voices
    .command('available')
    .description("Operator: the Piper voices of the index at PIPER_VOICES_URL ('*': installed in MODELS_DIR)")
    .option('--language <tag>', 'e.g. de, de_DE or de-DE')
    .option('--quality <quality>', QUALITIES.join(', '), quality)
    .action(
      escapingRefusals(async (options, command: Command) => {
        const { modelsDir, baseUrl } = settings();
        const listed = listVoices(await fetchVoiceIndex(baseUrl), options);
        const rows = await Promise.all(
          listed.map(async (voice) => ({
            key: voice.key,
            language: voice.language.code,
            quality: voice.quality,
            speakers: voice.num_speakers,
            size_bytes: voiceSize(voice),
            installed: await isInstalled(voice.key, modelsDir),
          })),
        );
        print(command, rows, () =>
          rows.length === 0
            ? `no voice matches in ${baseUrl}`
            : rows
                .map((row) =>
                  [
                    `${row.installed ? '*' : ' '} ${printable(row.key)}`,
                    printable(row.language),
                    printable(row.quality),
                    `${row.speakers} speaker${row.speakers === 1 ? '' : 's'}`,
                    `${megabytes(row.size_bytes)} MB`,
                  ].join('\t'),
                )
                .join('\n'),
        );
      }),
    );

  voices
    .command('install')
    .description(
      'Operator: download Piper voices from PIPER_VOICES_URL into MODELS_DIR, verified by size and MD5; kokoro:<voice> a Kokoro voice style from KOKORO_VOICES_URL',
    )
    .argument('[keys...]', 'voice keys, e.g. de_DE-thorsten-medium or kokoro:af_heart')
    .option('--recommended', 'the recommended voice of each language (docs/voices.md)')
    .option('--language <tag>', 'with --recommended: only this language’s, e.g. de')
    .option(
      '--speakers <names>',
      "one multi-speaker model's speakers the catalog offers, comma-separated (names of its speaker_id_map), e.g. p225,p226",
    )
    .action(
      escapingRefusals(async (keys: string[], options, command: Command) => {
        // command.error prints the usage error and exits 2, like commander's own.
        if (keys.length > 0 === Boolean(options.recommended))
          command.error('error: name voice keys or give --recommended, not both', { exitCode: 2 });
        if (options.language && !options.recommended)
          command.error('error: --language goes with --recommended (name the keys otherwise)', { exitCode: 2 });
        if (options.speakers !== undefined && keys.length !== 1)
          command.error('error: --speakers goes with one voice key', { exitCode: 2 });
        const speakers = options.speakers === undefined ? undefined : String(options.speakers).split(',');
        const { modelsDir, baseUrl, kokoroUrl, kokoroSha256 } = settings();
        const results: Array<InstallResult | KokoroInstallResult> = [];
        for (const key of keys) {
          const name = kokoroName(key);
          if (name === null) continue;
          const result = await installKokoroVoice(name, {
            modelsDir,
            url: kokoroUrl,
            sha256: kokoroSha256 || undefined,
          });
          results.push(result);
          if (!json(command))
            io.out(
              result.status === 'installed'
                ? `installed ${key} (${megabytes(result.bytes)} MB) in ${modelsDir}: ${result.language}, Kokoro-82M voice style\n`
                : `${key} is already installed in ${modelsDir}\n`,
            );
        }
        const piperKeys = keys.filter((key) => kokoroName(key) === null);
        if (!options.recommended && piperKeys.length === 0) {
          if (json(command)) print(command, results, () => '');
          return;
        }
        const index = await fetchVoiceIndex(baseUrl);
        const wanted = options.recommended ? recommendedKeys(index, options.language) : piperKeys;
        for (const key of wanted) {
          const progress = progressReporter(io, json(command));
          try {
            results.push(await installVoice(key, { index, baseUrl, modelsDir, onProgress: progress.report, speakers }));
          } finally {
            progress.end();
          }
          const result = results[results.length - 1] as InstallResult;
          if (!json(command)) {
            io.out(
              result.status === 'installed'
                ? `installed ${printable(key)} (${megabytes(result.bytes)} MB) in ${modelsDir}: ${printable(`${result.sidecar?.language}, ${result.sidecar?.quality} quality; ${result.sidecar?.licence}`)}\n`
                : `${printable(key)} is already installed in ${modelsDir}\n`,
            );
            if (result.speakers > 1) {
              io.out(
                `note: ${printable(key)} has ${result.speakers} speakers; the catalog offers ${result.offered.length} of them: ${printable(result.offered.join(', '))}. Choose others with --speakers a,b,c or in ${printable(key)}.voice.json (docs/voices.md)\n`,
              );
            }
          }
        }
        if (json(command)) print(command, results, () => '');
      }),
    );

  voices
    .command('remove')
    .description(
      'Operator: delete Piper voices from MODELS_DIR (the model first, so the service stops offering it at once)',
    )
    .argument('<keys...>', 'voice keys, e.g. de_DE-thorsten-medium')
    .action(
      escapingRefusals(async (keys: string[], _options, command: Command) => {
        const { modelsDir } = settings();
        const results: Array<{ key: string; removed: string[] }> = [];
        for (const key of keys) {
          const name = kokoroName(key);
          results.push({
            key,
            removed: name === null ? await removeVoice(key, modelsDir) : await removeKokoroVoice(name, modelsDir),
          });
        }
        print(command, results, () =>
          results.map((result) => `removed ${result.key} from ${modelsDir}: ${result.removed.join(', ')}`).join('\n'),
        );
      }),
    );
}
