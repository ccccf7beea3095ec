import { open } from 'node:fs/promises';

/**
 * The container of an uploaded sample, from its first bytes only: the upload
 * endpoint answers 415 for anything else (a PNG renamed `.wav`, a text file
 * named `.mp3`), and intake forces ffmpeg's demuxer to the sniffed container
 * so it never probes its way into playlists or other protocols.
 */

export type SampleFormat = 'wav' | 'mp3' | 'ogg' | 'flac' | 'm4a';

/** How many leading bytes to hand to sniffAudioFormat (fewer work for most files; an ID3 tag may need more). */
export const SNIFF_BYTES = 4096;

/** ffmpeg's demuxer for each format (`-f`). */
export const DEMUXERS: Readonly<Record<SampleFormat, string>> = {
  wav: 'wav',
  mp3: 'mp3',
  ogg: 'ogg',
  flac: 'flac',
  m4a: 'mov',
};

// ISO BMFF brands of audio-only and general MP4 files (M4A from iTunes/ffmpeg is `M4A `, others write `mp42`/`isom`).
const MP4_BRANDS = new Set(['M4A ', 'M4B ', 'mp42', 'mp41', 'isom', 'iso2', 'iso4', 'iso5', 'iso6', 'dash']);

const ascii = (bytes: Buffer, start: number, end: number): string =>
  bytes.length >= end ? bytes.toString('latin1', start, end) : '';

/**
 * 'wav' | 'mp3' | 'ogg' | 'flac' | 'm4a' by magic bytes, or null for
 * anything else (including an empty or too short buffer). Ogg must carry
 * Vorbis or Opus; MP3 is an ID3 tag or a valid MPEG audio frame header.
 */
export function sniffAudioFormat(firstBytes: Buffer): SampleFormat | null {
  const head = ascii(firstBytes, 0, 4);
  if ((head === 'RIFF' || head === 'RF64') && ascii(firstBytes, 8, 12) === 'WAVE') return 'wav';
  if (head === 'fLaC') return 'flac';
  if (head === 'OggS') return oggCodec(firstBytes);
  if (ascii(firstBytes, 4, 8) === 'ftyp') return mp4Brand(firstBytes);
  if (ascii(firstBytes, 0, 3) === 'ID3') {
    // An ID3v2 tag: 10-byte header, syncsafe size. FLAC files sometimes carry one too.
    if (firstBytes.length < 10) return null;
    const size =
      ((firstBytes[6] & 0x7f) << 21) |
      ((firstBytes[7] & 0x7f) << 14) |
      ((firstBytes[8] & 0x7f) << 7) |
      (firstBytes[9] & 0x7f);
    const after = 10 + size + (firstBytes[5] & 0x10 ? 10 : 0);
    if (ascii(firstBytes, after, after + 4) === 'fLaC') return 'flac';
    return 'mp3';
  }
  return isMpegAudioFrame(firstBytes, 0) ? 'mp3' : null;
}

/** An MPEG-1/2/2.5 Layer I-III frame header at `offset` (ADTS AAC has layer bits 00 and is not one). */
function isMpegAudioFrame(bytes: Buffer, offset: number): boolean {
  if (bytes.length < offset + 4) return false;
  const [b0, b1, b2] = [bytes[offset], bytes[offset + 1], bytes[offset + 2]];
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return false;
  const version = (b1 >> 3) & 0x3; // 1 is reserved
  const layer = (b1 >> 1) & 0x3; // 0 is reserved
  const bitrate = b2 >> 4; // 15 is invalid
  const sampleRate = (b2 >> 2) & 0x3; // 3 is reserved
  return version !== 1 && layer !== 0 && bitrate !== 15 && sampleRate !== 3;
}

/** The first Ogg page's first packet: Vorbis identification header or OpusHead. */
function oggCodec(bytes: Buffer): SampleFormat | null {
  if (bytes.length < 27) return null;
  const segments = bytes[26];
  const packet = 27 + segments;
  if (ascii(bytes, packet, packet + 7) === '\x01vorbis') return 'ogg';
  if (ascii(bytes, packet, packet + 8) === 'OpusHead') return 'ogg';
  return null;
}

/** An ISO BMFF `ftyp` box whose major or a compatible brand is an audio-capable MP4 brand. */
function mp4Brand(bytes: Buffer): SampleFormat | null {
  const boxSize = bytes.readUInt32BE(0);
  const end = Math.min(bytes.length, boxSize >= 16 ? boxSize : 16);
  if (MP4_BRANDS.has(ascii(bytes, 8, 12))) return 'm4a';
  for (let offset = 16; offset + 4 <= end; offset += 4) {
    if (MP4_BRANDS.has(ascii(bytes, offset, offset + 4))) return 'm4a';
  }
  return null;
}

/** The container of the audio file at `path`, sniffed from its first SNIFF_BYTES bytes. */
export async function sniffAudioFile(path: string): Promise<SampleFormat | null> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return sniffAudioFormat(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}
