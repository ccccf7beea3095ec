import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileUrl } from '../../audio/ffmpeg';
import { padWav, readWavInfo } from '../../audio/wav';
import { captionsOf, type TimedWord } from './captions';
import type { AssemblyPreset, BlockAudio, ChapterAssembly } from './index';
import { studioFfmpeg } from './ffmpeg';
import { measureLevels, measureWav } from './measure';
import { MASTER_RATE, mp3Output, mp3SpanOf } from './mp3';

/** Pauses between blocks (seconds): a heading is followed by a longer breath than a paragraph. */
const PAUSE_AFTER = { heading: 0.9, paragraph: 0.5 } as const;

/**
 * What each preset aims for. audiobook: ACX (RMS −23..−18 dB, peak ≤ −3 dB,
 * noise floor ≤ −60 dB, 0.5–1 s room tone at the head, 1–5 s at the tail),
 * aiming inside the bounds and limiting at −4 dBFS, which leaves the MP3
 * encoder's overshoot (~0.5 dB) below −3. standard: −16 LUFS, −1.5 dBFS
 * limit, plain silence.
 */
const PRESETS = {
  audiobook: { target: 'rms', level: -20, limitDb: -4, headSeconds: 0.75, tailSeconds: 2, roomTone: true },
  standard: { target: 'lufs', level: -16, limitDb: -1.5, headSeconds: 0.25, tailSeconds: 0.5, roomTone: false },
} as const;

/**
 * Room tone: pink noise at about −70 dBFS RMS (amplitude measured), a
 * constant floor under the whole chapter so pauses are never digital zero.
 */
const ROOM_TONE_AMPLITUDE = 0.0016;

/** ACX's bounds; a floor under noiseFloorMin is digital silence, which ACX refuses as room tone. */
const ACX = { rmsMin: -23, rmsMax: -18, peakMax: -3, noiseFloorMax: -60, noiseFloorMin: -100 } as const;

/** A level in dBFS as the linear gain alimiter takes. */
const limiterGain = (db: number) => (10 ** (db / 20)).toFixed(4);

/** How far from the preset's level a chapter may land before its gain is corrected once. */
const LEVEL_TOLERANCE_DB = 0.5;

/** Gain, a peak limiter, the head and tail, and under it all the room tone: `joined` mastered into `wavPath`. */
async function master(
  joined: string,
  wavPath: string,
  preset: (typeof PRESETS)[AssemblyPreset],
  gainDb: number,
  speechSeconds: number,
  signal?: AbortSignal,
): Promise<void> {
  const totalSeconds = preset.headSeconds + speechSeconds + preset.tailSeconds;
  const headMs = Math.round(preset.headSeconds * 1000);
  const voice =
    `[0:a]volume=${gainDb.toFixed(2)}dB,` +
    // level=0: the limiter only limits (its default auto-level would raise the whole chapter to the ceiling).
    `alimiter=limit=${limiterGain(preset.limitDb)}:level=0:attack=5:release=50,` +
    `adelay=delays=${headMs}:all=1,apad=whole_dur=${totalSeconds.toFixed(3)}`;
  const tone = `anoisesrc=color=pink:amplitude=${ROOM_TONE_AMPLITUDE}:sample_rate=${MASTER_RATE}:seed=7:duration=${totalSeconds.toFixed(3)}`;
  const mixed = preset.roomTone
    ? `${voice}[voice];${tone}[tone];[voice][tone]amix=inputs=2:duration=first:normalize=0`
    : voice;
  const graph = `${mixed},aformat=sample_fmts=s16:sample_rates=${MASTER_RATE}:channel_layouts=mono[wav]`;
  const wav = ['-map', '[wav]', '-c:a', 'pcm_s16le', '-map_metadata', '-1', '-f', 'wav', fileUrl(wavPath)];
  await studioFfmpeg(['-i', fileUrl(joined), '-filter_complex', graph, ...wav], signal);
}

/**
 * Joins a chapter's blocks (PCM WAVs) with pauses into a mastered 44.1 kHz
 * mono WAV (`chapter.wav` in `outDir`), the MP3 a listener gets
 * (`chapter.mp3`, the book's zip holds it as it is), its captions, and the
 * QC of that MP3 as a decoder outputs it. Four ffmpeg passes when the level
 * lands at once: the join, the master, the MP3's encode, and its decode for
 * the QC; the levels are measured in Node.
 */
