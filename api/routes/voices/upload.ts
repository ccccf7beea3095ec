import multer from '@koa/multer';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { Context } from 'koa';
import { z } from 'zod';
import { sniffAudioFile } from '../../../audio/cloning';
import { consentRequired, payloadTooLarge, unsupportedMediaType, validationError } from '../../errors';
import { rejectNul, toFieldErrors } from '../../route';

/** Largest sample accepted; enforced while the upload streams to a temporary file. */
const MAX_SAMPLE_BYTES = 20 * 1024 * 1024;

export const CloneForm = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'This field is required.')
    .max(100, 'Must be at most 100 characters.')
    .meta({ description: 'The voice’s name, 1-100 characters' }),
  description: z
    .string()
    .max(500, 'Must be at most 500 characters.')
    .default('')
    .meta({ description: 'Notes on the voice, at most 500 characters' }),
  language: z
    .string()
    .max(35, 'Must be at most 35 characters.')
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'Must be a BCP 47 language tag, e.g. en-US.')
    .default('en-US')
    .meta({ description: 'The language spoken in the sample, a BCP 47 tag' }),
  consent: z.literal('true', 'Must be true: the speaker authorized cloning.').meta({
    description:
      'Must be the string `true`: you affirm that the speaker authorized cloning their voice (the service records account, time, client IP and file checksum)',
  }),
});

// The client's file name is never used: the temporary file gets a random name.
const upload = multer({
  storage: multer.diskStorage({
    destination: tmpdir(),
    filename: (_req, _file, done) => done(null, `openvox-upload-${randomUUID()}`),
  }),
  limits: { fileSize: MAX_SAMPLE_BYTES, files: 1, fields: 8, fieldSize: 8 * 1024, parts: 12 },
});

interface MulterLike {
  code?: string;
  field?: string;
}

async function readForm(ctx: Context): Promise<void> {
  try {
    await upload.single('file')(ctx as never, async () => undefined);
  } catch (thrown) {
    const error = thrown as MulterLike & Error;
    if (error.code === 'LIMIT_FILE_SIZE') throw payloadTooLarge('The file is larger than 20 MiB.');
    if (error.code === 'LIMIT_UNEXPECTED_FILE' || error.code === 'LIMIT_FILE_COUNT')
      throw validationError({ file: ['Send exactly one file, in the field "file".'] });
    if (error.code?.startsWith('LIMIT_'))
      throw validationError({ [error.field ?? 'non_field_errors']: ['Too many or too large form fields.'] });
    throw validationError({ non_field_errors: ['The multipart body could not be read.'] });
  }
}

async function sha256File(path: string): Promise<Buffer> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest();
}

export interface AcceptedSample {
  voiceId: string;
  form: z.output<typeof CloneForm>;
  filePath: string;
  bytes: number;
  sha256: Buffer;
}

/**
 * Reads and checks an upload in API.md's order: multipart (415), size (413),
 * consent (400 consent_required), fields (400), audio container sniffed from
 * the content (415). The plan's limit (403) is checked where the voice is
 * recorded. The caller removes the temporary file with `cleanup`.
 */
export async function receiveSample(ctx: Context): Promise<{ sample: AcceptedSample; cleanup(): Promise<void> }> {
  if (!ctx.is('multipart/form-data'))
    throw unsupportedMediaType('Send multipart/form-data with the sample in the field "file".');
  await readForm(ctx);
  const file = (ctx as unknown as { file?: { path: string; size: number } }).file;
  const cleanup = async () => {
    if (file) await rm(file.path, { force: true });
  };
  try {
    const fields = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
    if (fields.consent !== 'true') throw consentRequired();
    rejectNul(fields);
    const parsed = CloneForm.safeParse({ ...fields });
    const errors = parsed.success ? {} : toFieldErrors(parsed.error);
    if (!file || file.size === 0) errors.file = [file ? 'The file is empty.' : 'This field is required.'];
    if (!file || !parsed.success || Object.keys(errors).length) throw validationError(errors);
    if (!(await sniffAudioFile(file.path))) {
      throw unsupportedMediaType('The file is not WAV, MP3, OGG (Vorbis or Opus), FLAC or M4A (AAC or ALAC) audio.');
    }
    return {
      sample: {
        voiceId: randomUUID(),
        form: parsed.data,
        filePath: file.path,
        bytes: file.size,
        sha256: await sha256File(file.path),
      },
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
