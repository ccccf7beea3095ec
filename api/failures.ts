import { ServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { unavailableDependency } from '../lib/unavailable';
import {
  ApiError,
  internalError,
  invalidJson,
  notFound,
  payloadTooLarge,
  serviceUnavailable,
  unsupportedMediaType,
  validationError,
} from './errors';

/**
 * The one place that maps what libraries throw (body parser, knex/pg,
 * Temporal, MinIO) to the API's error codes. Anything unrecognised is a bug: 500.
 */

interface LibraryError {
  name?: string;
  code?: string;
  type?: string;
  status?: number;
  expose?: boolean;
}

/** True when `error` or one of its causes is an ApplicationFailure of this type (Temporal nests them). */
export function hasFailureType(error: unknown, type: string): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof ApplicationFailure && current.type === type) return true;
  }
  return false;
}

const PG_UNIQUE_VIOLATION = '23505';

/**
 * The name of the unique constraint a PostgreSQL error broke (pg's own
 * `constraint` field, found through Objection's or knex's wrappers), or null.
 * Never the message text: a value with a newline in it defeats any regex over
 * "Key (...)=(...) already exists".
 */
export function violatedUniqueConstraint(error: unknown): string | null {
  const seen = new Set<unknown>();
  for (
    let current = error as { code?: unknown; constraint?: unknown; nativeError?: unknown; cause?: unknown } | undefined;
    current && typeof current === 'object' && !seen.has(current);
  ) {
    seen.add(current);
    if (current.code === PG_UNIQUE_VIOLATION && typeof current.constraint === 'string') return current.constraint;
    current = (current.nativeError ?? current.cause) as typeof current;
  }
  return null;
}

// gRPC DEADLINE_EXCEEDED and UNAVAILABLE: Temporal (or its workers) did not answer in time.
const GRPC_UNAVAILABLE = new Set([4, 14]);

function dependencyDown(error: LibraryError & { message?: string }): string | null {
  if (error instanceof ServiceError || error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return 'temporal';
  if (
    typeof (error as { code?: unknown }).code === 'number' &&
    GRPC_UNAVAILABLE.has((error as unknown as { code: number }).code)
  )
    return 'temporal';
  return unavailableDependency(error);
}

export function toApiError(thrown: unknown): { error: ApiError; unexpected: boolean } {
  if (thrown instanceof ApiError) return { error: thrown, unexpected: false };
  const error = (thrown ?? {}) as LibraryError & { message?: string };
  // Errors from the JSON body parser (raw-body / co-body).
  if (error.type === 'entity.too.large' || error.status === 413) return { error: payloadTooLarge(), unexpected: false };
  if (error.type === 'encoding.unsupported' || error.status === 415) {
    return { error: unsupportedMediaType('Unsupported charset; send UTF-8 JSON.'), unexpected: false };
  }
  // The JSON parser refuses a "__proto__" member: to the client it is an unknown field.
  if (thrown instanceof SyntaxError && error.message === 'Object contains forbidden prototype property') {
    return { error: validationError({ ['__proto__']: ['Unknown field.'] }), unexpected: false };
  }
  if (
    error.type === 'entity.parse.failed' ||
    (error.status === 400 && (error.expose || thrown instanceof SyntaxError))
  ) {
    return { error: invalidJson(), unexpected: false };
  }
  // An object removed between the lookup of its row and the read (a DELETE racing a GET) is gone: 404.
  if (error.name === 'S3Error' && (error.code === 'NoSuchKey' || error.code === 'NotFound'))
    return { error: notFound(), unexpected: false };
  const dependency = dependencyDown(error);
  if (dependency) return { error: serviceUnavailable(dependency), unexpected: true };
  return { error: internalError(), unexpected: true };
}
