import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { analyseAudio, type AudioAnalysis, probeFormat } from '../../audio/analysis';
import { finishAudio, type FinishAudioInput, type Voicing } from '../../audio/finish';
import { type Emotion, EMOTION_PRESETS, EMOTIONS, type OutputFormat } from '../../audio/prosody';
import { renderChunk } from '../../audio/render';
import { splitText } from '../../engines/text';
import { readWavInfo, silenceWav } from '../../audio/wav';
import { findPremadeVoice, type PremadeVoice } from '../../engines/catalog';
import { createPiperEngine } from '../../engines/piper';
import { createEngines, type EngineRegistry } from '../../engines/registry';
import { defaultModelsDir } from '../../lib/config';
import { eventually } from '../helpers/eventually';
import { useTempFiles } from '../helpers/tempFiles';

/**
 * The audio pipeline measured, not just byte-checked: durations from decoded
 * samples, F0 by YIN, loudness by EBU R128, containers and codecs by ffprobe.
 * Needs ffmpeg and the engines (scripts/install.sh); no Temporal or database.
 */

// Piper without its sampling noise: its durations and pitch are then the same run to run.
const engines: EngineRegistry = new Map([
  ...createEngines({ enableNonFree: true }),
  ['piper', createPiperEngine({ modelsDir: process.env.MODELS_DIR ?? defaultModelsDir(), noise: false })] as const,
]);
const SENTENCE = 'The weather is lovely this morning.'; // six words
const file = useTempFiles('openvox-audio-test-');

/** Renders one chunk with its voicing (speed, pitch, emotion, profile); finish() must get the same voicing. */
async function chunk(voice: PremadeVoice, text: string, voicing: Partial<Voicing> = {}): Promise<string> {
  const outPath = file('wav');
  await renderChunk({ voice, text, emotion: 'neutral', ...voicing, outPath, engines });
  return outPath;
}

async function finish(
  chunks: string[],
  options: Partial<Omit<FinishAudioInput, 'chunks' | 'outPath'>> = {},
): Promise<{ analysis: AudioAnalysis; outPath: string; durationSeconds: number; contentType: string; bytes: number }> {
  const format = options.format ?? 'wav';
  const outPath = file(format);
  const result = await finishAudio({ speed: 1, pitch: 0, emotion: 'neutral', format, ...options, chunks, outPath });
  return { ...result, outPath, analysis: await analyseAudio(outPath) };
}

const semitones = (ratio: number) => 12 * Math.log2(ratio);
const log: string[] = [];

afterAll(() => {
  if (log.length) console.log(`audio measurements:\n${log.join('\n')}`);
});

// One voice per engine, en-us-slt first; the non-free ones where installed.
const VOICES = ['en-us-slt', 'en-us-joe', 'en-us-espeak-m', 'en-us-flite-rms', 'en-us-pico', 'en-us-rhvoice-bdl'];

describe('en-us-joe speed (length_scale through the measured curve, a stretch beyond it)', () => {
  const voice = findPremadeVoice('en-us-joe')!;
  // Not the calibration sentences of bench/piperSpeed.ts.
  const TEXT = 'A calm voice reads the morning news, one story after another, without hurry.';

  it('gives 1/s of the speed-1 duration within 3 % for speeds from 0.5 to 2', async () => {
    const duration = async (speed: number) =>
      (await finish([await chunk(voice, TEXT, { speed })], { speed })).durationSeconds;
    const base = await duration(1);
    const rows: string[] = [];
    for (const speed of [0.5, 0.6, 0.75, 0.9, 1.1, 1.25, 1.5, 1.75, 2]) {
      const error = ((await duration(speed)) / base) * speed - 1;
      rows.push(`${speed.toFixed(2)}: ${(error * 100).toFixed(1)} %`);
      expect([speed, Math.abs(error) <= 0.03]).toEqual([speed, true]);
    }
    log.push(`en-us-joe          speed -> duration error vs 1/s: ${rows.join(', ')}`);
  }, 60_000);
});

