import { open } from 'node:fs/promises';
import { fileUrl } from '../../audio/ffmpeg';
import { readWavInfo } from '../../audio/wav';

/** Every delivered file is 44.1 kHz mono (ACX's rate). */
export const MASTER_RATE = 44_100;

/** Samples per MPEG-1 Layer III frame. */
export const MP3_FRAME_SAMPLES = 1152;

/**
 * Output arguments of an ACX MP3: 192 kbps constant bit rate, 44.1 kHz mono,
 * with LAME's fast algorithm (`-q 7`): at this rate for mono speech it keeps
 * the waveform as well as the default `-q 3` (30.5 dB SNR either way on 11
 * minutes of en-us-joe) for about half the CPU.
 */
export function mp3Output(outPath: string): string[] {
  return [
    ...['-ar', String(MASTER_RATE), '-ac', '1', '-c:a', 'libmp3lame', '-b:a', '192k', '-compression_level', '7'],
    ...['-f', 'mp3', fileUrl(outPath)],
  ];
}

/**
 * What an MP3's Info (or Xing) frame and LAME tag say: audio frames, and the
 * encoder's delay and padding in samples (0 and 0 without a LAME tag).
 */
export interface Mp3Frames {
  frames: number;
  delay: number;
  padding: number;
}

/**
 * The frame count and gapless delay and padding of an MP3 this service
 * encoded (ffmpeg's libmp3lame writes them in the Info frame after the ID3v2
 * tag), or null when the file does not carry them. Joined frame for frame,
 * such a file takes `frames × 1152` samples of the whole, so a book's MP3
 * can be its chapters' MP3s joined without encoding them again.
 */
export async function mp3Frames(file: string): Promise<Mp3Frames | null> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(10);
    await handle.read(head, 0, 10, 0);
    // An ID3v2 tag's size is four 7-bit bytes, after its 10-byte header.
    const tagBytes =
      head.toString('latin1', 0, 3) === 'ID3' ? 10 + ((head[6] << 21) | (head[7] << 14) | (head[8] << 7) | head[9]) : 0;
    const frame = Buffer.alloc(256);
    const { bytesRead } = await handle.read(frame, 0, frame.length, tagBytes);
    // MPEG-1 Layer III without CRC; the Info tag follows the 4-byte header and the side information (17 bytes mono, 32 else).
    if (bytesRead < 192 || frame[0] !== 0xff || frame[1] !== 0xfb) return null;
    const at = 4 + (frame[3] >> 6 === 3 ? 17 : 32);
    const id = frame.toString('latin1', at, at + 4);
    if (id !== 'Info' && id !== 'Xing') return null;
    const flags = frame.readUInt32BE(at + 4);
    if ((flags & 1) === 0) return null;
    const frames = frame.readUInt32BE(at + 8);
    // After the flags, the fields they announce (frames 4 bytes, bytes 4, a 100-byte TOC, quality 4), then the
    // LAME tag (its encoder's name first); the delay and padding are two 12-bit values at its byte 21.
    const lame = at + 8 + 4 + (flags & 2 ? 4 : 0) + (flags & 4 ? 100 : 0) + (flags & 8 ? 4 : 0);
    if (!/^(LAME|Lavc|Lavf|L3.9)/.test(frame.toString('latin1', lame, lame + 4)))
      return { frames, delay: 0, padding: 0 };
    const delay = (frame[lame + 21] << 4) | (frame[lame + 22] >> 4);
    const padding = ((frame[lame + 22] & 0x0f) << 8) | frame[lame + 23];
    return { frames, delay, padding };
  } finally {
    await handle.close();
  }
}

/**
 * The samples a chapter's WAV spans in MP3s joined frame for frame: its
 * MP3's whole frames, when the MP3 was encoded from it (the WAV holds as
 * many samples, once lengthened, or as many less the encoder's delay and
 * padding, as encoded); null for an MP3 without its frame count, or one
 * made from other audio.
 */
export async function mp3SpanOf(mp3Path: string, wavPath: string): Promise<number | null> {
  const frames = await mp3Frames(mp3Path);
  if (!frames) return null;
  const { sampleRate, durationSeconds } = await readWavInfo(wavPath);
  const span = frames.frames * MP3_FRAME_SAMPLES;
  const samples = Math.round(durationSeconds * sampleRate);
  if (sampleRate !== MASTER_RATE || (samples !== span && samples !== span - frames.delay - frames.padding)) return null;
  return span;
}
