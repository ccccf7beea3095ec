import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { defaultModelsDir } from '../../lib/config';

/**
 * A local mirror of the piper-voices layout (voices.json and the files it
 * names, paths relative to it) on 127.0.0.1, so installer tests reach no
 * network. Every voice is the shipped joe model under another key: joe's
 * `.onnx` bytes, its `.onnx.json` with the language edited, and a model card;
 * sizes and MD5s are computed from the bytes served. Range requests are
 * answered (206), and a file can be made to fail: corrupt bytes, a wrong
 * size, a connection dropped after some bytes, an HTTP error.
 */

export interface MirrorVoice {
  /** `de_DE` */
  code: string;
  name: string;
  quality: 'x_low' | 'low' | 'medium' | 'high';
  /** More than one makes a multi-speaker entry (and config). */
  speakers?: number;
  /** The model card's `* License:` line; absent writes a card without one. */
  licence?: string | null;
  /** Leave the model card out of the index. */
  noCard?: boolean;
}

export type MirrorFault =
  | { kind: 'corrupt' } // same size, one byte flipped
  | { kind: 'oversize' } // the index's bytes and more
  | { kind: 'drop'; afterBytes: number } // headers for the whole file, then the socket closes
  | { kind: 'status'; status: number };

export interface PiperMirror {
  /** The base URL (trailing slash): PIPER_VOICES_URL. */
  url: string;
  /** The voices.json served. */
  index: Record<string, any>;
  /** The path (relative to `url`) of a voice's file: `.onnx`, `.onnx.json` or `MODEL_CARD`. */
  pathOf(key: string, file: '.onnx' | '.onnx.json' | 'MODEL_CARD'): string;
  /** The next `times` requests of `file` fail this way. */
  fail(file: string, fault: MirrorFault, times?: number): void;
  /** Every file request so far: its path and Range header. */
  requests: Array<{ path: string; range: string | undefined }>;
  close(): Promise<void>;
}

export const JOE_MODEL = path.join(process.env.MODELS_DIR ?? defaultModelsDir(), 'en_US-joe-medium.onnx');

const LANGUAGES: Record<string, { english: string; native: string; country: string; espeak: string }> = {
  en_US: { english: 'English', native: 'English', country: 'United States', espeak: 'en-us' },
  en_GB: { english: 'English', native: 'English', country: 'Great Britain', espeak: 'en-gb' },
  de_DE: { english: 'German', native: 'Deutsch', country: 'Germany', espeak: 'de' },
  fr_FR: { english: 'French', native: 'Français', country: 'France', espeak: 'fr' },
};

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

function card(voice: MirrorVoice, key: string): string {
  const licence = voice.licence === undefined ? 'CC0' : voice.licence;
  return [
    `# Model card for ${voice.name} (${voice.quality})`,
    '',
    `* Language: ${voice.code}`,
    `* Speakers: ${voice.speakers ?? 1}`,
    '',
    '## Dataset',
    '',
    `* URL: https://example.org/datasets/${key}`,
    ...(licence === null ? [] : [`* License: ${licence}`]),
    '',
  ].join('\n');
}

export async function startPiperMirror(voices: MirrorVoice[], modelPath = JOE_MODEL): Promise<PiperMirror> {
  const model = await readFile(modelPath);
  const config = JSON.parse(await readFile(`${modelPath}.json`, 'utf8'));
  const files = new Map<string, Buffer>();
  const index: Record<string, any> = {};
  const pathOf = (key: string, file: string) => {
    const [code, name, quality] = key.split('-');
    return `${code.split('_')[0]}/${code}/${name}/${quality}/${file === 'MODEL_CARD' ? file : `${key}${file}`}`;
  };

  for (const voice of voices) {
    const key = `${voice.code}-${voice.name}-${voice.quality}`;
    const [family, region] = voice.code.split('_');
    const facts = LANGUAGES[voice.code] ?? { english: family, native: family, country: region, espeak: family };
    const language = {
      code: voice.code,
      family,
      region,
      name_native: facts.native,
      name_english: facts.english,
      country_english: facts.country,
    };
    const speakers = voice.speakers ?? 1;
    const speakerIds =
      speakers > 1 ? Object.fromEntries(Array.from({ length: speakers }, (_, id) => [`speaker_${id}`, id])) : {};
    const voiceConfig = {
      ...config,
      language,
      espeak: { voice: facts.espeak },
      audio: { ...config.audio, quality: voice.quality },
      num_speakers: speakers,
      speaker_id_map: speakerIds,
    };
    const entryFiles: Array<[string, Buffer]> = [
      [pathOf(key, '.onnx'), model],
      [pathOf(key, '.onnx.json'), Buffer.from(JSON.stringify(voiceConfig, null, 2))],
      ...(voice.noCard ? [] : [[pathOf(key, 'MODEL_CARD'), Buffer.from(card(voice, key))] as [string, Buffer]]),
    ];
    for (const [file, bytes] of entryFiles) files.set(file, bytes);
    index[key] = {
      key,
      name: voice.name,
      language,
      quality: voice.quality,
      num_speakers: speakers,
      speaker_id_map: speakerIds,
      files: Object.fromEntries(
        entryFiles.map(([file, bytes]) => [file, { size_bytes: bytes.length, md5_digest: md5(bytes) }]),
      ),
      aliases: [],
    };
  }

  const faults = new Map<string, Array<MirrorFault>>();
  const requests: PiperMirror['requests'] = [];

  function serve(request: IncomingMessage, response: ServerResponse): void {
    const file = decodeURIComponent(new URL(request.url ?? '/', 'http://mirror').pathname.slice(1));
    if (file === 'voices.json') {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(index));
      return;
    }
    let bytes = files.get(file);
    if (!bytes) {
      response.writeHead(404).end();
      return;
    }
    requests.push({ path: file, range: request.headers.range });
    const fault = faults.get(file)?.shift();
    if (fault?.kind === 'status') {
      response.writeHead(fault.status).end();
      return;
    }
    if (fault?.kind === 'corrupt') {
      bytes = Buffer.from(bytes);
      bytes[bytes.length >> 1] ^= 0xff;
    }
    if (fault?.kind === 'oversize') bytes = Buffer.concat([bytes, Buffer.alloc(1024, 7)]);
    const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (start >= bytes.length && range) {
      response.writeHead(416, { 'Content-Range': `bytes */${bytes.length}` }).end();
      return;
    }
    const body = bytes.subarray(start);
    response.writeHead(range ? 206 : 200, {
      'Content-Length': String(body.length),
      ...(range && { 'Content-Range': `bytes ${start}-${bytes.length - 1}/${bytes.length}` }),
    });
    if (fault?.kind === 'drop') {
      // The headers promised the whole file; the socket closes once part of it is out.
      response.write(body.subarray(0, fault.afterBytes), () => response.socket?.destroy());
      return;
    }
    response.end(body);
  }

  const server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    index,
    pathOf,
    fail(file, fault, times = 1) {
      faults.set(file, [...(faults.get(file) ?? []), ...Array.from({ length: times }, () => fault)]);
    },
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
