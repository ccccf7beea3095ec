import path from 'node:path';
import type { Writable } from 'node:stream';
import { run, type RunOptions, type RunResult } from '../lib/process';

/** The flags every call here starts with: no prompts on stdin, no banner or progress, errors only, overwrite. */
export const FFMPEG_QUIET: readonly string[] = ['-nostdin', '-hide_banner', '-nostats', '-v', 'error', '-y'];

/**
 * ffmpeg with the flags every call here wants. Each start costs ~0.1-0.2 s,
 * so callers chain their filters into one call.
 */
export function ffmpeg(
  args: readonly string[],
  signal?: AbortSignal,
  input?: RunOptions['input'],
  output?: Writable,
): Promise<RunResult> {
  // -nostdin keeps ffmpeg from reading commands on stdin; an `input` is read as pipe:0 regardless.
  return run('ffmpeg', [...FFMPEG_QUIET, ...args], {
    signal,
    timeoutMs: 600_000,
    input,
    output,
  });
}

/** A local path as an ffmpeg URL: `file:` keeps a name with a colon from being read as a protocol. */
export function fileUrl(file: string): string {
  return `file:${path.resolve(file)}`;
}

/** Input options for raw 16-bit mono PCM on stdin at `sampleRate`. */
export function rawPcmInput(sampleRate: number): string[] {
  return ['-f', 's16le', '-ar', String(sampleRate), '-ac', '1', '-i', 'pipe:0'];
}

/** The last arguments for a mono 16-bit PCM WAV at `sampleRate` in `outPath`, without the input's metadata. */
export function monoWavOutput(sampleRate: number, outPath: string): string[] {
  return [
    '-ar',
    String(sampleRate),
    '-ac',
    '1',
    '-c:a',
    'pcm_s16le',
    '-map_metadata',
    '-1',
    '-f',
    'wav',
    fileUrl(outPath),
  ];
}

/** Output options that make the same input give the same bytes: no metadata, no encoder tag or random stream serial. */
export const REPRODUCIBLE_OUTPUT: readonly string[] = [
  '-map_metadata',
  '-1',
  '-fflags',
  '+bitexact',
  '-flags:a',
  '+bitexact',
];
