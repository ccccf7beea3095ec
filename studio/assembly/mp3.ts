import { fileUrl } from '../../audio/ffmpeg';

/** Every delivered file is 44.1 kHz mono (ACX's rate). */
export const MASTER_RATE = 44_100;

/** Output arguments of an ACX MP3: 192 kbps constant bit rate, 44.1 kHz mono. */
export function mp3Output(outPath: string): string[] {
  return ['-ar', String(MASTER_RATE), '-ac', '1', '-c:a', 'libmp3lame', '-b:a', '192k', '-f', 'mp3', fileUrl(outPath)];
}
