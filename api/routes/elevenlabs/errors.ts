import type { Context, Middleware } from 'koa';
import type { ApiError } from '../../errors';
import { toApiError } from '../../failures';

/**
 * ElevenLabs' error shape on its paths, `{"detail": {"status", "message"}}`,
 * with the status codes it uses: 401 for a bad key and for an empty balance
 * (`quota_exceeded`, as ElevenLabs says it), 400 for an unknown voice or a
 * text over the limit, 422 for other bad input, 429 for too many streams.
 * The service's own codes stay in `status` where ElevenLabs has none.
 */

/** The paths only ElevenLabs' API has (base URL = the service's root). */
const ELEVENLABS_PATH = /^\/(v1\/(text-to-speech|voices|user|history)|v2\/voices)(\/|$)/;
/** Paths both ElevenLabs and OpenAI use: a request carrying `xi-api-key` is ElevenLabs'. */
const SHARED_PATH = /^\/v1\/models\/?$/;

/** Whether the request speaks ElevenLabs' API (its path, or a shared path with its key header). */
export const isElevenLabsRequest = (ctx: Pick<Context, 'path' | 'get'>): boolean =>
  ELEVENLABS_PATH.test(ctx.path) || (SHARED_PATH.test(ctx.path) && ctx.get('xi-api-key') !== '');

/** Our field names where ElevenLabs' differ (the shared submit checks say `voice_id`, `pronunciation_dictionary_ids`). */
const FIELD_NAMES: Record<string, string> = {
  pronunciation_dictionary_ids: 'pronunciation_dictionary_locators',
  text_normalization: 'apply_text_normalization',
  speed: 'voice_settings.speed',
};

interface ElevenLabsErrorBody {
  detail: { status: string; message: string };
}

export function toElevenLabsError(error: ApiError, path: string): { status: number; body: ElevenLabsErrorBody } {
  const body = (status: string, message = error.message) => ({ detail: { status, message } });
  switch (error.code) {
    case 'validation_error': {
      const [field, messages] = Object.entries(error.errors ?? {})[0] ?? ['request', [error.message]];
      const name = Object.hasOwn(FIELD_NAMES, field) ? FIELD_NAMES[field] : field;
      const message = `${name}: ${messages[0]}`;
      if (field === 'voice_id') return { status: 400, body: body('voice_not_found', message) };
      if (field === 'model_id') return { status: 400, body: body('model_not_found', message) };
      if (field === 'text' && /at most \d+ characters|says \d+ characters/.test(messages[0]))
        return { status: 400, body: body('max_character_limit_exceeded', message) };
      if (field === 'output_format') return { status: 422, body: body('invalid_output_format', message) };
      return { status: 422, body: body('invalid_parameters', message) };
    }
    case 'insufficient_credits':
      return { status: 401, body: body('quota_exceeded') };
    case 'not_authenticated':
      return { status: 401, body: body('needs_authorization', 'Send your API key in the xi-api-key header.') };
    case 'authentication_failed':
    case 'token_invalid':
    case 'token_expired':
      return { status: 401, body: body('invalid_api_key') };
    case 'rate_limited':
      return { status: 429, body: body('too_many_concurrent_requests') };
    case 'plan_limit_reached':
      return { status: 400, body: body('voice_limit_reached') };
    case 'not_found': {
      const status = path.includes('/history')
        ? 'history_item_not_found'
        : /\/(voices|text-to-speech)\//.test(path)
          ? 'voice_not_found'
          : 'not_found';
      return { status: 404, body: body(status) };
    }
    default:
      return { status: error.status, body: body(error.code) };
  }
}

/**
 * On ElevenLabs' requests: the key in `xi-api-key` authenticates as a Bearer
 * token would (an API key `vk_…` or an access token; `Authorization: Bearer`
 * works too), and errors come in ElevenLabs' shape. Sits inside the
 * problem+json middleware, beside OpenAI's.
 */
export const elevenLabsRequests: Middleware = async (ctx, next) => {
  if (!isElevenLabsRequest(ctx)) return next();
  const key = ctx.get('xi-api-key');
  if (key && !ctx.get('Authorization')) ctx.req.headers.authorization = `Bearer ${key}`;
  try {
    await next();
  } catch (thrown) {
    const { error, unexpected } = toApiError(thrown);
    if (unexpected) ctx.state.error = thrown;
    const { status, body } = toElevenLabsError(error, ctx.path);
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    ctx.status = status;
    ctx.body = body;
  }
};
