import type { Writable } from 'node:stream';
import { FFMPEG_QUIET } from '../../audio/ffmpeg';
import { run, type RunResult } from '../../lib/process';
import { STUDIO_NICENESS } from '../conversion';

/**
 * ffmpeg for a book's assembly: the usual quiet flags, one thread for the
 * filter graphs (the encoders used here have one anyway), and the lower CPU
 * priority of a book's work (STUDIO_NICENESS, as its engine processes).
 */
export function studioFfmpeg(args: readonly string[], signal?: AbortSignal, output?: Writable): Promise<RunResult> {
  return run('ffmpeg', [...FFMPEG_QUIET, '-filter_threads', '1', '-filter_complex_threads', '1', ...args], {
    signal,
    timeoutMs: 600_000,
    output,
    niceness: STUDIO_NICENESS,
  });
}
