import type { Middleware } from 'koa';
import type { ApiError } from '../../errors';
import { toApiError } from '../../failures';

/**
 * OpenAI's error shape on the OpenAI-compatible paths, so its SDKs raise the
 * right class: `{"error": {"message", "type", "param", "code"}}`, 401 for a
 * bad key, 400 for a bad request, 429 for a rate limit and for an empty
 * balance (`insufficient_quota`, as OpenAI says it; never a 401 or a 402).
 * The service's own codes stay available in `code` where OpenAI has none.
 */

export const isOpenAiPath = (path: string) => /^\/(api\/)?v1\/(audio\/speech|audio\/voices|models)(\/|$)/.test(path);

/** Our field names where they differ from OpenAI's (the shared submit checks say `text`, `voice_id`, …). */
const PARAM_NAMES: Record<string, string> = {
  text: 'input',
  voice_id: 'voice',
  output_format: 'response_format',
  speed: 'speed',
};

interface OpenAiErrorBody {
  /** `balance` and `required` (credits) on `insufficient_quota`, as the problem body of a 402 carries them. */
  error: {
    message: string;
    type: string;
    param: string | null;
    code: string | null;
    balance?: unknown;
    required?: unknown;
  };
}

export function toOpenAiError(error: ApiError): { status: number; body: OpenAiErrorBody } {
  const field = error.errors ? Object.keys(error.errors)[0] : undefined;
  // Own keys only: a field named `__proto__` (an unknown field) must not read Object.prototype.
  const param = field ? (Object.hasOwn(PARAM_NAMES, field) ? PARAM_NAMES[field] : field) : null;
  const message = field ? `${param}: ${error.errors![field][0]}` : error.message;
  const body = (type: string, code: string | null, text = message) => ({ error: { message: text, type, param, code } });
  switch (error.code) {
    case 'insufficient_credits': {
      const quota = body(
        'insufficient_quota',
        'insufficient_quota',
        `You exceeded your current quota: ${error.message}`,
      );
      const { balance, required } = error.extensions;
      return { status: 429, body: { error: { ...quota.error, balance, required } } };
    }
    case 'rate_limited':
      return { status: 429, body: body('requests', 'rate_limit_exceeded') };
    case 'not_authenticated':
    case 'authentication_failed':
    case 'token_invalid':
    case 'token_expired':
      return { status: 401, body: body('invalid_request_error', 'invalid_api_key') };
    case 'validation_error':
      return {
        status: 400,
        body: body('invalid_request_error', param === 'model' ? 'model_not_found' : 'invalid_value'),
      };
    default:
      if (error.status >= 500) return { status: error.status, body: body('server_error', error.code) };
      return { status: error.status, body: body('invalid_request_error', error.code) };
  }
}

/** Turns errors on the OpenAI-compatible paths into OpenAI's shape; sits inside the problem+json middleware. */
export const openAiErrors: Middleware = async (ctx, next) => {
  if (!isOpenAiPath(ctx.path)) return next();
  try {
    await next();
  } catch (thrown) {
    const { error, unexpected } = toApiError(thrown);
    if (unexpected) ctx.state.error = thrown;
    const { status, body } = toOpenAiError(error);
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    ctx.status = status;
    ctx.body = body;
  }
};
