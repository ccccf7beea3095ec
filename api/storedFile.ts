import type { Context } from 'koa';
import type { Storage } from '../lib/storage';
import { notFound, rangeNotSatisfiable } from './errors';

/** Parses a single `bytes=` range (RFC 9110); null means "send everything" (no header, or one we do not serve). */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

/**
 * Streams a stored object with Content-Length and single-range support
 * (206, or 416 past its end). `fileName` includes its extension;
 * `attachment` asks browsers to save it rather than play it.
 */
export async function sendStored(
  ctx: Context,
  storage: Storage,
  key: string,
  file: { contentType: string; fileName: string; attachment?: boolean; missing?: string },
): Promise<void> {
  const size = await storage.size(key);
  // Deleted since its row was read (a DELETE racing this GET): gone, like its resource.
  if (size === null) throw notFound(file.missing ?? 'No such file.');
  const range = parseRange(ctx.get('Range') || undefined, size);
  if (range === 'unsatisfiable') throw rangeNotSatisfiable(size);
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Content-Disposition', `${file.attachment ? 'attachment' : 'inline'}; filename="${file.fileName}"`);
  ctx.set('Cache-Control', 'private, max-age=3600');
  ctx.type = file.contentType;
  if (range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
    ctx.length = range.end - range.start + 1;
    ctx.body = await storage.get(key, range);
  } else {
    ctx.status = 200;
    ctx.length = size;
    ctx.body = await storage.get(key);
  }
}
