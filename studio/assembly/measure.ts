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
 * on stdout (no report file to name and escape);
 * only the three astats values are asked for, so an hour is ~1 MB of text.
 */
export async function measureLevels(file: string, signal?: AbortSignal): Promise<LevelMeasure> {
  const sampleRate = 44_100;
  const windowSamples = Math.round(sampleRate * WINDOW_SECONDS);
  const graph = [
    `aresample=${sampleRate}`,
    'aformat=sample_fmts=flt:channel_layouts=mono',
    // ebur128 re-frames its output to 100 ms: the windows are cut after it.
    'ebur128=metadata=1',
    `asetnsamples=n=${windowSamples}:p=0`,
    'astats=metadata=1:reset=1:measure_perchannel=none:measure_overall=Peak_level+RMS_level+Number_of_samples',
    // pipe:1 is stdout; its colon escaped once for the graph, once for the filter's options.
    'ametadata=mode=print:file=pipe\\\\:1',
  ].join(',');
  const { stdout } = await ffmpeg(['-i', fileUrl(file), '-af', graph, '-f', 'null', '-'], signal);
  const frames: Record<string, string>[] = [];
  for (const line of stdout.toString('utf8').split('\n')) {
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
  let loudness: string | undefined;
  frames.forEach((frame, index) => {
    // A window carries the loudness of its first 100 ms frame, and a last partial one none: the latest seen counts.
    loudness = frame['lavfi.r128.I'] ?? loudness;
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
    loudnessLufs: decibels(loudness),
    durationMs: Math.round((samples / sampleRate) * 1000),
  };
}
