import type { Context } from 'koa';
import type { Storage } from '../../../lib/storage';
import { CONTENT_TYPES } from '../../../audio/finish';
import type { OutputFormat } from '../../../audio/prosody';
import { sendStored } from '../../storedFile';

/** Streams a synthesis's audio with Content-Length and Range support. */
export function sendAudio(
  ctx: Context,
  storage: Storage,
  key: string,
  format: string,
  fileName: string,
): Promise<void> {
  return sendStored(ctx, storage, key, {
    contentType: CONTENT_TYPES[format as OutputFormat],
    fileName: `${fileName}.${format}`,
    missing: 'No such synthesis.',
  });
}