describe.each(VOICES)('%s through the pipeline', (id) => {
  const voice = findPremadeVoice(id)!;
  let present = false;
  let neutralChunk: string;
  let neutral: AudioAnalysis;

  beforeAll(async () => {
    present = (await engines.get(voice.engine)?.available()) ?? false;
    if (!present) return;
    neutralChunk = await chunk(voice, SENTENCE);
    neutral = (await finish([neutralChunk])).analysis;
  }, 30_000);

  const skipUnlessPresent = (): boolean => {
    if (!present)
      console.warn(
        `${voice.engine} not installed (non-free engines need ENABLE_NONFREE_ENGINES=true scripts/install.sh): skipped`,
      );
    return !present;
  };

  it('speaks a six-word sentence: decodes, plausible length, not silent, loudness-normalized', () => {
    if (skipUnlessPresent()) return;
    expect(neutral.durationSeconds).toBeGreaterThan(1);
    expect(neutral.durationSeconds).toBeLessThan(6);
    expect(neutral.silenceRatio).toBeLessThan(0.5);
    expect(neutral.activeRmsDb).toBeGreaterThan(-30);
    expect(neutral.f0MedianHz).not.toBeNull();
    expect(Math.abs(neutral.integratedLufs - -16)).toBeLessThan(2);
    log.push(
      `${id.padEnd(18)} neutral ${neutral.durationSeconds.toFixed(2)} s, F0 ${neutral.f0MedianHz!.toFixed(0)} Hz, spread ${neutral.f0StdSemitones!.toFixed(2)} st, ${neutral.integratedLufs} LUFS`,
    );
  });

  it('halves the duration at speed 2.0 and doubles it at 0.5, keeping the pitch', async () => {
    if (skipUnlessPresent()) return;
    const [fast, slow] = await Promise.all(
      [2, 0.5].map(async (speed) => (await finish([await chunk(voice, SENTENCE, { speed })], { speed })).analysis),
    );
    const fastRatio = fast.durationSeconds / neutral.durationSeconds;
    const slowRatio = slow.durationSeconds / neutral.durationSeconds;
    log.push(
      `${id.padEnd(18)} speed 2.0 -> x${fastRatio.toFixed(3)} duration, 0.5 -> x${slowRatio.toFixed(3)}; F0 ${fast.f0MedianHz!.toFixed(0)} / ${slow.f0MedianHz!.toFixed(0)} Hz`,
    );
    expect(fastRatio).toBeLessThanOrEqual(0.55);
    expect(slowRatio).toBeGreaterThanOrEqual(1.8);
    // Pitch stays (a time stretch smears periodicity, so YIN voices fewer frames at 2x: 2 st of slack).
    expect(Math.abs(semitones(fast.f0MedianHz! / neutral.f0MedianHz!))).toBeLessThan(2);
    expect(Math.abs(semitones(slow.f0MedianHz! / neutral.f0MedianHz!))).toBeLessThan(1);
  }, 30_000);

  it('doubles the median F0 at pitch +12 and halves it at -12, keeping the duration', async () => {
    if (skipUnlessPresent()) return;
    // A low voice an octave down (joe: 89 -> 45 Hz) reaches the floor of the YIN measurement (40 Hz): measure it 7 semitones down.
    const downShift = neutral.f0MedianHz! / 2 < 55 ? -7 : -12;
    const [up, down] = await Promise.all(
      [12, downShift].map(
        async (pitch) => (await finish([await chunk(voice, SENTENCE, { pitch })], { pitch })).analysis,
      ),
    );
    const upRatio = up.f0MedianHz! / neutral.f0MedianHz!;
    const downRatio = down.f0MedianHz! / neutral.f0MedianHz!;
    log.push(`${id.padEnd(18)} pitch +12 -> F0 x${upRatio.toFixed(3)}, ${downShift} -> x${downRatio.toFixed(3)}`);
    expect(upRatio).toBeGreaterThanOrEqual(1.8);
    // Rubber Band's R3 engine reads joe an octave up at x2.10-2.21 by this YIN (x2.00 at R2, and within 0.1 st of
    // the request at +4 to +9 for both): 1.8-2.3 still fails a missing shift (x1) or a doubled one (x4).
    expect(upRatio).toBeLessThanOrEqual(2.3);
    expect(downRatio).toBeGreaterThanOrEqual(0.9 * 2 ** (downShift / 12));
    expect(downRatio).toBeLessThanOrEqual(1.1 * 2 ** (downShift / 12));
    expect(Math.abs(up.durationSeconds / neutral.durationSeconds - 1)).toBeLessThan(0.05);
  }, 30_000);

  it('makes every emotion measurably different from neutral', async () => {
    if (skipUnlessPresent()) return;
    const others = EMOTIONS.filter((emotion) => emotion !== 'neutral');
    const results = await Promise.all(
      others.map(async (emotion) => ({
        emotion,
        analysis: (await finish([await chunk(voice, SENTENCE, { emotion })], { emotion })).analysis,
      })),
    );
    for (const { emotion, analysis } of results) {
      const differences = {
        duration: analysis.durationSeconds / neutral.durationSeconds - 1,
        f0Semitones: semitones(analysis.f0MedianHz! / neutral.f0MedianHz!),
        spreadSemitones: analysis.f0StdSemitones! - neutral.f0StdSemitones!,
        loudnessLu: analysis.integratedLufs - neutral.integratedLufs,
      };
      log.push(
        `${id.padEnd(18)} ${emotion.padEnd(8)} duration ${(differences.duration * 100).toFixed(1)} %, F0 ${differences.f0Semitones.toFixed(2)} st, spread ${differences.spreadSemitones.toFixed(2)} st, loudness ${differences.loudnessLu.toFixed(1)} LU`,
      );
      const clear =
        Math.abs(differences.duration) >= 0.07 ||
        Math.abs(differences.f0Semitones) >= 1 ||
        Math.abs(differences.spreadSemitones) >= 0.75 ||
        Math.abs(differences.loudnessLu) >= 2;
      expect([emotion, differences, clear]).toEqual([emotion, differences, true]);
    }
  }, 60_000);
});

