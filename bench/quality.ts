import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ffmpeg, fileUrl } from '../audio/ffmpeg';
import { finishAudio } from '../audio/finish';
import { EMOTION_PRESETS, EMOTIONS, type Emotion, type EmotionPreset } from '../audio/prosody';
import { renderChunk } from '../audio/render';
import { findPremadeVoice } from '../engines/catalog';
import { createEngines, getEngine } from '../engines/registry';
import { defaultModelsDir } from '../lib/config';
import { enginePitchRange } from '../engines/types';
import { durationAndF0, filterToWav, hear, melCepstralDistortion, wordErrors } from './measures';
import { speakerTable } from './speakers';
import { cloneStageRows } from './cloneStages';
import { CLONE_COST_HEADER, cloneCostRows } from './cloneCost';
import { profileDistances } from '../audio/cloning/similarity';
import type { SpeakerProfile } from '../audio/cloning/speaker';
import { EVERYDAY_SENTENCES } from './texts';

/**
 * Voicing quality in one run: for each speed, pitch and emotion, the
 * service's rendering against the engine's own control alone and against
 * plain ffmpeg passes over the engine's neutral rendering (rubberband with
 * formants preserved: what the service did before; atempo / asetrate: the
 * simplest pass), on the same text. Measures (bench/measures.ts): MCD
 * against the neutral engine rendering, pocketsphinx WER, duration error
 * against 1/speed, F0 error against the requested shift. Then the speaker
 * table: the similarity score's ROC AUC on real recordings.
 *
 *   npm run bench:quality -- [voice id ...] [--speed] [--pitch] [--emotion] [--no-voices] [--no-speakers] [--no-clones]
 *   (default en-us-slt en-us-flite-slt, every section)
 */

export const TEXTS = EVERYDAY_SENTENCES;
const SPEEDS = [0.5, 0.75, 1.5, 2];
const PITCHES = [-8, -4, 4, 8];
/**
 * The emotion presets before the last re-tuning (every emotion with a pitch shift; happy, angry and excited above
 * 1.3x neutral WER), rendered as "service (before)" next to the current ones.
 */
const PRESETS_BEFORE: Readonly<Record<Exclude<Emotion, 'neutral'>, EmotionPreset>> = {
  happy: { rate: 1.08, semitones: 1, loudnessLufs: -13.5, brightnessDb: 1.5 },
  sad: { rate: 0.85, semitones: -2, loudnessLufs: -20, brightnessDb: -3 },
  angry: { rate: 1.06, semitones: 0.5, loudnessLufs: -12, brightnessDb: 3 },
  calm: { rate: 0.9, semitones: -1, loudnessLufs: -19, brightnessDb: -1.5 },
  excited: { rate: 1.12, semitones: 1.5, loudnessLufs: -13, brightnessDb: 2 },
};
/** The similarity score before the identity terms (F0, LTAS and rate only), for the speaker table's before/after. */
const similarityBefore = (a: SpeakerProfile, b: SpeakerProfile) => {
  const d = profileDistances(a, b);
  return Math.exp(-((0.35 * d.f0Semitones) / 4 + (0.5 * d.ltasDb) / 6 + (0.15 * d.rateLog2) / 0.5));
};
const section = (name: string) =>
  !['--speed', '--pitch', '--emotion'].some((flag) => process.argv.includes(flag)) ||
  process.argv.includes(`--${name}`);

type Method = 'service' | 'engine' | 'rubberband' | 'rubberband short' | 'ffmpeg';
interface Condition {
  label: string;
  speed: number;
  pitch: number;
  emotion: Emotion;
  /** A shift applied like a clone's (engine first, else the shifter): the old presets' pitch, which every engine got. */
  extraSemitones?: number;
}

