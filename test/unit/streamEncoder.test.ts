import childProcess, { type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { completeFlacStreamInfo, flacTotalSamples } from '../../audio/flac';
import { run } from '../../lib/process';
import { createStreamEncoder, stopSpareEncoders } from '../../api/routes/openai/stream';

/**
 * The streaming endpoint's encoders: a request takes the encoder process
 * started ahead for its format, and the next one starts only once that
 * request's first audio is out. Real ffmpeg; spawn is watched, not replaced.
 */
const spawn = jest.spyOn(childProcess, 'spawn');
/** The processes started since the last clear. */
const spawned = (): ChildProcess[] => spawn.mock.results.map((result) => result.value as ChildProcess);

afterAll(() => {
  stopSpareEncoders();
  spawn.mockRestore();
});

/** One second of a 440 Hz tone, 24 kHz mono 16-bit. */
const tone = () =>
  Buffer.from(
    Int16Array.from({ length: 24_000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24_000))).buffer,
  );

async function encode(): Promise<Buffer> {
  const encoder = createStreamEncoder('mp3');
  const bytes: Buffer[] = [];
  encoder.output.on('data', (piece: Buffer) => bytes.push(piece));
  await encoder.write(tone());
  await encoder.end();
  return Buffer.concat(bytes);
}

const isMp3 = (bytes: Buffer) => bytes.length > 1000 && bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0;
/** Past the moment the next spare starts (100 ms after a stream's first write). */
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 300));

test('a stream takes the encoder started ahead for its format, and the next one starts after its first audio is written', async () => {
  stopSpareEncoders();
  spawn.mockClear();
  expect(isMp3(await encode())).toBe(true);
  await nextTurn();
  // Its own encoder and, once its first bytes were out, the spare.
  expect(spawned()).toHaveLength(2);
  const spare = spawned()[1];
  expect(spare.exitCode).toBeNull();

  spawn.mockClear();
  expect(isMp3(await encode())).toBe(true);
  // The spare did the work: it has exited after its input ended, and only the next spare was started.
  expect(spare.exitCode).toBe(0);
  await nextTurn();
  expect(spawned()).toHaveLength(1);
});

test('stopping the spares ends their processes', async () => {
  expect(isMp3(await encode())).toBe(true);
  await nextTurn();
  const spare = spawned().at(-1)!;
  expect(spare.exitCode).toBeNull();
  stopSpareEncoders();
  await once(spare, 'exit');
  expect(spare.signalCode).toBe('SIGKILL');
});

describe('FLAC of a known length', () => {
  const probe = async (bytes: Buffer) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'openvox-flac-'));
    try {
      const file = path.join(dir, 'audio.flac');
      await writeFile(file, bytes);
      const { stdout } = await run('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'stream=duration,duration_ts',
        '-of',
        'json',
        file,
      ]);
      const [stream] = JSON.parse(stdout.toString()).streams as Array<{ duration?: string; duration_ts?: number }>;
      // The decoder checks the samples against STREAMINFO's MD5 (an error when they differ).
      const { stderr } = await run('ffmpeg', [
        '-v',
        'error',
        '-err_detect',
        'crccheck+bitstream',
        '-i',
        file,
        '-f',
        'null',
        '-',
      ]);
      return {
        seconds: stream.duration === undefined ? null : Number(stream.duration),
        decodeErrors: stderr.toString().trim(),
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
  const encodeFlac = async (whole: boolean) => {
    const encoder = createStreamEncoder('flac', { whole });
    const bytes: Buffer[] = [];
    encoder.output.on('data', (piece: Buffer) => bytes.push(piece));
    const ended = once(encoder.output, 'end');
    await encoder.write(tone());
    await encoder.write(tone().subarray(0, 24_000));
    await encoder.end();
    await ended;
    return Buffer.concat(bytes);
  };

  test('a whole answer has a complete STREAMINFO: its total sample count and MD5', async () => {
    const bytes = await encodeFlac(true);
    expect(flacTotalSamples(bytes)).toBe(36_000);
    const md5 = createHash('md5')
      .update(Buffer.concat([tone(), tone().subarray(0, 24_000)]))
      .digest();
    expect(bytes.subarray(26, 42)).toEqual(md5);
    expect(await probe(bytes)).toEqual({ seconds: 1.5, decodeErrors: '' });
  });

  test('a true stream cannot know it (0: unknown), and still decodes', async () => {
    const bytes = await encodeFlac(false);
    expect(flacTotalSamples(bytes)).toBe(0);
    expect((await probe(bytes)).decodeErrors).toBe('');
  });

  test('completeFlacStreamInfo refuses what is not FLAC', () => {
    expect(() => completeFlacStreamInfo(Buffer.alloc(64), 1, Buffer.alloc(16))).toThrow(RangeError);
  });
});