describe('output formats', () => {
  const expected: Record<OutputFormat, { container: string; codec: string; contentType: string }> = {
    wav: { container: 'wav', codec: 'pcm_s16le', contentType: 'audio/wav' },
    mp3: { container: 'mp3', codec: 'mp3', contentType: 'audio/mpeg' },
    ogg: { container: 'ogg', codec: 'opus', contentType: 'audio/ogg' },
    flac: { container: 'flac', codec: 'flac', contentType: 'audio/flac' },
  };
  let chunks: string[];

  beforeAll(async () => {
    chunks = [await chunk(findPremadeVoice('en-us-espeak-f')!, SENTENCE)];
  });

  it.each(Object.keys(expected) as OutputFormat[])(
    '%s: right container, codec, content type, size and duration',
    async (format) => {
      const result = await finish(chunks, { format });
      const probe = await probeFormat(result.outPath);
      expect(probe).toMatchObject({
        container: expected[format].container,
        codec: expected[format].codec,
        channels: 1,
      });
      if (format !== 'ogg') expect(probe!.sampleRate).toBe(24_000); // Opus always decodes at 48 kHz
      expect(result.contentType).toBe(expected[format].contentType);
      expect(result.bytes).toBe((await readFile(result.outPath)).length);
      // The reported duration is the decoded one (encoder padding aside).
      expect(Math.abs(result.durationSeconds - result.analysis.durationSeconds)).toBeLessThan(0.08);
      expect(result.analysis.f0MedianHz).toBeGreaterThan(150);
    },
  );

  it('stops both the encoder and the meter of a lossy format when the finish is aborted', async () => {
    // This jest worker's live ffmpeg children.
    const ffmpegPids = async () => {
      const pids = new Set<string>();
      for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
        // /proc/<pid>/stat: "pid (comm) state ppid ..."
        const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
        const match = /^\d+ \((.*)\) (\S+) (\d+)/.exec(stat);
        // A zombie (Z) has ended; only its exit status waits to be collected.
        if (match && match[1] === 'ffmpeg' && match[2] !== 'Z' && Number(match[3]) === process.pid) pids.add(pid);
      }
      return pids;
    };
    // The worker runs other suites' code before this one: a spare stream encoder an earlier suite's API started
    // is its child too, alive until retired. Only processes started after this point are the finish's: the encoder
    // and the true-peak meter, side by side.
    const before = await ffmpegPids();
    const ffmpegChildren = async () => [...(await ffmpegPids())].filter((pid) => !before.has(pid)).length;
    const abort = new AbortController();
    // Many minutes of audio, so that both processes are still running when the abort comes (with 120 chunks the
    // encoder, which ends before the meter, had sometimes finished between the wait below and its check).
    const finishing = finishAudio({
      chunks: Array<string>(360).fill(chunks[0]),
      speed: 1,
      pitch: 0,
      emotion: 'neutral',
      format: 'ogg',
      outPath: file('ogg'),
      signal: abort.signal,
    });
    let settled = false;
    finishing.then(
      () => (settled = true),
      () => (settled = true),
    );
    // The loudness pass over these minutes of audio comes first, in JavaScript; on a machine loaded by other
    // suites it took over a minute, so the wait is bounded by the test's own time, and it ends early, failing,
    // if the finish ended before both processes were seen.
    // Seen both running (a second count could already miss an encoder that a loaded machine let finish).
    await eventually(
      'the encoder and the meter',
      async () => {
        if (settled) throw new Error('the finish ended before the encoder and the meter were seen running together');
        return (await ffmpegChildren()) === 2;
      },
      200_000,
    );
    abort.abort();
    await expect(finishing).rejects.toThrow(/aborted/);
    await eventually('both ffmpeg processes to end', async () => (await ffmpegChildren()) === 0, 20_000);
    expect(await ffmpegChildren()).toBe(0);
  }, 240_000);

  it('encodes the same chunks to the same bytes every time (retries are idempotent)', async () => {
    for (const format of ['wav', 'mp3', 'ogg', 'flac'] as const) {
      const [first, second] = [await finish(chunks, { format }), await finish(chunks, { format })];
      expect((await readFile(first.outPath)).equals(await readFile(second.outPath))).toBe(true);
    }
  }, 30_000);
});

