import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import { run } from '../../lib/process';
import { readWavInfo, readWavSamples } from '../../audio/wav';
import { pcmBytes, wavHeader } from '../../lib/wavFormat';
import { assembleBook, assembleChapter, type BlockAudio, type ChapterAssembly } from '../../studio/assembly';
import { MP3_FRAME_SAMPLES, mp3Frames } from '../../studio/assembly/mp3';

/** Chapter 3's title carries every FFMETADATA special: `=`, `;`, `#`, a backslash and a newline. */
const CHAPTERS = [
  { title: 'One', blocks: ['Chapter one.', 'The clocks were striking thirteen.', 'He slipped through the doors.'] },
  { title: 'Two', blocks: ['Chapter two.', 'The hallway smelt of boiled cabbage.'] },
  {
    title: 'Three = a;b #c \\ d\nend',
    blocks: ['Chapter three.', 'It was a bright cold day.', 'Outside, the wind blew.'],
  },
];

let work: string;
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'studio-assembly-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function ffprobeJson(file: string, ...show: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run('ffprobe', ['-v', 'error', ...show, '-of', 'json', file]);
  return JSON.parse(stdout.toString('utf8')) as Record<string, unknown>;
}

/** Overall RMS and sample peak (dBFS) of a file's decoded audio, optionally a slice of it, by astats. */
async function levels(file: string, trim = ''): Promise<{ rms: number; peak: number }> {
  const { stderr } = await run('ffmpeg', [
    '-nostdin',
    '-hide_banner',
    '-i',
    file,
    '-af',
    `${trim}astats`,
    '-f',
    'null',
    '-',
  ]);
  const overall = stderr.slice(stderr.lastIndexOf('Overall'));
  const value = (name: string) => Number(new RegExp(`${name}:\\s*(-?[\\d.]+)`).exec(overall)?.[1]);
  return { rms: value('RMS level dB'), peak: value('Peak level dB') };
}

/** Silences below −50 dB of at least 0.3 s: the room tone at the head, in pauses and at the tail. */
async function silences(file: string): Promise<{ start: number; end: number }[]> {
  const { stderr } = await run('ffmpeg', [
    '-nostdin',
    '-hide_banner',
    '-i',
    file,
    '-af',
    'silencedetect=n=-50dB:d=0.3',
    '-f',
    'null',
    '-',
  ]);
  const starts = [...stderr.matchAll(/silence_start: (-?[\d.]+)/g)].map((m) => Number(m[1]));
  const ends = [...stderr.matchAll(/silence_end: ([\d.]+)/g)].map((m) => Number(m[1]));
  return starts.map((start, i) => ({ start: Math.max(0, start), end: ends[i] ?? Number.POSITIVE_INFINITY }));
}

/**
 * Where speech starts after each chapter mark of a book file, ms: the first
 * 10 ms window louder than −40 dBFS (the room tone is near −70) at or after
 * the mark, from the file decoded as a player does.
 */
async function speechOnsets(file: string, marksMs: number[]): Promise<number[]> {
  const { stdout } = await run('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-i',
    file,
    '-ac',
    '1',
    '-ar',
    '44100',
    '-f',
    's16le',
    '-',
  ]);
  const samples = new Int16Array(stdout.buffer, stdout.byteOffset, stdout.length >> 1);
  const window = 441;
  const threshold = 32768 * 10 ** (-40 / 20);
  return marksMs.map((mark) => {
    for (let at = Math.round(mark * 44.1); at + window <= samples.length; at += window) {
      let energy = 0;
      for (let i = at; i < at + window; i++) energy += samples[i] * samples[i];
      if (Math.sqrt(energy / window) > threshold) return at / 44.1;
    }
    return Number.NaN;
  });
}

async function speak(text: string, file: string): Promise<BlockAudio['words']> {
  await run('espeak-ng', ['-w', file, text]);
  const { format } = (await ffprobeJson(file, '-show_format')) as { format: { duration: string } };
  const words = text.split(/\s+/);
  const each = (Number(format.duration) * 1000) / words.length;
  return words.map((word, i) => ({ word, startMs: Math.round(i * each), endMs: Math.round((i + 1) * each) }));
}

