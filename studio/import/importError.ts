/**
 * Why a document cannot be imported. The API maps each code to its problem
 * response (`unsupported_media_type` to 415, the others to 422); the message
 * names the cause in words a user can act on.
 */
export type ImportErrorCode =
  'document_protected' | 'no_text_layer' | 'document_unreadable' | 'document_too_large' | 'unsupported_media_type';

export class ImportError extends Error {
  override name = 'ImportError';
  constructor(
    readonly code: ImportErrorCode,
    message: string,
  ) {
    super(message);
  }
}
