import { ProcessError, run } from '../../lib/process';
import { ANALYSIS_RATE } from '../analysis';
import { FFMPEG_QUIET, fileUrl, monoWavOutput } from '../ffmpeg';
import { integratedLoudness } from '../loudness';
import { DEMUXERS, type SampleFormat, sniffAudioFile } from './sniff';
import { detectSpeech, readPcm16Wav } from './speech';

/**
 * Intake of an uploaded voice sample: decode whatever supported container it
 * is to 16 kHz mono WAV, measure the duration from the decoded samples, and
 * check that it holds speech. Headers are never trusted: a truncated MP3,
 * FLAC or WAV still claims its full length. Measured with ffmpeg 5.1 here: a
 * truncated MP3 or Ogg decodes with exit 0 even under -xerror, while a
 * truncated WAV or FLAC fails at the cut under -xerror (and decodes to the
 * cut without it).
 */

type IntakeErrorCode = 'audio_unreadable' | 'audio_too_short' | 'audio_too_long' | 'no_speech_detected';

export interface IntakeOptions {
  /** Longest accepted sample, seconds (decoding stops just past it). Default 300. */
  maxSeconds?: number;
  /** Shortest accepted sample, seconds. Default 3. */
  minSeconds?: number;
  /** Least voiced speech (YIN-voiced frames), seconds. Default 1. */
  minVoicedSeconds?: number;
  signal?: AbortSignal;
}

export interface IntakeAccepted {
  ok: true;
  /** Decoded duration, seconds. */
  seconds: number;
  format: SampleFormat;
  /** The file ended mid-stream (cut short); `seconds` is what could be decoded. */
  truncated: boolean;
  /** Frames above the energy VAD threshold, seconds. */
  speechSeconds: number;
  /** Frames YIN found voiced, seconds. */
  voicedSeconds: number;
  /** speechSeconds / seconds. */
  speechRatio: number;
  /** Share of samples at (or within 0.2 dB of) full scale; above ~0.001 the sample is audibly clipped. */
  clippingRatio: number;
  peakDb: number;
  /** RMS of the speech frames, dBFS. */
  activeRmsDb: number;
  /** BS.1770 integrated loudness, LUFS. */
  integratedLufs: number;
  f0MedianHz: number | null;
}

interface IntakeRejected {
  ok: false;
  code: IntakeErrorCode;
  /** For the voice's `error.message`: says what was wrong without echoing the file. */
  message: string;
  /** Decoded duration when decoding got that far. */
  seconds?: number;
}

export type IntakeResult = IntakeAccepted | IntakeRejected;

const reject = (code: IntakeErrorCode, message: string, seconds?: number): IntakeRejected => ({
  ok: false,
  code,
  message,
  ...(seconds === undefined ? {} : { seconds }),
});

/** A sample this steady in pitch is a tone or a hum, not speech (speech varies by 2-4 semitones). */
const MIN_F0_STD_SEMITONES = 0.5;

/**
 * Decodes `inputPath` to `outWavPath` (16 kHz mono s16le WAV, at most
 * maxSeconds + 1 s of it) and checks it. Infrastructure failures (ffmpeg
 * missing, abort) throw; everything about the file itself is a result.
 */
