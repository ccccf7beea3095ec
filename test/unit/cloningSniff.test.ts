import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SNIFF_BYTES, sniffAudioFormat } from '../../audio/cloning/sniff';

/**
 * Container detection from the first bytes, on files ffmpeg really encoded
 * (from an eSpeak NG rendering), plus the things an upload must not pass as
 * audio. Needs espeak-ng and ffmpeg (scripts/install.sh).
 */

let dir: string;
const fixture = (name: string) => path.join(dir, name);
const head = (name: string) => readFileSync(fixture(name)).subarray(0, SNIFF_BYTES);

const ENCODINGS: Array<[string, string[], string]> = [
  ['speech.wav', ['-c:a', 'pcm_s16le'], 'wav'],
  ['speech.mp3', ['-c:a', 'libmp3lame', '-b:a', '64k'], 'mp3'],
  ['speech-noid3.mp3', ['-c:a', 'libmp3lame', '-b:a', '32k', '-id3v2_version', '0', '-write_xing', '0'], 'mp3'],
  ['vorbis.ogg', ['-c:a', 'libvorbis'], 'ogg'],
  ['opus.ogg', ['-c:a', 'libopus', '-b:a', '32k'], 'ogg'],
  ['speech.flac', ['-c:a', 'flac'], 'flac'],
  ['aac.m4a', ['-c:a', 'aac', '-b:a', '64k'], 'm4a'],
  ['alac.m4a', ['-c:a', 'alac'], 'm4a'],
  ['aac-mp4.mp4', ['-c:a', 'aac', '-b:a', '64k', '-f', 'mp4'], 'm4a'],
];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'openvox-sniff-'));
  execFileSync('espeak-ng', [
    '-v',
    'en-us',
    '-w',
    fixture('source.wav'),
    'A short sentence to encode in every container.',
  ]);
  for (const [name, codec] of ENCODINGS) {
    execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', fixture('source.wav'), ...codec, fixture(name)]);
  }
  // Not audio: a real PNG (one frame of a test pattern) and an ADTS AAC stream (not one of the accepted containers).
  execFileSync('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=32x32',
    '-frames:v',
    '1',
    fixture('image.png'),
  ]);
  execFileSync('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-i',
    fixture('source.wav'),
    '-c:a',
    'aac',
    '-f',
    'adts',
    fixture('raw.aac'),
  ]);
}, 30_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sniffAudioFormat', () => {
  it.each(ENCODINGS.map(([name, , format]) => [name, format]))('recognizes %s as %s', (name, format) => {
    expect(sniffAudioFormat(head(name))).toBe(format);
  });

  it('needs only the first few dozen bytes for WAV, FLAC, Ogg and M4A', () => {
    for (const [name, format] of [
      ['speech.wav', 'wav'],
      ['speech.flac', 'flac'],
      ['opus.ogg', 'ogg'],
      ['vorbis.ogg', 'ogg'],
      ['alac.m4a', 'm4a'],
    ]) {
      expect(sniffAudioFormat(head(name).subarray(0, 64))).toBe(format);
    }
  });

  it('rejects a PNG, text, an empty file and ADTS AAC', () => {
    expect(sniffAudioFormat(head('image.png'))).toBeNull();
    expect(sniffAudioFormat(Buffer.from('This is not audio, even if it is named voice.mp3\n'))).toBeNull();
    expect(sniffAudioFormat(Buffer.from('#EXTM3U\n#EXTINF:10,\nhttp://example.com/a.mp3\n'))).toBeNull();
    expect(sniffAudioFormat(Buffer.alloc(0))).toBeNull();
    expect(sniffAudioFormat(head('raw.aac'))).toBeNull();
  });

  it('rejects look-alikes: RIFF that is not WAVE, Ogg without Vorbis or Opus, a reserved MPEG header, a video brand', () => {
    const riffAvi = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('AVI LIST')]);
    expect(sniffAudioFormat(riffAvi)).toBeNull();
    const oggTheora = Buffer.from(head('opus.ogg'));
    oggTheora.write('\x80theora\0', 28, 'latin1');
    expect(sniffAudioFormat(oggTheora)).toBeNull();
    expect(sniffAudioFormat(Buffer.from([0xff, 0xfb, 0xf0, 0x00]))).toBeNull(); // bitrate index 15
    expect(sniffAudioFormat(Buffer.from([0xff, 0xfb, 0x90, 0x64]))).toBe('mp3');
    const quicktime = Buffer.concat([Buffer.from([0, 0, 0, 0x14]), Buffer.from('ftypqt  \0\0\0\0qt  ')]);
    expect(sniffAudioFormat(quicktime)).toBeNull();
  });

  it('takes an ID3 tag in front of FLAC for FLAC', () => {
    const id3 = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0]);
    expect(sniffAudioFormat(Buffer.concat([id3, head('speech.flac')]))).toBe('flac');
  });
});
