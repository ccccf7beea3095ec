import multer from '@koa/multer';
import type { Context } from 'koa';
import { Project } from '../../../db/models/Project';
import type { ApiDeps } from '../../deps';
import { writeDocument, studioLimits } from '../../../studio/content';
import type { ImportedDocument } from '../../../studio/document';
import { ImportError } from '../../../studio/import/importError';
import {
  documentProtected,
  documentTooLarge,
  documentUnreadable,
  noTextLayer,
  payloadTooLarge,
  unsupportedMediaType,
  validationError,
} from '../../errors';
import { rejectNul, toFieldErrors } from '../../route';
import { asApiError } from './commands';
import { importOnThread } from './importThread';
import { ContentBody } from './schema';

/** Largest document accepted (an upload, or a JSON body's text). */
export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;

// In memory: a document is read whole by the import anyway; the cap bounds it.
const upload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: MAX_DOCUMENT_BYTES, files: 1, fields: 4, fieldSize: 1024, parts: 6 },
});

interface Received {
  bytes: Buffer;
  filename?: string;
  contentType?: string;
  format?: 'markdown' | 'text' | 'html';
  mode: 'replace' | 'append';
}

async function readUpload(ctx: Context): Promise<Received> {
  try {
    await upload.single('file')(ctx as never, async () => undefined);
  } catch (thrown) {
    const error = thrown as { code?: string; field?: string };
    if (error.code === 'LIMIT_FILE_SIZE') throw payloadTooLarge('The file is larger than 50 MiB.');
    if (error.code === 'LIMIT_UNEXPECTED_FILE' || error.code === 'LIMIT_FILE_COUNT')
      throw validationError({ file: ['Send exactly one file, in the field "file".'] });
    if (error.code?.startsWith('LIMIT_'))
      throw validationError({ [error.field ?? 'non_field_errors']: ['Too many or too large form fields.'] });
    throw validationError({ non_field_errors: ['The multipart body could not be read.'] });
  }
  const file = (ctx as unknown as { file?: { buffer: Buffer; originalname: string; mimetype: string } }).file;
  const fields = (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
  rejectNul(fields);
  const unknown = Object.keys(fields).filter((field) => field !== 'mode');
  if (unknown.length) throw validationError({ [unknown[0]]: ['Unknown field.'] });
  const mode = fields.mode ?? 'replace';
  if (mode !== 'replace' && mode !== 'append') throw validationError({ mode: ['Must be replace or append.'] });
  if (!file) throw validationError({ file: ['This field is required.'] });
  if (file.buffer.length === 0) throw validationError({ file: ['The file is empty.'] });
  return { bytes: file.buffer, filename: file.originalname, contentType: file.mimetype, mode };
}

function readJson(ctx: Context): Received {
  const parsed = ContentBody.safeParse(ctx.request.body ?? {});
  if (!parsed.success) throw validationError(toFieldErrors(parsed.error));
  rejectNul(parsed.data);
  const bytes = Buffer.from(parsed.data.text, 'utf8');
  if (bytes.length > MAX_DOCUMENT_BYTES) throw payloadTooLarge('The text is larger than 50 MiB.');
  return { bytes, format: parsed.data.format, mode: parsed.data.mode };
}

/** An ImportError as API.md's problem: 415, 413 document_too_large, 422 with its code. */
function importProblem(error: ImportError) {
  switch (error.code) {
    case 'unsupported_media_type':
      return unsupportedMediaType(error.message);
    case 'document_too_large':
      return documentTooLarge(error.message);
    case 'document_protected':
      return documentProtected(error.message);
    case 'no_text_layer':
      return noTextLayer(error.message);
    default:
      return documentUnreadable(error.message);
  }
}

/**
 * POST /projects/<id>/content/: reads the document (multipart `file`, or
 * JSON `{format, text}`), imports it (studio/import) and writes it into the
 * project with its cover, in one transaction (studio/content.ts).
 */
export async function importContent(ctx: Context, { db, storage }: Pick<ApiDeps, 'db' | 'storage'>, project: Project) {
  let received: Received;
  if (ctx.is('multipart/form-data')) received = await readUpload(ctx);
  else if (ctx.is('application/json', 'application/*+json')) received = readJson(ctx);
  else throw unsupportedMediaType('Send multipart/form-data with the document in "file", or JSON {format, text}.');

  const limits = await studioLimits(db, project.account_id);
  let document: ImportedDocument;
  try {
    document = await importOnThread(received.bytes, {
      filename: received.filename,
      contentType: received.contentType,
      format: received.format,
      maxBytes: MAX_DOCUMENT_BYTES,
      maxCharacters: limits.max_project_characters,
    });
  } catch (error) {
    if (error instanceof ImportError) throw importProblem(error);
    throw error;
  }

  const coverKey = `projects/${project.id}/cover`;
  const cover = document.cover;
  const dropCover = received.mode === 'replace' && !cover && project.cover_key !== null;
  try {
    await writeDocument(db, project, document, received.mode, async (trx) => {
      if (cover) {
        await storage.put(coverKey, cover.bytes, cover.contentType);
        await Project.query(trx)
          .patch({ cover_key: coverKey, cover_content_type: cover.contentType })
          .where({ id: project.id });
      } else if (dropCover) {
        await Project.query(trx).patch({ cover_key: null, cover_content_type: null }).where({ id: project.id });
      }
    });
  } catch (error) {
    throw asApiError(error);
  }
  if (dropCover) await storage.remove(coverKey).catch(() => undefined);
}