describe('the pipeline around the engines', () => {
  const espeak = findPremadeVoice('en-us-espeak-m')!;

  it('joins chunks in order with a short pause between them', async () => {
    const text =
      'First comes the opening line. Then a second sentence follows it. Finally the third one ends the paragraph.';
    const parts = splitText(text, 45);
    expect(parts).toHaveLength(3);
    const paths = await Promise.all(parts.map((part) => chunk(espeak, part)));
    const seconds = await Promise.all(paths.map(async (chunkPath) => (await readWavInfo(chunkPath)).durationSeconds));
    const joined = await finish(paths, { pauseSeconds: 0.4 });
    const expectedSeconds = seconds.reduce((sum, value) => sum + value, 0) + 2 * 0.4;
    expect(Math.abs(joined.durationSeconds - expectedSeconds)).toBeLessThan(0.05);
    expect(Math.abs(joined.analysis.durationSeconds - joined.durationSeconds)).toBeLessThan(0.01);
    for (const chunkPath of paths)
      expect(await readWavInfo(chunkPath)).toMatchObject({ sampleRate: 24_000, channels: 1, bitsPerSample: 16 });
  }, 30_000);

  it('speaks markup and shell syntax through renderChunk and runs nothing', async () => {
    const sentinel = path.join(os.tmpdir(), `openvox-pwned-audio-${process.pid}`);
    const hostile = `<speak>hello</speak> <break time="5s"/> $(touch ${sentinel}); touch ${sentinel} \`touch ${sentinel}\``;
    for (const id of ['en-us-slt', 'en-us-espeak-m', 'en-us-flite-slt']) {
      const voice = findPremadeVoice(id)!;
      const plain = await readWavInfo(await chunk(voice, 'hello'));
      const spoken = await readWavInfo(await chunk(voice, hostile));
      expect(spoken.durationSeconds).toBeGreaterThan(plain.durationSeconds * 4);
    }
    expect(existsSync(sentinel)).toBe(false);
  }, 30_000);

  it('renders a punctuation-only chunk as a beat of silence', async () => {
    const result = await renderChunk({
      voice: espeak,
      text: ' ?! … ',
      speed: 1,
      emotion: 'neutral',
      outPath: file('wav'),
      engines,
    });
    expect(result.durationSeconds).toBeCloseTo(0.1, 3);
  });

  it('applies a voice profile: extra pitch shift and an EQ curve', async () => {
    const profile = {
      semitones: 12,
      eq: [
        { hz: 200, gainDb: -6 },
        { hz: 3000, gainDb: 6 },
      ],
    };
    const plain = (await finish([await chunk(espeak, SENTENCE)])).analysis;
    const shifted = (await finish([await chunk(espeak, SENTENCE, { profile })], { profile })).analysis;
    expect(shifted.f0MedianHz! / plain.f0MedianHz!).toBeGreaterThan(1.8);
    expect(shifted.f0MedianHz! / plain.f0MedianHz!).toBeLessThan(2.2);
    expect(Math.abs(shifted.durationSeconds - plain.durationSeconds)).toBeLessThan(0.1);
  }, 30_000);

  it('rejects out-of-range requests before running anything', async () => {
    await expect(
      renderChunk({ voice: espeak, text: 'hi', speed: 3, emotion: 'neutral', outPath: file('wav'), engines }),
    ).rejects.toThrow(/^speed/);
    await expect(
      finishAudio({ chunks: [], speed: 1, pitch: 0, emotion: 'neutral', format: 'wav', outPath: file('wav') }),
    ).rejects.toThrow(RangeError);
    await expect(
      finishAudio({
        chunks: ['x'],
        speed: 1,
        pitch: 0,
        emotion: 'neutral',
        format: 'aac' as OutputFormat,
        outPath: file('aac'),
      }),
    ).rejects.toThrow(/output_format/);
  });

  it('leaves no temporary files behind, also when an engine fails', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'openvox-tmpdir-'));
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const chunkPath = file('wav');
      await renderChunk({ voice: espeak, text: SENTENCE, speed: 1.5, emotion: 'happy', outPath: chunkPath, engines });
      await finishAudio({
        chunks: [chunkPath, chunkPath],
        speed: 1.5,
        pitch: 3,
        emotion: 'happy',
        format: 'mp3',
        outPath: file('mp3'),
      });
      const broken = { ...espeak, engineVoice: 'xx-none' };
      await expect(
        renderChunk({ voice: broken, text: SENTENCE, speed: 1, emotion: 'neutral', outPath: file('wav'), engines }),
      ).rejects.toThrow(/espeak-ng/);
      expect(await readdir(tmp)).toEqual([]);
    } finally {
      process.env.TMPDIR = previous;
      await rm(tmp, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('analysis', () => {
  it('measures the duration from decoded samples, never from the header', async () => {
    const wav = file('wav');
    await writeFile(wav, silenceWav(4));
    await truncate(wav, 44 + 24_000 * 2); // header still says 4 s; 1 s of samples remains
    const analysis = await analyseAudio(wav, { strict: false });
    expect(analysis.durationSeconds).toBeCloseTo(1, 2);
    expect(analysis.silenceRatio).toBe(1);
    expect(analysis.f0MedianHz).toBeNull();
  });

  it('finds no audio stream in a text file', async () => {
    const text = file('txt');
    await writeFile(text, 'not audio at all\n');
    expect(await probeFormat(text)).toBeNull();
    await expect(analyseAudio(text)).rejects.toThrow(/ffmpeg/);
  });
});

describe("an emotion's pitch", () => {
  // Several sentences: a one-sentence median F0 moves by a few tenths of a semitone with the rate alone.
  const TEXT =
    'The weather is lovely this morning. Please call me back when you get home tonight. The train leaves every hour.';
  const medianF0 = async (id: string, emotion: Emotion) => {
    const voice = findPremadeVoice(id)!;
    return (await finish([await chunk(voice, TEXT, { emotion })], { emotion })).analysis.f0MedianHz!;
  };

  it('is set by an engine that moves its own intonation (Flite) and left out where it would take the shifter (Festival HTS)', async () => {
    const { semitones: preset } = EMOTION_PRESETS.happy;
    const [fliteNeutral, fliteHappy, htsNeutral, htsHappy] = await Promise.all([
      medianF0('en-us-flite-slt', 'neutral'),
      medianF0('en-us-flite-slt', 'happy'),
      medianF0('en-us-slt', 'neutral'),
      medianF0('en-us-slt', 'happy'),
    ]);
    log.push(
      `happy (${preset} st): flite slt F0 ${semitones(fliteHappy / fliteNeutral).toFixed(2)} st, Festival HTS slt ${semitones(htsHappy / htsNeutral).toFixed(2)} st`,
    );
    expect(preset).toBeGreaterThan(0.5);
    expect(Math.abs(semitones(fliteHappy / fliteNeutral) - preset)).toBeLessThan(0.5);
    expect(Math.abs(semitones(htsHappy / htsNeutral))).toBeLessThan(0.3);
  }, 60_000);
});