function zipEntries(file: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const entries = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

describe('studio assembly', () => {
  const assembled: ChapterAssembly[] = [];

  it('masters each chapter to ACX on the delivered MP3, with room tone and captions', async () => {
    for (const [c, chapter] of CHAPTERS.entries()) {
      const outDir = path.join(work, `chapter-${c}`);
      await run('mkdir', ['-p', outDir]);
      const blocks: BlockAudio[] = [];
      for (const [b, text] of chapter.blocks.entries()) {
        const file = path.join(work, `c${c}b${b}.wav`);
        blocks.push({ path: file, kind: b === 0 ? 'heading' : 'paragraph', words: await speak(text, file) });
      }
      const result = await assembleChapter({ blocks, preset: 'audiobook', outDir });
      assembled.push(result);

      expect(result.qc.acx).toEqual({ rms: true, peak: true, noise_floor: true });
      // Measured here independently, on the MP3 the zip delivers (encoded from the same WAV, same settings).
      const mp3 = path.join(outDir, 'chapter.mp3');
      const whole = await levels(mp3);
      expect(whole.rms).toBeGreaterThanOrEqual(-23);
      expect(whole.rms).toBeLessThanOrEqual(-18);
      expect(whole.peak).toBeLessThanOrEqual(-3);
      expect(Math.abs(whole.rms - result.qc.rms_db)).toBeLessThan(0.5);
      const head = await levels(mp3, 'atrim=start=0.1:end=0.6,');
      expect(head.rms).toBeLessThanOrEqual(-60);
      expect(head.rms).toBeGreaterThan(-100);
      expect(result.qc.noise_floor_db).toBeLessThanOrEqual(-60);
      expect(result.qc.noise_floor_db).toBeGreaterThan(-100);

      const quiet = await silences(mp3);
      const seconds = result.durationMs / 1000;
      expect(quiet[0].start).toBe(0);
      expect(quiet[0].end).toBeGreaterThanOrEqual(0.5);
      expect(quiet[0].end).toBeLessThanOrEqual(1.1);
      const tail = quiet[quiet.length - 1];
      expect(seconds - tail.start).toBeGreaterThanOrEqual(1);
      expect(seconds - tail.start).toBeLessThanOrEqual(5);
      console.log(
        `chapter ${c + 1}: qc ${JSON.stringify(result.qc)}; astats rms ${whole.rms} peak ${whole.peak}; head ${head.rms} dB, ${quiet[0].end} s; tail ${(seconds - tail.start).toFixed(2)} s`,
      );

      const times = [...result.srt.matchAll(/(\d\d):(\d\d):(\d\d),(\d{3}) --> (\d\d):(\d\d):(\d\d),(\d{3})/g)].map(
        (m) => {
          const ms = (h: string, mi: string, s: string, f: string) => ((+h * 60 + +mi) * 60 + +s) * 1000 + +f;
          return [ms(m[1], m[2], m[3], m[4]), ms(m[5], m[6], m[7], m[8])];
        },
      );
      expect(times.length).toBeGreaterThanOrEqual(chapter.blocks.length);
      times.forEach(([start, end], i) => {
        expect(end).toBeGreaterThan(start);
        expect(end - start).toBeLessThanOrEqual(7000);
        if (i > 0) expect(start).toBeGreaterThanOrEqual(times[i - 1][1]);
      });
      expect(times[0][0]).toBeGreaterThanOrEqual(750);
      expect(times[times.length - 1][1]).toBeLessThanOrEqual(result.durationMs);
      expect(result.vtt.startsWith('WEBVTT\n')).toBe(true);
      expect(result.vtt.split('-->').length - 1).toBe(times.length);
      expect(result.srt).toContain(chapter.blocks[1].split(' ')[0]);
    }
  });

  it('levels the standard preset to -16 LUFS with silent pauses, and says honestly it is not ACX', async () => {
    const outDir = path.join(work, 'standard');
    await run('mkdir', ['-p', outDir]);
    const file = path.join(work, 'standard.wav');
    // A 22.05 kHz source: blocks of any rate are resampled to 44.1 kHz.
    await run('espeak-ng', ['-w', file, 'A standard chapter, loud & <clear>.']);
    const words = [{ word: 'loud & <clear>', startMs: 0, endMs: 900 }];
    const result = await assembleChapter({
      blocks: [{ path: file, kind: 'paragraph', words }],
      preset: 'standard',
      outDir,
    });
    const { stderr } = await run('ffmpeg', [
      '-nostdin',
      '-hide_banner',
      '-i',
      result.wavPath,
      '-af',
      'ebur128',
      '-f',
      'null',
      '-',
    ]);
    const integrated = Number(
      /I:\s+(-?[\d.]+) LUFS\s+Threshold/.exec(stderr.slice(stderr.lastIndexOf('Summary')))?.[1],
    );
    expect(Math.abs(integrated + 16)).toBeLessThan(1.5);
    expect(Number.isFinite(result.qc.noise_floor_db)).toBe(true);
    expect(result.qc.acx.noise_floor).toBe(false);
    expect(result.vtt).toContain('loud &amp; &lt;clear&gt;');
    const { streams } = (await ffprobeJson(result.wavPath, '-show_streams')) as {
      streams: { sample_rate: string; channels: number }[];
    };
    expect(streams[0]).toMatchObject({ sample_rate: '44100', channels: 1 });
    console.log(`standard: ${integrated} LUFS, qc ${JSON.stringify(result.qc)}`);
  });

  it("gives each chapter's WAV its MP3's whole frames, as the MP3's Info frame counts them", async () => {
    expect(assembled).toHaveLength(3);
    for (const chapter of assembled) {
      const frames = await mp3Frames(chapter.mp3Path);
      const { streams } = (await ffprobeJson(chapter.mp3Path, '-count_packets', '-show_streams')) as {
        streams: { nb_read_packets: string }[];
      };
      expect(frames?.frames).toBe(Number(streams[0].nb_read_packets));
      // What the encoder added: its delay (LAME's 576) and the padding to a whole frame.
      expect(frames?.delay).toBe(576);
      expect(frames!.padding).toBeLessThan(MP3_FRAME_SAMPLES + 576);
      const wav = await readWavInfo(chapter.wavPath);
      expect(Math.round(wav.durationSeconds * wav.sampleRate)).toBe(frames!.frames * MP3_FRAME_SAMPLES);
      expect(chapter.durationMs).toBe(Math.round(wav.durationSeconds * 1000));
    }
  });

  it("lengthens at the book's assembly a chapter WAV made before WAVs took their MP3's frames, and encodes the MP3 for one that matches no MP3", async () => {
    const [first] = assembled;
    const frames = (await mp3Frames(first.mp3Path))!;
    const { samples } = await readWavSamples(first.wavPath);
    const spoken = samples.subarray(0, frames.frames * MP3_FRAME_SAMPLES - frames.delay - frames.padding);
    const older = path.join(work, 'older.wav');
    const stranger = path.join(work, 'stranger.wav');
    await writeFile(older, Buffer.concat([wavHeader(spoken.length, 44_100), pcmBytes(spoken)]));
    await writeFile(stranger, Buffer.concat([wavHeader(spoken.length - 10, 44_100), pcmBytes(spoken.subarray(10))]));
    const durationMs = Math.round((spoken.length / 44_100) * 1000);
    const book = async (wavPath: string, name: string) => {
      const outDir = path.join(work, name);
      await run('mkdir', ['-p', outDir]);
      return assembleBook({
        chapters: [{ title: 'One', wavPath, mp3Path: first.mp3Path, durationMs }],
        metadata: {
          title: null,
          author: null,
          narrator: null,
          language: 'en',
          description: null,
          publisher: null,
          year: null,
          isbn: null,
        },
        preset: 'audiobook',
        outDir,
      });
    };
    const joined = await book(older, 'older-book');
    expect(joined.index[0].duration_ms).toBe(first.durationMs);
    expect((await readWavSamples(older)).samples.length).toBe(frames.frames * MP3_FRAME_SAMPLES);
    const encoded = await book(stranger, 'stranger-book');
    expect(encoded.index[0].duration_ms).toBe(durationMs);
    expect((await readWavSamples(stranger)).samples.length).toBe(spoken.length - 10);
  });

  it('stops its ffmpeg when the signal aborts', async () => {
    const file = path.join(work, 'abort.wav');
    await run('espeak-ng', ['-w', file, 'Never finished.']);
    const outDir = path.join(work, 'aborted');
    await run('mkdir', ['-p', outDir]);
    const signal = AbortSignal.abort();
    await expect(
      assembleChapter({ blocks: [{ path: file, kind: 'paragraph' }], preset: 'audiobook', outDir, signal }),
    ).rejects.toThrow(/aborted/);
  });

  it('makes the M4B, the MP3 and the zip with chapters, tags and the cover', async () => {
    expect(assembled).toHaveLength(3);
    const outDir = path.join(work, 'book');
    await run('mkdir', ['-p', outDir]);
    const cover = path.join(work, 'cover.jpg');
    await run('ffmpeg', [
      '-nostdin',
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'color=c=red:s=64x64',
      '-frames:v',
      '1',
      cover,
    ]);
    const book = await assembleBook({
      chapters: assembled.map((chapter, i) => ({
        title: CHAPTERS[i].title,
        wavPath: chapter.wavPath,
        mp3Path: chapter.mp3Path,
        durationMs: chapter.durationMs,
      })),
      metadata: {
        title: 'A Test = Book',
        author: 'Ann Author',
        narrator: 'Ned Narrator',
        language: 'en',
        description: 'Three short chapters.',
        publisher: 'OpenVox Press',
        year: '2026',
        isbn: '978-3-16-148410-0',
      },
      cover: { path: cover, contentType: 'image/jpeg' },
      preset: 'audiobook',
      outDir,
    });
    expect(book.index.map((chapter) => chapter.title)).toEqual(CHAPTERS.map((chapter) => chapter.title));
    expect(book.index[1].start_ms).toBe(assembled[0].durationMs);

    for (const file of [book.m4b, book.mp3]) {
      const { chapters } = (await ffprobeJson(file, '-show_chapters')) as {
        chapters: { start_time: string; end_time: string; tags: { title: string } }[];
      };
      expect(chapters.map((chapter) => chapter.tags.title)).toEqual(CHAPTERS.map((chapter) => chapter.title));
      chapters.forEach((chapter, i) => {
        expect(Math.abs(Number(chapter.start_time) * 1000 - book.index[i].start_ms)).toBeLessThanOrEqual(5);
        const end = book.index[i].start_ms + book.index[i].duration_ms;
        expect(Math.abs(Number(chapter.end_time) * 1000 - end)).toBeLessThanOrEqual(5);
      });
      const { format, streams } = (await ffprobeJson(file, '-show_format', '-show_streams')) as {
        format: { tags: Record<string, string> };
        streams: {
          codec_type: string;
          codec_name: string;
          sample_rate?: string;
          channels?: number;
          disposition: { attached_pic: number };
        }[];
      };
      expect(format.tags).toMatchObject({
        title: 'A Test = Book',
        artist: 'Ann Author',
        album: 'A Test = Book',
        composer: 'Ned Narrator',
        copyright: '2026 OpenVox Press',
      });
      if (file === book.m4b) expect(format.tags.major_brand).toMatch(/^M4B/);
      expect(streams.some((stream) => stream.codec_type === 'video' && stream.disposition.attached_pic === 1)).toBe(
        true,
      );
      const audio = streams.find((stream) => stream.codec_type === 'audio');
      expect(audio).toMatchObject({ codec_name: file === book.m4b ? 'aac' : 'mp3', sample_rate: '44100', channels: 1 });
    }
    // The book's MP3 is the chapters' MP3s joined: its speech starts where the M4B's does, a head of room tone
    // (0.75 s) after each mark.
    const marks = book.index.map((chapter) => chapter.start_ms);
    const [inMp3, inM4b] = await Promise.all([speechOnsets(book.mp3, marks), speechOnsets(book.m4b, marks)]);
    marks.forEach((mark, i) => {
      expect(Math.abs(inMp3[i] - inM4b[i])).toBeLessThanOrEqual(15);
      expect(inM4b[i] - mark).toBeGreaterThan(600);
      expect(inM4b[i] - mark).toBeLessThan(900);
    });
    const bookLevels = await levels(book.mp3);
    expect(bookLevels.peak).toBeLessThanOrEqual(-3);
    console.log(`book mp3: rms ${bookLevels.rms} peak ${bookLevels.peak}`);
    // Only ID3 has frames for these (TPUB, TLAN, TXXX:ISBN); the MP4 muxer has no atom for them (the M4B's copyright names the publisher).
    const { format: mp3Format } = (await ffprobeJson(book.mp3, '-show_format')) as {
      format: { tags: Record<string, string> };
    };
    expect(mp3Format.tags).toMatchObject({
      publisher: 'OpenVox Press',
      language: 'en',
      isbn: '978-3-16-148410-0',
      date: '2026',
    });

    const entries = await zipEntries(book.zip);
    expect([...entries.keys()]).toEqual([
      '01 - One.mp3',
      '02 - Two.mp3',
      '03 - Three = a;b #c d end.mp3',
      'playlist.m3u',
    ]);
    const playlist = entries.get('playlist.m3u')?.toString('utf8') ?? '';
    expect(playlist.startsWith('#EXTM3U\n')).toBe(true);
    expect(playlist).toContain(`#EXTINF:${Math.round(assembled[1].durationMs / 1000)},Two\n02 - Two.mp3`);
    const first = path.join(work, 'first.mp3');
    await run('tee', [first], { input: entries.get('01 - One.mp3') });
    const { streams } = (await ffprobeJson(first, '-show_streams')) as {
      streams: { bit_rate: string; sample_rate: string }[];
    };
    expect(streams[0]).toMatchObject({ bit_rate: '192000', sample_rate: '44100' });
  });
});
