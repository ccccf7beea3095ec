import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { encodeText } from './text';
import { run, which, withTempDir } from '../lib/process';
import { describeEngine, type Engine, EngineError } from './types';
import type { EngineOptions } from './registry';

/**
 * Flite 2.2 (BSD-like CMU licence, Debian main): small CMU voices for English,
 * 16 kHz (kal: 8 kHz diphone). Never `-ssml`: flite drops text in that mode.
 */
/**
 * int_f0_target_mean (Hz) that reproduces each clustergen voice's own median
 * F0: the voice then renders its intonation around any target (measured: a
 * target of m Hz gives a median F0 of about m - 5 Hz for slt and awb). rms
 * ignores the target; kal is a diphone voice without it.
 */
/** By voice name: a Map, so a name such as "constructor" finds nothing. */
const F0_TARGET_HZ: ReadonlyMap<string, number> = new Map([
  ['slt', 172],
  ['awb', 133],
]);
const PITCH_RANGE = { min: -6, max: 6 } as const;

/** The `--setf` arguments that shift `voice` by `semitones` (none where the voice has no F0 target). */
function flitePitchArguments(voice: string, semitones: number): string[] {
  const target = F0_TARGET_HZ.get(voice);
  if (!target || semitones === 0) return [];
  const clamped = Math.min(PITCH_RANGE.max, Math.max(PITCH_RANGE.min, semitones));
  return ['--setf', `int_f0_target_mean=${(target * 2 ** (clamped / 12)).toFixed(1)}`];
}

export function createFliteEngine({ niceness }: Pick<EngineOptions, 'niceness'> = {}): Engine {
  let voiceList: Promise<string[]> | undefined;

  return {
    name: fliteEngine.name,
    license: fliteEngine.license,
    // duration_stretch is exact: rate r gives 1/r of the duration within 1 % (slt, 0.5-2x, three sentences).
    capabilities: {
      rate: { min: 0.4, max: 2.5 },
      exactRate: true,
      pitch: { ...PITCH_RANGE, voices: [...F0_TARGET_HZ.keys()] },
    },
    async available() {
      return (await which('flite')) !== null;
    },
    async voices() {
      if (!(await this.available())) return [];
      // "Voices available: kal awb_time kal16 awb rms slt"
      voiceList ??= run('flite', ['-lv']).then(({ stdout }) =>
        stdout.toString('utf8').replace(/^.*?:/s, '').trim().split(/\s+/).filter(Boolean),
      );
      return voiceList;
    },
    async hasVoice(voice) {
      return (await this.voices()).includes(voice);
    },
    async synthesize({ text, voice, rate = 1, pitch = 0, outPath, signal }) {
      // flite silently falls back to its default voice for an unknown name.
      if (!(await this.hasVoice(voice))) throw new EngineError('flite', `unknown voice ${JSON.stringify(voice)}`);
      await withTempDir(async (dir) => {
        const textFile = path.join(dir, 'input.txt');
        // Flite's lexicon is English: accents are stripped rather than read as bytes.
        await writeFile(textFile, encodeText(text, 'ascii'));
        const args = [
          '-voice',
          voice,
          '--setf',
          `duration_stretch=${(1 / rate).toFixed(4)}`,
          ...flitePitchArguments(voice, pitch),
          '-f',
          textFile,
          '-o',
          path.resolve(outPath),
        ];
        try {
          await run('flite', args, { signal, niceness });
        } catch (error) {
          throw new EngineError('flite', (error as Error).message);
        }
      });
    },
  };
}

export const fliteEngine = describeEngine({
  name: 'flite',
  license: 'free',
  tier: 'classic',
  licence: 'CMU Flite and its voices: BSD-style CMU licence (free, commercial use allowed).',
  create: ({ niceness }) => createFliteEngine({ niceness }),
});