export async function assembleChapter(input: {
  blocks: BlockAudio[];
  preset: AssemblyPreset;
  outDir: string;
  signal?: AbortSignal;
}): Promise<ChapterAssembly> {
  const { blocks, outDir, signal } = input;
  if (blocks.length === 0) throw new Error('a chapter needs at least one block');
  const preset = PRESETS[input.preset];

  // 1. The speech joined with silent pauses at the master's rate, in one pass, and where each block starts (the
  // head's room tone included): each block's length is its WAV's, resampling keeps it to the sample.
  const durations = await Promise.all(blocks.map(async (block) => (await readWavInfo(block.path)).durationSeconds));
  const starts: number[] = [];
  let cursor = preset.headSeconds;
  const parts = blocks.map((block, i) => {
    starts.push(cursor);
    const pause = i + 1 < blocks.length ? PAUSE_AFTER[block.kind] : 0;
    cursor += durations[i] + pause;
    return `[${i}:a]aresample=${MASTER_RATE},aformat=sample_fmts=flt:channel_layouts=mono,apad=pad_dur=${pause}[p${i}]`;
  });
  const speechSeconds = cursor - preset.headSeconds;
  const joined = path.join(outDir, 'joined.wav');
  const joinArgs: string[] = [];
  for (const block of blocks) joinArgs.push('-i', fileUrl(block.path));
  const concat = `${blocks.map((_, i) => `[p${i}]`).join('')}concat=n=${blocks.length}:v=0:a=1[out]`;
  joinArgs.push('-filter_complex', [...parts, concat].join(';'), '-map', '[out]', '-c:a', 'pcm_f32le');
  await studioFfmpeg([...joinArgs, '-map_metadata', '-1', '-f', 'wav', fileUrl(joined)], signal);

  // 2. Gain to the preset's level (measured on the joined speech), a peak limiter, head and tail, room tone.
  const loudness = preset.target === 'lufs';
  const before = await measureWav(joined, { loudness, signal });
  const measured = preset.target === 'rms' ? before.rmsDb : before.loudnessLufs;
  // Nothing audible to level (silent blocks): leave the gain alone rather than amplify noise by 100 dB.
  let gainDb = measured > -100 ? preset.level - measured : 0;
  const wavPath = path.join(outDir, 'chapter.wav');
  const mp3Path = path.join(outDir, 'chapter.mp3');
  // The limiter takes some level off speech with sharp peaks: one correction brings the result back to the target.
  for (let attempt = 0; attempt < 2; attempt++) {
    await master(joined, wavPath, preset, gainDb, speechSeconds, signal);
    const after = await measureWav(wavPath, { loudness, signal });
    const miss = preset.level - (preset.target === 'rms' ? after.rmsDb : after.loudnessLufs);
    if (Math.abs(miss) <= LEVEL_TOLERANCE_DB || measured <= -100) break;
    gainDb += miss;
  }
  await rm(joined, { force: true });

  // 3. The MP3 a listener gets, once, from the final master (a level correction re-masters the WAV only).
  await studioFfmpeg(['-i', fileUrl(wavPath), '-map_metadata', '-1', ...mp3Output(mp3Path)], signal);
  // The WAV takes the MP3's whole frames (its encoder's delay and padding, in silence at the end): the book's MP3
  // is the chapters' MP3s joined frame for frame, so each chapter spans exactly that there, and the M4B and the
  // chapter index, made from the WAVs, keep time with it.
  const span = await mp3SpanOf(mp3Path, wavPath);
  if (span !== null) await padWav(wavPath, span);

  // 4. QC of what a listener decodes: the chapter's MP3 as the book's zip delivers it.
  const delivered = await measureLevels(mp3Path, { loudness: false, signal });
  const durationMs = Math.round((await readWavInfo(wavPath)).durationSeconds * 1000);

  const words: TimedWord[] = [];
  const blockBreaks = new Set<number>();
  blocks.forEach((block, i) => {
    blockBreaks.add(words.length);
    const offsetMs = starts[i] * 1000;
    for (const word of block.words ?? [])
      words.push({ word: word.word, startMs: word.startMs + offsetMs, endMs: word.endMs + offsetMs });
  });
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    wavPath,
    mp3Path,
    durationMs,
    ...captionsOf(words, blockBreaks),
    qc: {
      rms_db: round(delivered.rmsDb),
      peak_db: round(delivered.peakDb),
      noise_floor_db: round(delivered.noiseFloorDb),
      duration_ms: durationMs,
      words_per_minute: durationMs > 0 ? Math.round(words.length / (durationMs / 60_000)) : 0,
      acx: {
        rms: delivered.rmsDb >= ACX.rmsMin && delivered.rmsDb <= ACX.rmsMax,
        peak: delivered.peakDb <= ACX.peakMax,
        noise_floor: delivered.noiseFloorDb <= ACX.noiseFloorMax && delivered.noiseFloorDb > ACX.noiseFloorMin,
      },
    },
  };
}
