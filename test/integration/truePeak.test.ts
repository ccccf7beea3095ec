import { writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { finishAudio } from '../../audio/finish';
import { type Emotion, type OutputFormat } from '../../audio/prosody';
import { renderChunk } from '../../audio/render';
import { CHUNK_SAMPLE_RATE } from '../../audio/wav';
import { wavHeader } from '../../lib/wavFormat';
import { findPremadeVoice } from '../../engines/catalog';
import { createEngines } from '../../engines/registry';
import { useTempFiles } from '../helpers/tempFiles';

/**
 * Issue 14: every output format at or under -1 dBTP, measured after
 * encoding by ffmpeg's ebur128 meter (peak=true, BS.1770 true peak), on the
 * inputs that pass it: inter-sample peaks the old sample-peak limiter let
 * through, a loud emotion, and a cloned voice's treble-boosting EQ.
 */

const FORMATS: OutputFormat[] = ['wav', 'mp3', 'ogg', 'flac'];
const engines = createEngines({ enableNonFree: false });
const file = useTempFiles('openvox-truepeak-');

/** A tone at a quarter of the sample rate, 45 degrees off: every sample 3 dB under the peaks between them. */
function interSampleTone(seconds: number, amplitude: number): Int16Array {
  const samples = new Int16Array(Math.round(seconds * CHUNK_SAMPLE_RATE));
  for (let i = 0; i < samples.length; i++)
    samples[i] = Math.round(amplitude * 32767 * Math.sin((Math.PI / 2) * i + Math.PI / 4));
  return samples;
}

async function writeChunk(samples: Int16Array): Promise<string> {
  const out = file('wav');
  await writeFile(
    out,
    Buffer.concat([
      wavHeader(samples.length, CHUNK_SAMPLE_RATE),
      Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength),
    ]),
  );
  return out;
}

/** EBU R128 -1 dBTP. */
const LIMIT_DB = -1;

/** ffmpeg's own meter, independent of the code under test: ebur128 with peak=true (BS.1770 true peak). */
async function ebur128TruePeak(audio: string): Promise<number> {
  const { stderr } = await promisify(execFile)('ffmpeg', [
    '-nostdin',
    '-hide_banner',
    '-nostats',
    '-v',
    'info',
    '-i',
    audio,
    '-af',
    'ebur128=peak=true:framelog=verbose',
    '-f',
    'null',
    '-',
  ]);
  const match = /True peak:\s*\n\s*Peak:\s*(-?inf|-?[\d.]+) dBFS/.exec(stderr);
  if (!match) throw new Error(`no true peak in: ${stderr.slice(-500)}`);
  return match[1].endsWith('inf') ? -Infinity : Number(match[1]);
}

/**
 * Speech-level content (-13.5 LUFS, brought to the angry preset's -12) with
 * short bursts whose samples stay 3 dB under their true peak: after the gain
 * their samples sit near -3 dBFS, under any sample-peak ceiling, while their
 * true peak passes 0 dBTP.
 */
function burstySignal(): Int16Array {
  const signal = new Int16Array(3 * CHUNK_SAMPLE_RATE);
  for (let i = 0; i < signal.length; i++)
    signal[i] = Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 1000 * i) / CHUNK_SAMPLE_RATE));
  const burst = interSampleTone(0.02, 0.85);
  for (const start of [0.5, 1.5, 2.5]) signal.set(burst, Math.round(start * CHUNK_SAMPLE_RATE));
  return signal;
}

describe.each(FORMATS)('%s output, measured after encoding', (format) => {
  const measured: Record<string, number> = {};
  afterAll(() => {
    if (process.env.TRUE_PEAK_REPORT) console.log(`true peak ${format}:`, measured);
  });

  it.each<[string, () => Promise<string[]>, Emotion, { eq?: { hz: number; gainDb: number }[] }]>([
    [
      'bursts whose peaks fall between samples (fs/4, 45 degrees off)',
      async () => [await writeChunk(burstySignal())],
      'angry',
      {},
    ],
    [
      "a loud emotion with a cloned voice's treble boost",
      async () => {
        const outPath = file('wav');
        const profile = {
          eq: [
            { hz: 200, gainDb: -6 },
            { hz: 2500, gainDb: 6 },
            { hz: 5000, gainDb: 12 },
            { hz: 9000, gainDb: 12 },
          ],
        };
        await renderChunk({
          voice: findPremadeVoice('en-us-espeak-m')!,
          text: 'Stop! Take this, right now, and go!',
          emotion: 'angry',
          profile,
          outPath,
          engines,
        });
        return [outPath];
      },
      'angry',
      {
        eq: [
          { hz: 200, gainDb: -6 },
          { hz: 2500, gainDb: 6 },
          { hz: 5000, gainDb: 12 },
          { hz: 9000, gainDb: 12 },
        ],
      },
    ],
  ])('%s: at most -1 dBTP', async (label, chunks, emotion, profile) => {
    const outPath = file(format);
    await finishAudio({ chunks: await chunks(), speed: 1, pitch: 0, emotion, format, outPath, profile });
    const peak = await ebur128TruePeak(outPath);
    measured[label] = peak;
    expect(peak).toBeLessThanOrEqual(LIMIT_DB);
  });
});
