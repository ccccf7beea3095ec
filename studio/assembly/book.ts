import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileUrl } from '../../audio/ffmpeg';
import { studioFfmpeg } from './ffmpeg';
import type { AssemblyPreset, BookChapter, BookMetadata } from './index';
import { mp3Output } from './mp3';
import { writeStoredZip } from './zip';

/** AAC mono at 96 kbps: transparent for speech, a quarter of the MP3's size. */
const M4B_BITRATE = '96k';

/** An FFMETADATA value: `=`, `;`, `#`, `\` and newlines are escaped with a backslash. */
function ffmetadataValue(value: string): string {
  return value.replace(/[=;#\\\n]/g, (special) => `\\${special}`);
}

/** A chapter's file name in the zip: `NN - Title.mp3`, without what file systems or players refuse. */
function chapterFileName(index: number, title: string): string {
  const clean = title
    .replace(/[\p{Cc}/\\:*?"<>|]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '')
    .slice(0, 80)
    .trim();
  return `${String(index + 1).padStart(2, '0')} - ${clean || `Chapter ${index + 1}`}.mp3`;
}

/** The tags both containers carry, by ffmpeg's generic names (each muxer maps them to its own atoms or frames). */
function tagsOf(metadata: BookMetadata): [string, string][] {
  const tags: [string, string | null][] = [
    ['title', metadata.title],
    ['album', metadata.title],
    ['artist', metadata.author],
    ['album_artist', metadata.author],
    ['composer', metadata.narrator],
    ['date', metadata.year],
    ['comment', metadata.description],
    ['description', metadata.description],
    ['publisher', metadata.publisher],
    ['language', metadata.language],
    ['isbn', metadata.isbn],
    // The MP4 muxer has no atom for the publisher: the copyright line (cprt; TCOP in ID3) names it, as publishers do.
    ['copyright', metadata.publisher && [metadata.year, metadata.publisher].filter(Boolean).join(' ')],
    ['genre', 'Audiobook'],
  ];
  return tags.filter((tag): tag is [string, string] => Boolean(tag[1]));
}

function ffmetadataOf(metadata: BookMetadata, index: { title: string; start_ms: number; duration_ms: number }[]) {
  const lines = [';FFMETADATA1', ...tagsOf(metadata).map(([key, value]) => `${key}=${ffmetadataValue(value)}`)];
  for (const chapter of index) {
    lines.push('[CHAPTER]', 'TIMEBASE=1/1000', `START=${chapter.start_ms}`);
    lines.push(`END=${chapter.start_ms + chapter.duration_ms}`, `title=${ffmetadataValue(chapter.title)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A concat demuxer list: paths quoted, a quote inside closed, escaped and reopened. */
function concatList(files: readonly string[]): string {
  return `ffconcat version 1.0\n${files.map((file) => `file '${path.resolve(file).replace(/'/g, "'\\''")}'`).join('\n')}\n`;
}

/**
 * The book from its mastered chapter WAVs: an M4B (AAC, chapters, tags,
 * cover), one MP3 of the whole book (ID3v2.3 with CHAP/CTOC and the cover as
 * APIC), and a zip of one MP3 per chapter with an M3U playlist. ffmpeg reads
 * the chapters through a concat list; nothing is held in memory. The zip
 * takes each chapter's MP3 from its assembly where there is one (tags added,
 * the audio copied), so a chapter is encoded to MP3 twice in all: for the
 * zip and within the book's MP3 (whose chapter marks must fall where the
 * M4B's do, which joined MP3 files, each with its encoder's delay, would not).
 */
export async function assembleBook(input: {
  chapters: BookChapter[];
  metadata: BookMetadata;
  cover?: { path: string; contentType: string } | null;
  preset: AssemblyPreset;
  outDir: string;
  signal?: AbortSignal;
}): Promise<{
  m4b: string;
  mp3: string;
  zip: string;
  index: { title: string; index: number; start_ms: number; duration_ms: number }[];
}> {
  const { chapters, metadata, cover, outDir, signal } = input;
  if (chapters.length === 0) throw new Error('a book needs at least one chapter');
  let start = 0;
  const index = chapters.map((chapter, i) => {
    const entry = { title: chapter.title, index: i, start_ms: start, duration_ms: chapter.durationMs };
    start += chapter.durationMs;
    return entry;
  });

  const listPath = path.join(outDir, 'chapters.ffconcat');
  const metaPath = path.join(outDir, 'book.ffmetadata');
  await writeFile(listPath, concatList(chapters.map((chapter) => chapter.wavPath)));
  await writeFile(metaPath, ffmetadataOf(metadata, index));

  const m4b = path.join(outDir, 'book.m4b');
  const mp3 = path.join(outDir, 'book.mp3');
  const args = ['-f', 'concat', '-safe', '0', '-i', fileUrl(listPath), '-f', 'ffmetadata', '-i', fileUrl(metaPath)];
  if (cover) args.push('-i', fileUrl(cover.path));
  const coverMaps = cover ? ['-map', '2:v:0', '-c:v', 'copy', '-disposition:v:0', 'attached_pic'] : [];
  // Both files in one call: the chapters are decoded once.
  args.push('-map', '0:a:0', ...coverMaps, '-map_metadata', '1', '-map_chapters', '1');
  // The fast coder: a quarter of the default two-loop search's CPU, no audible difference on speech at this rate.
  args.push('-ar', '44100', '-ac', '1', '-c:a', 'aac', '-aac_coder', 'fast', '-b:a', M4B_BITRATE);
  args.push('-movflags', '+faststart');
  // The M4B brand is what makes players treat the file as a book (bookmarking, chapters).
  args.push('-brand', 'M4B ', '-f', 'ipod', fileUrl(m4b));
  args.push('-map', '0:a:0', ...coverMaps, '-map_metadata', '1', '-map_chapters', '1', '-id3v2_version', '3');
  if (cover) args.push('-metadata:s:v:0', 'title=Cover', '-metadata:s:v:0', 'comment=Cover (front)');
  args.push(...mp3Output(mp3));
  await studioFfmpeg(args, signal);

  // One MP3 per chapter (one call, one output each: the chapter's own MP3 copied with its tags, else encoded).
  const names = chapters.map((chapter, i) => chapterFileName(i, chapter.title));
  const chapterMp3s = names.map((_, i) => path.join(outDir, `chapter-${i + 1}.mp3`));
  const perChapter: string[] = [];
  chapters.forEach((chapter) => perChapter.push('-i', fileUrl(chapter.mp3Path ?? chapter.wavPath)));
  chapters.forEach((chapter, i) => {
    perChapter.push('-map', `${i}:a:0`, '-map_metadata', '-1');
    perChapter.push('-metadata', `title=${chapter.title}`, '-metadata', `track=${i + 1}`);
    if (metadata.title) perChapter.push('-metadata', `album=${metadata.title}`);
    if (metadata.author) perChapter.push('-metadata', `artist=${metadata.author}`);
    perChapter.push('-id3v2_version', '3');
    if (chapter.mp3Path) perChapter.push('-c:a', 'copy', '-f', 'mp3', fileUrl(chapterMp3s[i]));
    else perChapter.push(...mp3Output(chapterMp3s[i]));
  });
  await studioFfmpeg(perChapter, signal);
  const playlistPath = path.join(outDir, 'playlist.m3u');
  const playlist = chapters.map(
    (chapter, i) =>
      `#EXTINF:${Math.round(chapter.durationMs / 1000)},${chapter.title.replace(/\s+/g, ' ').trim()}\n${names[i]}`,
  );
  await writeFile(playlistPath, `#EXTM3U\n${playlist.join('\n')}\n`);
  const zip = path.join(outDir, 'book.zip');
  await writeStoredZip(
    zip,
    [...names.map((name, i) => ({ name, path: chapterMp3s[i] })), { name: 'playlist.m3u', path: playlistPath }],
    signal,
  );
  return { m4b, mp3, zip, index };
}
