import { ServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { unavailableDependency } from '../lib/unavailable';
import {
  ApiError,
  internalError,
  invalidJson,
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

// gRPC DEADLINE_EXCEEDED and UNAVAILABLE: Temporal (or its workers) did not answer in time.
const GRPC_UNAVAILABLE = new Set([4, 14]);

function dependencyDown(error: LibraryError & { message?: string }): string | null {
  if (error instanceof ServiceError || error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return 'temporal';
  if (typeof (error as { code?: unknown }).code === 'number' && GRPC_UNAVAILABLE.has((error as unknown as { code: number }).code)) return 'temporal';
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
  if (error.type === 'entity.parse.failed' || (error.status === 400 && (error.expose || thrown instanceof SyntaxError))) {
    return { error: invalidJson(), unexpected: false };
  }
  const dependency = dependencyDown(error);
  if (dependency) return { error: serviceUnavailable(dependency), unexpected: true };
  return { error: internalError(), unexpected: true };
}