async function main() {
  const ids = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
  // With the Piper voices (MODELS_DIR): clones start from the neural voices when there are any.
  const engines = createEngines({
    enableNonFree: process.env.ENABLE_NONFREE_ENGINES === 'true',
    modelsDir: process.env.MODELS_DIR ?? defaultModelsDir(),
  });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-bench-quality-'));
  let counter = 0;
  const file = (ext = 'wav') => path.join(dir, `${++counter}.${ext}`);
  try {
    for (const id of process.argv.includes('--no-voices') ? [] : ids.length ? ids : ['en-us-slt', 'en-us-flite-slt']) {
      const voice = findPremadeVoice(id);
      if (!voice) throw new Error(`unknown voice ${id}`);
      const engine = getEngine(engines, voice.engine);
      if (!(await engine.available())) {
        console.log(`${id}: ${voice.engine} not installed, skipped`);
        continue;
      }
      const finish = async (chunks: string[], condition: Condition) => {
        const outPath = file();
        await finishAudio({
          chunks,
          speed: condition.speed,
          pitch: condition.pitch,
          emotion: condition.emotion,
          format: 'wav',
          outPath,
        });
        return outPath;
      };
      // The neutral chunks: the raw engine, trimmed and resampled (no DSP).
      const neutralCondition: Condition = { label: 'neutral', speed: 1, pitch: 0, emotion: 'neutral' };
      const neutralChunks = await Promise.all(
        TEXTS.map(async (text) => {
          const outPath = file();
          await renderChunk({ voice, text, speed: 1, emotion: 'neutral', outPath, engines });
          return outPath;
        }),
      );
      const neutralPath = await finish(neutralChunks, neutralCondition);
      const neutral = await durationAndF0(neutralPath);

      const render = async (method: Method, condition: Condition): Promise<string | null> => {
        const { speed, pitch, emotion } = condition;
        if (method === 'service' || method === ('service (before)' as Method)) {
          const chunks = await Promise.all(
            TEXTS.map(async (text) => {
              const outPath = file();
              await renderChunk({
                voice,
                text,
                speed,
                pitch,
                emotion,
                outPath,
                engines,
                profile: condition.extraSemitones ? { semitones: condition.extraSemitones } : undefined,
              });
              return outPath;
            }),
          );
          return finish(chunks, condition);
        }
        if (method === 'engine') {
          const pitchRange = enginePitchRange(engine.capabilities, voice.engineVoice);
          if (pitch !== 0 && !(pitchRange && pitch >= pitchRange.min && pitch <= pitchRange.max)) return null;
          if (
            speed !== 1 &&
            !(
              engine.capabilities.rate &&
              speed >= engine.capabilities.rate.min &&
              speed <= engine.capabilities.rate.max
            )
          )
            return null;
          const chunks = await Promise.all(
            TEXTS.map(async (text) => {
              const raw = file();
              const outPath = file();
              await engine.synthesize({ text, voice: voice.engineVoice, rate: speed, pitch, outPath: raw });
              const keep = (seconds: number) =>
                `silenceremove=start_periods=1:start_threshold=-55dB:start_silence=${(seconds / speed).toFixed(4)}`;
              return filterToWav(
                raw,
                [keep(0.03), 'areverse', keep(0.08), 'areverse', 'aresample=24000:resampler=soxr'].join(','),
                outPath,
              );
            }),
          );
          return finish(chunks, condition);
        }
        const k = 2 ** (pitch / 12);
        const filter =
          method === 'rubberband'
            ? `rubberband=tempo=${speed}:pitch=${k}:pitchq=quality:formant=preserved`
            : method === 'rubberband short'
              ? `rubberband=tempo=${speed}:pitch=${k}:pitchq=quality:formant=preserved:window=short`
              : pitch !== 0
                ? `asetrate=${Math.round(24000 * k)},aresample=24000,atempo=${(speed / k).toFixed(6)}`
                : `atempo=${speed}`;
        const chunks = await Promise.all(
          neutralChunks.map((chunk) => filterToWav(chunk, `${filter},aresample=24000:resampler=soxr`, file())),
        );
        return finish(chunks, condition);
      };

      const rows: string[][] = [];
      const measure = async (method: Method, condition: Condition) => {
        const outPath = await render(method, condition);
        if (!outPath) return;
        const [measured, mcd, heard] = await Promise.all([
          durationAndF0(outPath),
          melCepstralDistortion(neutralPath, outPath),
          hear(outPath, file()),
        ]);
        // Quality cost: MCD against the neutral rendering through the preset's own treble shelf (an intended linear
        // filter that costs nothing), so what remains is what the rest of the processing did to the spectral envelope.
        const tilt = EMOTION_PRESETS[condition.emotion].brightnessDb;
        let mcdQuality = mcd;
        if (tilt !== 0) {
          const tilted = file();
          await ffmpeg([
            '-i',
            fileUrl(neutralPath),
            '-af',
            `treble=g=${tilt}:f=3000`,
            '-c:a',
            'pcm_s16le',
            fileUrl(tilted),
          ]);
          mcdQuality = await melCepstralDistortion(tilted, outPath);
        }
        const wer = heard === null ? null : wordErrors(TEXTS.join(' '), heard);
        const durationError = (measured.seconds * condition.speed) / neutral.seconds - 1;
        const f0Error =
          measured.f0Hz && neutral.f0Hz ? 12 * Math.log2(measured.f0Hz / neutral.f0Hz) - condition.pitch : NaN;
        rows.push([
          condition.label,
          method,
          mcd.toFixed(2),
          mcdQuality.toFixed(2),
          wer ? `${((100 * wer.errors) / wer.words).toFixed(1)} %` : 'n/a',
          `${(100 * durationError).toFixed(1)} %`,
          condition.emotion === 'neutral'
            ? `${f0Error.toFixed(2)} st`
            : `${(12 * Math.log2((measured.f0Hz ?? NaN) / (neutral.f0Hz ?? NaN))).toFixed(2)} st`,
          measured.f0RangeSt?.toFixed(1) ?? '-',
          `${(measured.lufs - neutral.lufs).toFixed(1)} LU`,
        ]);
        process.stderr.write('.');
      };

      await measure('service', neutralCondition);
      if (section('speed'))
        for (const speed of SPEEDS)
          for (const method of ['service', 'engine', 'rubberband', 'ffmpeg'] as const)
            await measure(method, { label: `speed ${speed}`, speed, pitch: 0, emotion: 'neutral' });
      if (section('pitch'))
        for (const pitch of PITCHES)
          for (const method of ['service', 'engine', 'rubberband', 'rubberband short', 'ffmpeg'] as const)
            await measure(method, {
              label: `pitch ${pitch > 0 ? '+' : ''}${pitch}`,
              speed: 1,
              pitch,
              emotion: 'neutral',
            });
      if (section('emotion')) {
        for (const emotion of EMOTIONS.filter((name): name is Exclude<Emotion, 'neutral'> => name !== 'neutral')) {
          await measure('service', { label: emotion, speed: 1, pitch: 0, emotion });
          // The same request with the old preset: the presets are plain objects, swapped for one rendering. Its pitch
          // goes in as a clone's shift would, so engines without their own pitch control get it through the shifter
          // as they did before.
          const current = { ...EMOTION_PRESETS[emotion] };
          Object.assign(EMOTION_PRESETS[emotion], PRESETS_BEFORE[emotion], { semitones: 0 });
          try {
            await measure('service (before)' as Method, {
              label: emotion,
              speed: 1,
              pitch: 0,
              emotion,
              extraSemitones: PRESETS_BEFORE[emotion].semitones,
            });
          } finally {
            Object.assign(EMOTION_PRESETS[emotion], current);
          }
        }
      }
      process.stderr.write('\n');
      console.log(
        `\n${id} (${voice.engine} ${voice.engineVoice}), ${TEXTS.length} sentences; neutral: ${neutral.seconds.toFixed(2)} s, F0 ${neutral.f0Hz?.toFixed(0)} Hz\n`,
      );
      console.log(
        table(
          [
            'request',
            'method',
            'MCD dB',
            'MCD tilt-comp dB',
            'WER',
            'duration err',
            'F0 err (emotion: shift)',
            'F0 range st',
            'loudness',
          ],
          rows,
        ),
      );
    }
    if (!process.argv.includes('--no-speakers'))
      console.log(
        `\nbefore (F0/LTAS/rate): ${await speakerTable(dir, similarityBefore)}\nafter: ${await speakerTable(dir)}`,
      );
    if (!process.argv.includes('--no-clones')) {
      const cost = await cloneCostRows(dir, engines);
      console.log(
        `\nclone cost and base voice: classic voices only (before), neural first (the service), every voice competing; same run\n`,
      );
      console.log(table(CLONE_COST_HEADER, cost.rows));
      const rows = await cloneStageRows(dir, engines, cost.clones);
      console.log(`\nclones, stage by stage (held-out text; MCD against the plain base voice)\n`);
      console.log(table(['reference', 'stage', 'similarity', 'F0 err', 'MCD dB', 'WER'], rows));
    }
    console.log(
      '\nMCD: mel-cepstral distortion (c1..c13, DTW-aligned) against the neutral engine rendering, dB (0 = the engine itself).\n' +
        "MCD tilt-comp: the same against the neutral rendering through the preset's treble shelf (emotions: what the processing costs beyond the intended tilt).\n" +
        'WER: pocketsphinx en-us on the loudness-normalized file. duration err: duration x speed / neutral - 1. F0 err: median F0 shift minus the request.\n' +
        'Methods: service = renderChunk + finishAudio; engine = its own rate/pitch control only; rubberband = formant-preserving rubberband over\n' +
        'the neutral rendering (the service before engine-first voicing); ffmpeg = atempo (speed) or asetrate + atempo (pitch, formants move along);\n' +
        'rubberband short = the same with window=short.',
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, c) => (cell ?? '').padEnd(widths[c])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
