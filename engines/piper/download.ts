import { createHash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { lstat, open, rm } from 'node:fs/promises';
import { type IndexFile, VoiceInstallError } from './voiceIndex';

/**
 * One file of a voice, downloaded into a `.partial` file and verified against
 * the index: a connection that breaks is resumed where it stopped (an HTTP
 * Range request) a few times with a growing wait; bytes that cannot be right
 * (a size the index does not say, a wrong MD5) delete the partial and fail
 * with a VoiceInstallError, since repeating the request would fetch them again.
 */

export interface DownloadOptions {
  /** Tries per file (the first included). */
  attempts?: number;
  /** The wait before the second try, doubled before each further one. */
  backoffMs?: number;
  /** A connection that sends nothing for this long counts as broken. */
  idleTimeoutMs?: number;
}

/** What a retry cannot mend: the partial is deleted and the install fails. */
class Corrupt extends VoiceInstallError {}

/** A connection that broke on every try: the partial keeps what arrived, for the next run to resume. */
export class InterruptedDownload extends VoiceInstallError {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The bytes a partial holds. Anything but a file of our own at its name (a
 * symlink or a hard link someone planted in MODELS_DIR, which a download
 * would write through) is removed, not followed: the download starts over.
 */
async function partialSize(file: string): Promise<number> {
  const info = await lstat(file).catch(() => null);
  if (!info) return 0;
  if (info.isFile() && info.nlink === 1) return info.size;
  await rm(file, { force: true });
  return 0;
}

/** Opens the partial to write without following a link, and refuses what is not a file of its own. */
async function openPartial(file: string, append: boolean) {
  const { O_WRONLY, O_CREAT, O_APPEND, O_TRUNC, O_NOFOLLOW } = constants;
  const handle = await open(file, O_WRONLY | O_CREAT | O_NOFOLLOW | (append ? O_APPEND : O_TRUNC));
  const info = await handle.stat();
  if (!info.isFile() || info.nlink !== 1) {
    await handle.close();
    throw new Corrupt(`${file} is not a file of its own (a link?): the download does not write through it`);
  }
  return handle;
}

async function md5Of(file: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** `bytes 100-199/200` → its start and total (null when the header is absent or malformed). */
function contentRange(header: string | null): { start: number; total: number | null } | null {
  const match = header ? /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(header.trim()) : null;
  return match ? { start: Number(match[1]), total: match[2] === '*' ? null : Number(match[2]) } : null;
}

/**
 * One request for the bytes `partial` lacks, appended to it. Throws Corrupt
 * for what the server sends wrongly, and a plain Error for a broken or
 * refused connection (worth another try).
 */
async function fetchRest(
  url: URL,
  partial: string,
  expected: IndexFile,
  idleTimeoutMs: number,
  onProgress: (done: number) => void,
): Promise<void> {
  const have = await partialSize(partial);
  const controller = new AbortController();
  let idle = setTimeout(() => controller.abort(new Error(`no data for ${idleTimeoutMs / 1000} s`)), idleTimeoutMs);
  try {
    const response = await fetch(url, {
      headers: have > 0 ? { Range: `bytes=${have}-` } : {},
      signal: controller.signal,
    });
    if (response.status === 416) {
      // The server has fewer bytes than the partial: start over.
      await rm(partial, { force: true });
      throw new Error('HTTP 416 for the resumed range');
    }
    if (!response.ok || !response.body) {
      const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
      throw retryable ? new Error(`HTTP ${response.status}`) : new VoiceInstallError(`${url}: HTTP ${response.status}`);
    }
    let offset = 0;
    if (response.status === 206) {
      const range = contentRange(response.headers.get('content-range'));
      if (range?.total != null && range.total !== expected.size_bytes)
        throw new Corrupt(
          `${url} is ${range.total} bytes, the index says ${expected.size_bytes}: the mirror serves another file`,
        );
      if (range?.start !== have) {
        await rm(partial, { force: true });
        throw new Error(`the server resumed at byte ${range?.start ?? '?'} instead of ${have}`);
      }
      offset = have;
    }
    const length = response.headers.get('content-length');
    if (length !== null && offset + Number(length) !== expected.size_bytes)
      throw new Corrupt(
        `${url} is ${offset + Number(length)} bytes, the index says ${expected.size_bytes}: the mirror serves another file`,
      );

    // A 200 answers a Range request the server ignored: the whole file again, from the start.
    const file = await openPartial(partial, offset > 0);
    let written = offset;
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        clearTimeout(idle);
        idle = setTimeout(() => controller.abort(new Error(`no data for ${idleTimeoutMs / 1000} s`)), idleTimeoutMs);
        if (written + value.length > expected.size_bytes)
          throw new Corrupt(`${url} sent more than the ${expected.size_bytes} bytes the index says`);
        await file.write(value);
        written += value.length;
        onProgress(written);
      }
    } finally {
      await file.close();
      await reader.cancel().catch(() => undefined);
    }
    if (written < expected.size_bytes)
      throw new Error(`the connection ended after ${written} of ${expected.size_bytes} bytes`);
  } finally {
    clearTimeout(idle);
  }
}

/**
 * `url` into `partial` (resuming what an earlier run left there), checked
 * against the index's size and MD5. `onProgress` hears the bytes the partial holds.
 */
export async function downloadVerified(
  url: URL,
  partial: string,
  expected: IndexFile,
  onProgress: (done: number) => void,
  options: DownloadOptions = {},
): Promise<void> {
  const { attempts = 4, backoffMs = 1000, idleTimeoutMs = 60_000 } = options;
  for (let attempt = 1; ; attempt++) {
    const have = await partialSize(partial);
    if (have > expected.size_bytes) await rm(partial, { force: true });
    try {
      if (have !== expected.size_bytes) await fetchRest(url, partial, expected, idleTimeoutMs, onProgress);
      break;
    } catch (error) {
      if (error instanceof Corrupt) await rm(partial, { force: true });
      if (error instanceof VoiceInstallError) throw error;
      if (attempt >= attempts)
        throw new InterruptedDownload(
          `downloading ${url} failed ${attempts} times (last: ${(error as Error).message}); ${partial} keeps what arrived: run the command again to resume`,
        );
      await sleep(backoffMs * 2 ** (attempt - 1));
    }
  }
  onProgress(expected.size_bytes);
  const md5 = await md5Of(partial);
  if (md5 !== expected.md5_digest.toLowerCase()) {
    await rm(partial, { force: true });
    throw new VoiceInstallError(
      `${url}: MD5 ${md5} differs from the index's ${expected.md5_digest}: the download is corrupt or the mirror serves another file; nothing was installed`,
    );
  }
}
