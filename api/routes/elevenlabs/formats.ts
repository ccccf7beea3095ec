import type { OutputFormat } from '../../../audio/prosody';
import { streamingWavHeader } from '../../../lib/wavFormat';
import type { ResponseFormat } from '../openai/schema';
import type { FfmpegEncoding } from '../openai/stream';

/**
 * ElevenLabs' `output_format` codes (`<codec>_<sample rate>[_<kbit/s>]`), all
 * 28 its SDK knows: each is made by the stream encoder from the engines'
 * 24 kHz audio (resampled by ffmpeg where the rate differs). `pcm_*`,
 * `ulaw_8000` and `alaw_8000` are headerless, as ElevenLabs sends them.
 */
export const OUTPUT_FORMATS = [
  'mp3_22050_32',
  'mp3_24000_48',
  'mp3_44100_32',
  'mp3_44100_64',
  'mp3_44100_96',
  'mp3_44100_128',
  'mp3_44100_192',
  'opus_48000_32',
  'opus_48000_64',
  'opus_48000_96',
  'opus_48000_128',
  'opus_48000_192',
  'pcm_8000',
  'pcm_16000',
  'pcm_22050',
  'pcm_24000',
  'pcm_32000',
  'pcm_44100',
  'pcm_48000',
  'wav_8000',
  'wav_16000',
  'wav_22050',
  'wav_24000',
  'wav_32000',
  'wav_44100',
  'wav_48000',
  'ulaw_8000',
  'alaw_8000',
] as const;
export type OutputFormatCode = (typeof OUTPUT_FORMATS)[number];
export const DEFAULT_OUTPUT_FORMAT: OutputFormatCode = 'mp3_44100_128';

export interface Encoding {
  /** What the stream encoder is given: one of its own formats (no resampling needed) or ffmpeg's options. */
  encoder: ResponseFormat | FfmpegEncoding;
  contentType: string;
  /** The format the history entry keeps (the nearest the service stores). */
  history: OutputFormat;
  /** An ffmpeg process per stream (counted against SPEECH_MAX_ENCODERS). */
  usesProcess: boolean;
}

const ffmpeg = (code: string, args: string[], prefix?: Buffer): FfmpegEncoding => ({
  key: `elevenlabs:${code}`,
  args,
  ...(prefix && { prefix }),
});

export function encodingOf(code: OutputFormatCode): Encoding {
  const [codec, rateText, kbps] = code.split('_');
  const rate = Number(rateText);
  const resample = ['-ar', rateText];
  switch (codec) {
    case 'mp3':
      return {
        // No Xing header (it could not be completed on a pipe), no ID3: frames from the first byte.
        encoder: ffmpeg(code, [
          ...resample,
          ...['-c:a', 'libmp3lame', '-b:a', `${kbps}k`, '-write_xing', '0', '-id3v2_version', '0', '-f', 'mp3'],
        ]),
        contentType: 'audio/mpeg',
        history: 'mp3',
        usesProcess: true,
      };
    case 'opus':
      return {
        encoder: ffmpeg(code, [
          ...resample,
          ...['-c:a', 'libopus', '-b:a', `${kbps}k`, '-application', 'voip', '-page_duration', '100000', '-f', 'ogg'],
        ]),
        contentType: 'audio/ogg; codecs=opus',
        history: 'ogg',
        usesProcess: true,
      };
    case 'pcm':
      return rate === 24_000
        ? { encoder: 'pcm', contentType: 'audio/pcm', history: 'wav', usesProcess: false }
        : {
            encoder: ffmpeg(code, [...resample, '-c:a', 'pcm_s16le', '-f', 's16le']),
            contentType: 'audio/pcm',
            history: 'wav',
            usesProcess: true,
          };
    case 'wav':
      return rate === 24_000
        ? { encoder: 'wav', contentType: 'audio/wav', history: 'wav', usesProcess: false }
        : {
            // ffmpeg's samples behind a header whose sizes say "unknown", as the service's own streamed WAV.
            encoder: ffmpeg(code, [...resample, '-c:a', 'pcm_s16le', '-f', 's16le'], streamingWavHeader(rate)),
            contentType: 'audio/wav',
            history: 'wav',
            usesProcess: true,
          };
    case 'ulaw':
      return {
        encoder: ffmpeg(code, [...resample, '-c:a', 'pcm_mulaw', '-f', 'mulaw']),
        contentType: 'audio/basic',
        history: 'wav',
        usesProcess: true,
      };
    default:
      return {
        encoder: ffmpeg(code, [...resample, '-c:a', 'pcm_alaw', '-f', 'alaw']),
        contentType: 'audio/x-alaw-basic',
        history: 'wav',
        usesProcess: true,
      };
  }
}
