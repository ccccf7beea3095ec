import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A spoken sample made with espeak-ng, encoded by ffmpeg into `format` (wav, mp3, ogg, flac, m4a). */
export async function makeSample(
  format: 'wav' | 'mp3' | 'ogg' | 'flac' | 'm4a' = 'wav',
  voice = 'en-us+m3',
  pitch = 50,
): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'openvox-sample-'));
  try {
    const raw = path.join(dir, 'raw.wav');
    const text =
      'This is my voice. I am reading a few sentences so that the service can learn how I sound. The weather was fine, and we walked along the river until the evening came.';
    await run('espeak-ng', ['-v', voice, '-p', String(pitch), '-w', raw, text]);
    const out = path.join(dir, `sample.${format}`);
    const codec: Record<string, string[]> = {
      wav: ['-c:a', 'pcm_s16le'],
      mp3: ['-c:a', 'libmp3lame', '-b:a', '64k'],
      ogg: ['-c:a', 'libopus', '-b:a', '32k'],
      flac: ['-c:a', 'flac'],
      m4a: ['-c:a', 'aac', '-b:a', '64k'],
    };
    await run('ffmpeg', ['-v', 'error', '-y', '-i', raw, ...codec[format], out]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** POSTs a multipart upload the way a browser or curl -F would. */
export async function uploadSample(
  baseUrl: string,
  path: string,
  token: string,
  fields: Record<string, string>,
  file?: { bytes: Buffer; name: string; type?: string },
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.name);
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as any };
}

/**
 * Clones a voice named `name` the usual way: a spoken sample (makeSample in `format`, at `pitch`) uploaded with
 * consent to `endpoint`. Returns the API's answer.
 */
export async function uploadConsentedSample(
  baseUrl: string,
  token: string,
  name: string,
  {
    endpoint = '/api/v1/voices/upload/',
    format = 'wav',
    pitch,
  }: { endpoint?: string; format?: Parameters<typeof makeSample>[0]; pitch?: number } = {},
) {
  const bytes = await makeSample(format, undefined, pitch);
  return uploadSample(baseUrl, endpoint, token, { name, consent: 'true' }, { bytes, name: `me.${format}` });
}
