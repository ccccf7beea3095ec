/**
 * The error codes of API.md, one factory each. Handlers throw these; the
 * problem middleware turns them into application/problem+json.
 */
export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    readonly errors?: FieldErrors,
    readonly headers: Record<string, string> = {},
    /** Members the problem body carries beside the standard ones (RFC 9457 extensions), e.g. a 402's `balance`. */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

function firstFieldMessage(errors: FieldErrors): string {
  const [field, messages] = Object.entries(errors)[0] ?? ['request', ['Invalid.']];
  return `${field}: ${messages[0]}`;
}

export const validationError = (errors: FieldErrors) =>
  new ApiError(400, 'validation_error', 'Invalid request', firstFieldMessage(errors), errors);
export const invalidJson = (detail = 'The request body is not valid JSON.') =>
  new ApiError(400, 'invalid_json', 'Malformed JSON', detail);
export const consentRequired = () =>
  new ApiError(
    400,
    'consent_required',
    'Consent required',
    'consent: The speaker must have authorized cloning (consent=true).',
    {
      consent: ['Must be true.'],
    },
  );
export const notAuthenticated = () =>
  new ApiError(
    401,
    'not_authenticated',
    'Not authenticated',
    'Authentication credentials were not provided.',
    undefined,
    {
      'WWW-Authenticate': 'Bearer',
    },
  );
export const authenticationFailed = (detail = 'Invalid credentials.') =>
  new ApiError(401, 'authentication_failed', 'Authentication failed', detail, undefined, {
    'WWW-Authenticate': 'Bearer',
  });
export const tokenInvalid = (detail = 'The token is invalid.') =>
  new ApiError(401, 'token_invalid', 'Invalid token', detail, undefined, {
    'WWW-Authenticate': 'Bearer error="invalid_token"',
  });
export const tokenExpired = () =>
  new ApiError(401, 'token_expired', 'Token expired', 'The token has expired.', undefined, {
    'WWW-Authenticate': 'Bearer error="invalid_token"',
  });
/** What a refused request needed and what the account had (both in credits): the 402 body's `required` and `balance`. */
export interface CreditShortfall {
  balance: number;
  required: number;
}
export const insufficientCredits = (detail: string, { balance, required }: CreditShortfall) =>
  new ApiError(402, 'insufficient_credits', 'Insufficient credits', detail, undefined, {}, { balance, required });
export const emailNotVerified = () =>
  new ApiError(403, 'email_not_verified', 'Email not verified', 'Verify your email address before logging in.');
export const permissionDenied = (detail: string) => new ApiError(403, 'permission_denied', 'Permission denied', detail);
/** A wrong password where one confirms an action (account deletion): not 401, the caller's credentials are fine. */
export const passwordIncorrect = () =>
  new ApiError(403, 'permission_denied', 'Permission denied', 'password: The password is incorrect.', {
    password: ['The password is incorrect.'],
  });
export const planLimitReached = (detail: string) =>
  new ApiError(403, 'plan_limit_reached', 'Plan limit reached', detail);
export const notFound = (detail = 'Not found.') => new ApiError(404, 'not_found', 'Not found', detail);
export const methodNotAllowed = (allowed: string[]) =>
  new ApiError(405, 'method_not_allowed', 'Method not allowed', `Allowed methods: ${allowed.join(', ')}.`, undefined, {
    Allow: allowed.join(', '),
  });
export const emailTaken = () =>
  new ApiError(409, 'email_taken', 'Email taken', 'email: An account with this email already exists.', {
    email: ['An account with this email already exists.'],
  });
export const conflict = (detail: string, errors?: FieldErrors) =>
  new ApiError(409, 'conflict', 'Conflict', detail, errors);
export const voiceNotReady = () =>
  new ApiError(409, 'voice_not_ready', 'Voice not ready', 'The voice is not ready for synthesis.');
export const voiceConsentRevoked = () =>
  new ApiError(
    409,
    'voice_consent_revoked',
    'Voice consent revoked',
    'The consent for this cloned voice was revoked; it can no longer be used.',
  );
export const notReady = () => new ApiError(409, 'not_ready', 'Not ready', 'The synthesis has not completed.');
export const timestampsUnavailable = () =>
  new ApiError(
    409,
    'timestamps_unavailable',
    'Timestamps unavailable',
    "This synthesis has no word timestamps: its voice's engine does not report timing (or it was made before the service kept them).",
  );
export const idempotencyKeyInUse = () =>
  new ApiError(
    409,
    'idempotency_key_in_use',
    'Idempotency key in use',
    'A request with this Idempotency-Key is still being processed.',
  );
export const payloadTooLarge = (detail = 'The request body is too large.') =>
  new ApiError(413, 'payload_too_large', 'Payload too large', detail);
export const unsupportedMediaType = (detail: string) =>
  new ApiError(415, 'unsupported_media_type', 'Unsupported media type', detail);
export const rangeNotSatisfiable = (size: number) =>
  new ApiError(
    416,
    'range_not_satisfiable',
    'Range not satisfiable',
    'The requested range is outside the audio.',
    undefined,
    {
      'Content-Range': `bytes */${size}`,
    },
  );
export const idempotencyKeyReused = () =>
  new ApiError(
    422,
    'idempotency_key_reused',
    'Idempotency key reused',
    'This Idempotency-Key was used with a different request body.',
  );
export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(
    429,
    'rate_limited',
    'Too many requests',
    `Rate limit exceeded; retry in ${retryAfterSeconds} s.`,
    undefined,
    {
      'Retry-After': String(retryAfterSeconds),
    },
  );
export const internalError = () =>
  new ApiError(
    500,
    'internal_error',
    'Internal error',
    'An unexpected error occurred; it has been logged with the request id.',
  );
export const serviceUnavailable = (dependency: string) =>
  new ApiError(
    503,
    'service_unavailable',
    'Service unavailable',
    `A dependency is unavailable: ${dependency}.`,
    undefined,
    {
      'Retry-After': '5',
    },
  );

/** Studio imports (studio/import: ImportError) that cannot be read. */
export const documentProtected = (detail: string) =>
  new ApiError(422, 'document_protected', 'Document protected', detail);
export const noTextLayer = (detail: string) => new ApiError(422, 'no_text_layer', 'No text layer', detail);
export const documentUnreadable = (detail: string) =>
  new ApiError(422, 'document_unreadable', 'Document unreadable', detail);
export const documentTooLarge = (detail: string) =>
  new ApiError(413, 'document_too_large', 'Document too large', detail);