export async function intakeSample(
  inputPath: string,
  outWavPath: string,
  options: IntakeOptions = {},
): Promise<IntakeResult> {
  const maxSeconds = options.maxSeconds ?? 300;
  const minSeconds = options.minSeconds ?? 3;
  const minVoicedSeconds = options.minVoicedSeconds ?? 1;

  const format = await sniffAudioFile(inputPath);
  if (!format)
    return reject(
      'audio_unreadable',
      'The file is not WAV, MP3, OGG (Vorbis or Opus), FLAC or M4A (AAC or ALAC) audio.',
    );

  // Strict first: -xerror stops at the first damaged packet. A file cut short (an interrupted recording or copy) fails
  // that way too, at its end; then a lenient decode that gets no further than ~0.5 s past the strict one is a truncation,
  // and the decodable part is used. Damage ffmpeg detects earlier in the file makes it unreadable.
  let truncated = false;
  if (!(await decode(inputPath, format, outWavPath, maxSeconds, true, options.signal))) {
    const strictSamples = (await readPcm16Wav(outWavPath).catch(() => null))?.samples.length ?? 0;
    if (!(await decode(inputPath, format, outWavPath, maxSeconds, false, options.signal))) {
      return reject(
        'audio_unreadable',
        `The ${format.toUpperCase()} file could not be decoded (damaged or not the audio it claims to be).`,
      );
    }
    const lenientSamples = (await readPcm16Wav(outWavPath))?.samples.length ?? 0;
    if (lenientSamples - strictSamples > 0.5 * ANALYSIS_RATE) {
      const at = (strictSamples / ANALYSIS_RATE).toFixed(1);
      return reject(
        'audio_unreadable',
        `The ${format.toUpperCase()} file is damaged: decoding fails ${at} s into the audio.`,
      );
    }
    truncated = true;
  }

  const decoded = await readPcm16Wav(outWavPath);
  const samples = decoded?.samples ?? new Float32Array(0);
  const seconds = samples.length / ANALYSIS_RATE;
  if (samples.length === 0) return reject('audio_unreadable', 'The file holds no decodable audio.', 0);
  if (seconds > maxSeconds)
    return reject(
      'audio_too_long',
      `The sample is longer than ${maxSeconds} s; upload at most ${maxSeconds} s of audio.`,
      seconds,
    );
  if (seconds < minSeconds)
    return reject(
      'audio_too_short',
      `The sample is ${seconds.toFixed(1)} s long; at least ${minSeconds} s of audio is needed.`,
      seconds,
    );

  const speech = detectSpeech(samples, ANALYSIS_RATE);
  if (speech.voicedSeconds < minVoicedSeconds) {
    return reject(
      'no_speech_detected',
      `Found ${speech.voicedSeconds.toFixed(1)} s of voiced speech; at least ${minVoicedSeconds} s is needed.`,
      seconds,
    );
  }
  if ((speech.f0StdSemitones ?? 0) < MIN_F0_STD_SEMITONES) {
    return reject('no_speech_detected', 'The sample is a steady tone, not speech.', seconds);
  }
  return {
    ok: true,
    seconds,
    format,
    truncated,
    speechSeconds: speech.speechSeconds,
    voicedSeconds: speech.voicedSeconds,
    speechRatio: speech.speechSeconds / seconds,
    clippingRatio: speech.clippingRatio,
    peakDb: speech.peakDb,
    activeRmsDb: speech.activeRmsDb,
    integratedLufs: integratedLoudness(samples, ANALYSIS_RATE),
    f0MedianHz: speech.f0MedianHz,
  };
}

/** One ffmpeg decode to 16 kHz mono s16le WAV; false when ffmpeg failed on the file. */
async function decode(
  inputPath: string,
  format: SampleFormat,
  outWavPath: string,
  maxSeconds: number,
  strict: boolean,
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    await run(
      'ffmpeg',
      [
        ...FFMPEG_QUIET,
        // Read local files only, with the demuxer the content names (no probing into playlists or other protocols).
        ...(strict ? ['-xerror'] : []),
        '-protocol_whitelist',
        'file',
        '-f',
        DEMUXERS[format],
        '-i',
        fileUrl(inputPath),
        '-map',
        '0:a:0',
        '-vn',
        '-sn',
        '-dn',
        // Past maxSeconds the answer is known: a tiny low-bitrate file that would decode to hours stops here.
        '-t',
        String(maxSeconds + 1),
        '-af',
        `aformat=channel_layouts=mono,aresample=${ANALYSIS_RATE}:resampler=soxr`,
        '-fflags',
        '+bitexact',
        ...monoWavOutput(ANALYSIS_RATE, outWavPath),
      ],
      { signal, timeoutMs: 120_000 },
    );
    return true;
  } catch (error) {
    if (signal?.aborted) throw error;
    // Not installed: the worker's fault, not the file's.
    if (error instanceof ProcessError && error.exitCode === null && /not installed/.test(error.message)) throw error;
    return false;
  }
}
