import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type IntakeAccepted, type IntakeResult, intakeSample } from '../../audio/cloning/intake';
import { readWavInfo } from '../../audio/wav';

/**
 * Intake of uploaded samples, on files ffmpeg really encoded from an eSpeak
 * NG rendering: every accepted container decodes, durations come from the
 * decoded samples (a truncated file's header still claims the full length),
 * and unusable audio gets the API's error codes. Needs ffmpeg and espeak-ng.
 */

const TEXT =
  "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It's easy to tell the depth of a well. " +
  'These days a chicken leg is a rare dish. Rice is often served in round bowls.';

let dir: string;
let sourceSeconds: number;
let counter = 0;
const file = (name: string) => path.join(dir, name);
const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args]);
const headerSeconds = (name: string) =>
  Number(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file(name)])
      .toString()
      .trim(),
  );

async function intake(
  name: string,
  options: Parameters<typeof intakeSample>[2] = {},
): Promise<IntakeResult & { elapsedMs: number; outPath: string }> {
  const outPath = file(`intake-${++counter}.wav`);
  const started = Date.now();
  const result = await intakeSample(file(name), outPath, options);
  return { ...result, elapsedMs: Date.now() - started, outPath };
}

function accepted(result: IntakeResult): IntakeAccepted {
  if (!result.ok) throw new Error(`rejected: ${result.code} ${result.message}`);
  return result;
}

