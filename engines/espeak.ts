import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { espeakInput } from './espeakPhonemes';
import { run, which, withTempDir } from '../lib/process';
import { describeEngine, type Engine, EngineError } from './types';
import type { EngineOptions } from './registry';

/**
 * eSpeak NG (GPL-3, Debian main): formant synthesis, 100+ languages, renders
 * hundreds of times faster than real time. Voices are `<language>[+<variant>]`
 * (e.g. `de`, `en-us+f3`). Never run with `-m`: SSML must be spoken, not obeyed.
 */

const NORMAL_WPM = 175;
const MIN_WPM = 80;
const MAX_WPM = 450;

/**
 * `-p` (0-99, default 50) against the median F0 it gives, in semitones from
 * -p 50, measured on one sentence: the male voices (en-us: 64-168 Hz) and the
 * female variants (+f3: 151-334 Hz) follow different curves. Linear between
 * points; the adapter takes ±4 semitones: further out the curve depends on the
 * sentence (-6 came out -8.3 on a short one) and the shifter does the rest.
 */
const PITCH_CURVES: Readonly<Record<'male' | 'female', ReadonlyArray<readonly [number, number]>>> = {
  male: [
    [0, -7.9],
    [10, -5.9],
    [20, -4.6],
    [30, -2.9],
    [40, -1.6],
    [50, 0],
    [60, 1.6],
    [70, 3.6],
    [80, 5.5],
    [90, 7.5],
    [99, 8.9],
  ],
  female: [
    [0, -5.6],
    [10, -4.6],
    [20, -3.7],
    [30, -2.6],
    [40, -1.4],
    [50, 0],
    [60, 1.4],
    [70, 3.0],
    [80, 4.6],
    [90, 6.3],
    [99, 7.8],
  ],
};
const PITCH_RANGE = { min: -4, max: 4 } as const;

/** The `-p` value that moves `voice`'s median F0 by `semitones`. */
function espeakPitchArgument(voice: string, semitones: number): number {
  const curve = PITCH_CURVES[/\+f\d/i.test(voice) ? 'female' : 'male'];
  const target = Math.min(PITCH_RANGE.max, Math.max(PITCH_RANGE.min, semitones));
  for (let i = 1; i < curve.length; i++) {
    const [p0, s0] = curve[i - 1];
    const [p1, s1] = curve[i];
    if (target <= s1) return Math.round(p0 + ((target - s0) / (s1 - s0)) * (p1 - p0));
  }
  return 99;
}

export function createEspeakEngine({ niceness }: Pick<EngineOptions, 'niceness'> = {}): Engine {
  let voiceList: Promise<string[]> | undefined;

  return {
    name: espeakEngine.name,
    license: espeakEngine.license,
    capabilities: { rate: { min: MIN_WPM / NORMAL_WPM, max: MAX_WPM / NORMAL_WPM }, pitch: PITCH_RANGE },
    async available() {
      return (await which('espeak-ng')) !== null;
    },
    async voices() {
      if (!(await this.available())) return [];
      voiceList ??= run('espeak-ng', ['--voices']).then(({ stdout }) => parseLanguages(stdout.toString('utf8')));
      return voiceList;
    },
    async hasVoice(voice) {
      // Variants (+f3, +m1, ...) ship with espeak-ng itself; the language decides.
      return (await this.voices()).includes(voice.split('+')[0].toLowerCase());
    },
    async synthesize({ text, voice, rate = 1, pitch = 0, outPath, signal, pronunciations }) {
      const wpm = Math.round(Math.min(MAX_WPM, Math.max(MIN_WPM, NORMAL_WPM * rate)));
      await withTempDir(async (dir) => {
        const textFile = path.join(dir, 'input.txt');
        // Given pronunciations as eSpeak's own phoneme input; everything else escaped so it is spoken, never interpreted.
        await writeFile(textFile, espeakInput(text, pronunciations), 'utf8');
        try {
          // -b 1: the file is UTF-8. -z: no pause after the last sentence (the pipeline adds its own).
          await run(
            'espeak-ng',
            [
              '-b',
              '1',
              '-z',
              '-v',
              voice,
              '-s',
              String(wpm),
              '-p',
              String(espeakPitchArgument(voice, pitch)),
              '-w',
              path.resolve(outPath),
              '-f',
              textFile,
            ],
            { signal, niceness },
          );
        } catch (error) {
          throw new EngineError('espeak-ng', (error as Error).message);
        }
      });
    },
  };
}

/**
 * Names `-v` accepts, from `espeak-ng --voices`: the Language column and the
 * voice file's base name (`gmw/en` -> `en`), lower-cased.
 */
function parseLanguages(table: string): string[] {
  const names = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    const columns = line.trim().split(/\s+/);
    if (columns[1]) names.add(columns[1].toLowerCase());
    // The File column follows the (space-free) VoiceName column.
    const file = columns.find((column, index) => index >= 3 && column.includes('/'));
    if (file) names.add(file.split('/').pop()!.toLowerCase());
  }
  return [...names];
}

export const espeakEngine = describeEngine({
  name: 'espeak-ng',
  license: 'free',
  tier: 'classic',
  licence: 'eSpeak NG and its voice data: GPL-3.0-or-later.',
  create: ({ niceness }) => createEspeakEngine({ niceness }),
});
