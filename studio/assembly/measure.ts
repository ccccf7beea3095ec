import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ffmpeg, fileUrl } from '../../audio/ffmpeg';

/** ACX measures the noise floor over short windows; 500 ms is long enough to hold no word's gap. */
const WINDOW_SECONDS = 0.5;
/** What digital silence reads as (16-bit's floor): a number where astats says -inf. */
const SILENCE_DB = -144;

export interface LevelMeasure {
  /** Overall RMS, dBFS. */
  rmsDb: number;
  /** Sample peak, dBFS. */
  peakDb: number;
  /** RMS of the quietest whole 500 ms window, dBFS. */
  noiseFloorDb: number;
  /** Integrated loudness (EBU R128), LUFS. */
  loudnessLufs: number;
  durationMs: number;
}

function decibels(value: string | undefined): number {
  if (value === undefined) return SILENCE_DB;
  const parsed = Number.parseFloat(value);
  return Number.isFinite(parsed) ? Math.max(parsed, SILENCE_DB) : SILENCE_DB;
}

/**
 * Levels of an audio file as a listener's decoder outputs them, in one ffmpeg
 * pass: astats over consecutive 500 ms windows (reset each frame), and
 * ebur128's running integrated loudness. ametadata prints each frame's values
 * to a file in `workDir`, read back here.
 */
export async function measureLevels(file: string, workDir: string, signal?: AbortSignal): Promise<LevelMeasure> {
  const report = path.join(workDir, `levels-${path.basename(file)}.txt`);
  const sampleRate = 44_100;
  const windowSamples = Math.round(sampleRate * WINDOW_SECONDS);
  const graph = [
    `aresample=${sampleRate}`,
    'aformat=sample_fmts=flt:channel_layouts=mono',
    `asetnsamples=n=${windowSamples}:p=0`,
    'ebur128=metadata=1',
    'astats=metadata=1:reset=1',
    `ametadata=mode=print:file=${report.replace(/[\\:',]/g, '\\$&')}`,
  ].join(',');
  await ffmpeg(['-i', fileUrl(file), '-af', graph, '-f', 'null', '-'], signal);
  const frames: Record<string, string>[] = [];
  for (const line of (await readFile(report, 'utf8')).split('\n')) {
    if (line.startsWith('frame:')) frames.push({ pts_time: /pts_time:(\S+)/.exec(line)?.[1] ?? '0' });
    else if (frames.length > 0 && line.includes('=')) {
      const at = line.indexOf('=');
      frames[frames.length - 1][line.slice(0, at)] = line.slice(at + 1);
    }
  }
  if (frames.length === 0) throw new Error(`${file}: no audio to measure`);
  let energy = 0;
  let samples = 0;
  let peakDb = SILENCE_DB;
  let noiseFloorDb = Number.POSITIVE_INFINITY;
  frames.forEach((frame, index) => {
    const count = Number(frame['lavfi.astats.Overall.Number_of_samples'] ?? windowSamples);
    const rms = decibels(frame['lavfi.astats.Overall.RMS_level']);
    energy += count * 10 ** (rms / 10);
    samples += count;
    peakDb = Math.max(peakDb, decibels(frame['lavfi.astats.Overall.Peak_level']));
    // The last window is usually partial: it says less about the floor than a whole one.
    if (count === windowSamples || index === 0) noiseFloorDb = Math.min(noiseFloorDb, rms);
  });
  const rmsDb = energy > 0 ? Math.max(10 * Math.log10(energy / samples), SILENCE_DB) : SILENCE_DB;
  return {
    rmsDb,
    peakDb,
    noiseFloorDb,
    loudnessLufs: decibels(frames[frames.length - 1]['lavfi.r128.I']),
    durationMs: Math.round((samples / sampleRate) * 1000),
  };
}