const FORMATS: Array<[string, string[], string]> = [
  ['speech.wav', ['-c:a', 'pcm_s16le'], 'wav'],
  ['speech.mp3', ['-c:a', 'libmp3lame', '-b:a', '64k'], 'mp3'],
  ['vorbis.ogg', ['-c:a', 'libvorbis'], 'ogg'],
  ['opus.ogg', ['-c:a', 'libopus', '-b:a', '32k'], 'ogg'],
  ['speech.flac', ['-c:a', 'flac'], 'flac'],
  ['aac.m4a', ['-c:a', 'aac', '-b:a', '64k'], 'm4a'],
  ['alac.m4a', ['-c:a', 'alac'], 'm4a'],
  ['stereo-44k.flac', ['-ac', '2', '-ar', '44100', '-c:a', 'flac'], 'flac'],
];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-intake-'));
  execFileSync('espeak-ng', ['-v', 'en-us', '-w', file('source.wav'), TEXT]);
  sourceSeconds = (await readWavInfo(file('source.wav'))).durationSeconds;
  for (const [name, codec] of FORMATS) ffmpeg('-i', file('source.wav'), ...codec, file(name));
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('intakeSample', () => {
  it.each(FORMATS.map(([name, , format]) => [name, format]))(
    'decodes %s to 16 kHz mono WAV with its true length',
    async (name, format) => {
      const result = await intake(name);
      const ok = accepted(result);
      expect(ok.format).toBe(format);
      expect(ok.truncated).toBe(false);
      // Lossy codecs add encoder delay and padding: tens of milliseconds.
      expect(Math.abs(ok.seconds - sourceSeconds)).toBeLessThan(0.1);
      const written = await readWavInfo(result.outPath);
      expect(written).toMatchObject({ sampleRate: 16_000, channels: 1, bitsPerSample: 16 });
      expect(written.durationSeconds).toBeCloseTo(ok.seconds, 3);
      expect(ok.voicedSeconds).toBeGreaterThan(2);
      expect(ok.f0MedianHz).toBeGreaterThan(80);
      expect(ok.f0MedianHz).toBeLessThan(140);
      expect(ok.integratedLufs).toBeGreaterThan(-30);
      expect(ok.integratedLufs).toBeLessThan(-10);
      expect(ok.clippingRatio).toBeLessThan(0.001);
    },
  );

  it.each(['speech.mp3', 'speech.flac', 'speech.wav'])(
    'measures a truncated %s by what decodes, not by its header',
    async (name) => {
      const cut = `cut-${name}`;
      await writeFile(file(cut), await readFile(file(name)));
      await truncate(file(cut), Math.floor((await stat(file(name))).size / 2));
      const ok = accepted(await intake(cut));
      expect(ok.seconds).toBeGreaterThan(sourceSeconds * 0.4);
      expect(ok.seconds).toBeLessThan(sourceSeconds * 0.6);
      if (name.endsWith('.wav')) {
        // The RIFF data size still claims every byte of the original.
        const bytes = await readFile(file(cut));
        const data = bytes.indexOf('data', 12, 'latin1');
        expect(bytes.readUInt32LE(data + 4) / (2 * 22_050)).toBeCloseTo(sourceSeconds, 1);
      } else {
        expect(headerSeconds(cut)).toBeGreaterThan(sourceSeconds * 0.95);
      }
    },
  );

  it('rejects 0.5 s as audio_too_short', async () => {
    ffmpeg('-i', file('source.wav'), '-t', '0.5', file('short.wav'));
    expect(await intake('short.wav')).toMatchObject({ ok: false, code: 'audio_too_short' });
  });

  it('rejects 10 minutes of silence quickly, decoding no more than 301 s', async () => {
    ffmpeg('-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '600', '-c:a', 'flac', file('silence.flac'));
    const result = await intake('silence.flac');
    expect(result.ok).toBe(false);
    expect(['audio_too_long', 'no_speech_detected']).toContain(!result.ok && result.code);
    expect((await readWavInfo(result.outPath)).durationSeconds).toBeLessThanOrEqual(301);
    expect(result.elapsedMs).toBeLessThan(15_000);
  });

  it('rejects a 6-minute 8 kbps MP3 as audio_too_long without decoding all of it', async () => {
    ffmpeg(
      '-stream_loop',
      '-1',
      '-i',
      file('source.wav'),
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=300:sample_rate=8000',
      '-filter_complex',
      '[0:a]aresample=8000[speech];[speech][1:a]amix=inputs=2:duration=shortest',
      '-t',
      '360',
      '-ar',
      '8000',
      '-ac',
      '1',
      '-c:a',
      'libmp3lame',
      '-b:a',
      '8k',
      file('long.mp3'),
    );
    expect((await stat(file('long.mp3'))).size).toBeLessThan(400_000);
    const result = await intake('long.mp3');
    expect(result).toMatchObject({ ok: false, code: 'audio_too_long' });
    // What was decoded stops just past the limit, and so does the time spent.
    expect((await readWavInfo(result.outPath)).durationSeconds).toBeLessThanOrEqual(301);
    expect(result.elapsedMs).toBeLessThan(15_000);
  });

  it('honours smaller limits', async () => {
    expect(await intake('speech.wav', { maxSeconds: 5 })).toMatchObject({ ok: false, code: 'audio_too_long' });
    expect(await intake('speech.wav', { minSeconds: 20 })).toMatchObject({ ok: false, code: 'audio_too_short' });
  });

  it('rejects a steady tone and white noise as no_speech_detected', async () => {
    ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=220:sample_rate=16000', '-t', '8', file('tone.wav'));
    ffmpeg('-f', 'lavfi', '-i', 'anoisesrc=color=white:amplitude=0.3:sample_rate=16000', '-t', '8', file('noise.wav'));
    expect(await intake('tone.wav')).toMatchObject({ ok: false, code: 'no_speech_detected' });
    expect(await intake('noise.wav')).toMatchObject({ ok: false, code: 'no_speech_detected' });
  });

  it('rejects a PNG named .wav, an empty file and a cut-off M4A as audio_unreadable', async () => {
    ffmpeg(
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=64x64',
      '-frames:v',
      '1',
      '-f',
      'image2',
      '-c:v',
      'png',
      file('image.wav'),
    );
    await writeFile(file('empty.mp3'), Buffer.alloc(0));
    // ffmpeg's M4A keeps its index (moov) at the end: half a file has no playable audio.
    await writeFile(file('cut.m4a'), (await readFile(file('aac.m4a'))).subarray(0, 20_000));
    for (const name of ['image.wav', 'empty.mp3', 'cut.m4a']) {
      expect(await intake(name)).toMatchObject({ ok: false, code: 'audio_unreadable' });
    }
  });

  it('reports clipping', async () => {
    // 26 dB of gain into 16-bit PCM: the peaks are cut at full scale.
    ffmpeg('-i', file('source.wav'), '-af', 'volume=20', '-c:a', 'pcm_s16le', file('clipped.wav'));
    expect(accepted(await intake('clipped.wav')).clippingRatio).toBeGreaterThan(0.01);
  });

  it('throws when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      intakeSample(file('speech.flac'), file('aborted.wav'), { signal: controller.signal }),
    ).rejects.toThrow();
  });
});
