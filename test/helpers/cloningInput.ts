import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readReply, type Reply } from './http';

/**
 * Inputs for the voice-cloning bad-input tests: spoken samples in every
 * accepted container (including Ogg Vorbis and M4A ALAC, which makeSample
 * does not make), unusable audio (too short, silent, hours long), non-audio
 * files, and hand-made multipart bodies (for what FormData cannot send).
 */

const run = promisify(execFile);

const TEXT =
  'This is my voice. I am reading a few sentences so that the service can learn how I sound. The weather was fine, and we walked along the river until the evening came.';

async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'openvox-sample-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const ffmpeg = (args: string[]) =>
  run('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args], { maxBuffer: 16 * 1024 * 1024 });

/** Every container/codec the API accepts (API.md: WAV, MP3, OGG Vorbis/Opus, FLAC, M4A AAC/ALAC). */
export const ENCODINGS = {
  wav: { ext: 'wav', args: ['-c:a', 'pcm_s16le'] },
  mp3: { ext: 'mp3', args: ['-c:a', 'libmp3lame', '-b:a', '64k'] },
  'ogg-vorbis': { ext: 'ogg', args: ['-c:a', 'libvorbis', '-q:a', '3'] },
  'ogg-opus': { ext: 'ogg', args: ['-c:a', 'libopus', '-b:a', '32k'] },
  flac: { ext: 'flac', args: ['-c:a', 'flac'] },
  'm4a-aac': { ext: 'm4a', args: ['-c:a', 'aac', '-b:a', '64k'] },
  'm4a-alac': { ext: 'm4a', args: ['-c:a', 'alac'] },
} as const;
export type Encoding = keyof typeof ENCODINGS;

/** Speech by espeak-ng (about 9 s), optionally cut to `seconds`, encoded as `encoding`. */
export async function speech(
  encoding: Encoding,
  { seconds, voice = 'en-us+m3', pitch = 50 }: { seconds?: number; voice?: string; pitch?: number } = {},
): Promise<Buffer> {
  return inTempDir(async (dir) => {
    const raw = path.join(dir, 'raw.wav');
    await run('espeak-ng', ['-v', voice, '-p', String(pitch), '-w', raw, TEXT]);
    const { ext, args } = ENCODINGS[encoding];
    const out = path.join(dir, `sample.${ext}`);
    await ffmpeg(['-i', raw, ...(seconds === undefined ? [] : ['-t', String(seconds)]), ...args, out]);
    return readFile(out);
  });
}

/** The ~9 s speech looped `times` (30 -> about 272 s, just under the 300 s limit), 48 kbps MP3 (~1.6 MB): a valid sample whose intake takes seconds. */
export async function longSpeechMp3(times: number): Promise<Buffer> {
  return inTempDir(async (dir) => {
    const raw = path.join(dir, 'raw.wav');
    await run('espeak-ng', ['-v', 'en-us+m3', '-w', raw, TEXT]);
    const out = path.join(dir, 'long.mp3');
    await ffmpeg(['-stream_loop', String(times - 1), '-i', raw, '-c:a', 'libmp3lame', '-b:a', '48k', out]);
    return readFile(out);
  });
}

/** `seconds` of digital silence (anullsrc), 8 kHz mono MP3 at 8 kbps: ten minutes is about 600 KB. */
export async function silenceMp3(seconds: number): Promise<Buffer> {
  return inTempDir(async (dir) => {
    const out = path.join(dir, 'silence.mp3');
    await ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'anullsrc=r=8000:cl=mono',
      '-t',
      String(seconds),
      '-c:a',
      'libmp3lame',
      '-b:a',
      '8k',
      out,
    ]);
    return readFile(out);
  });
}

/**
 * A tiny file that decodes to `hours` of audio: one minute of looped speech
 * mixed with a tone, 8 kHz mono MP3 at 8 kbps with no ID3 tag and no Xing
 * header (so no header states a duration), repeated frame-aligned: a CBR
 * stream concatenated with itself is still one valid stream. Two hours is
 * about 7 MB (under the 20 MiB limit).
 */
export async function hoursLongMp3(hours: number): Promise<Buffer> {
  const minute = await inTempDir(async (dir) => {
    const raw = path.join(dir, 'raw.wav');
    await run('espeak-ng', ['-v', 'en-us+f2', '-w', raw, TEXT]);
    const out = path.join(dir, 'minute.mp3');
    await ffmpeg([
      '-stream_loop',
      '-1',
      '-i',
      raw,
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=180:sample_rate=8000',
      '-filter_complex',
      '[0:a]aresample=8000,aformat=channel_layouts=mono[s];[1:a]volume=0.2[t];[s][t]amix=inputs=2:duration=shortest',
      '-t',
      '60',
      '-ac',
      '1',
      '-ar',
      '8000',
      '-c:a',
      'libmp3lame',
      '-b:a',
      '8k',
      '-id3v2_version',
      '0',
      '-write_xing',
      '0',
      out,
    ]);
    return readFile(out);
  });
  return Buffer.concat(Array.from({ length: Math.round(hours * 60) }, () => minute));
}

/** A real 1x1 PNG (signature, IHDR, IDAT, IEND). */
export const PNG_BYTES = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360f8cfc0f01f0005000201e2b1f8a20000000049454e44ae426082',
  'hex',
);

export type Part =
  | { name: string; value: string }
  | {
      name: string;
      /** Omit for a file part whose disposition has no filename. */
      filename?: string;
      contentType?: string;
      bytes: Buffer;
      /** The whole part header block, as raw bytes (without the blank line): for malformed headers. */
      rawHeaders?: Buffer;
    };

/** A multipart/form-data body with exactly the given parts, in order, and its Content-Type. */
export function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----openvox-test-${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ('value' in part) {
      chunks.push(
        Buffer.from(`Content-Disposition: form-data; name="${part.name}"\r\n\r\n`, 'utf8'),
        Buffer.from(part.value, 'utf8'),
      );
    } else {
      const headers =
        part.rawHeaders ??
        Buffer.from(
          `Content-Disposition: form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}\r\n` +
            `Content-Type: ${part.contentType ?? 'application/octet-stream'}`,
          'utf8',
        );
      chunks.push(headers, Buffer.from('\r\n\r\n'), part.bytes);
    }
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export type { Reply } from './http';

/** One request with a raw body; the reply's JSON parsed when it is JSON. */
export async function send(
  url: string,
  init: { method?: string; token?: string; contentType?: string; body?: Buffer | string },
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  if (init.contentType) headers['Content-Type'] = init.contentType;
  return readReply(await fetch(url, { method: init.method ?? 'POST', headers, body: init.body }));
}

/** Names of the upload handler's temporary files now in os.tmpdir(). */
export async function uploadTempFiles(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('openvox-upload-')).sort();
}
