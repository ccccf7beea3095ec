import { z } from 'zod';
import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi';
import { license } from '../package.json';
import type { Family, Route } from './route';
import { COST_RULE } from '../synthesis/cost';

/** The RFC 9457 problem body every error response carries. */
const Problem = z
  .object({
    type: z.string().meta({ description: 'A URI reference to the code’s entry on /api/docs/errors/' }),
    title: z.string().meta({ description: 'A short summary of the problem type' }),
    status: z.number().int().meta({ description: 'The HTTP status code', example: 400 }),
    code: z.string().meta({ description: 'A stable machine-readable code to branch on, e.g. `validation_error`' }),
    detail: z.string().meta({ description: 'What went wrong with this request, in words' }),
    errors: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .meta({ description: 'Field problems: each field name (or `non_field_errors`) with its messages' }),
    balance: z.number().int().optional().meta({
      description:
        'On `insufficient_credits`: your available credits now (after reservations, as the profile’s `credit_balance`)',
      example: 120,
    }),
    required: z
      .number()
      .int()
      .optional()
      .meta({ description: 'On `insufficient_credits`: the credits the refused request needed', example: 4096 }),
    request_id: z
      .string()
      .meta({ description: 'The request id (also the X-Request-Id header); quote it when reporting a problem' }),
  })
  .meta({ id: 'Problem' });

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (`validation_error`, `invalid_json`)',
  401: 'Missing or invalid credentials',
  402: 'Insufficient credits',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  416: 'Range not satisfiable',
  422: 'Unprocessable request',
  429: 'Rate limited',
  500: 'Internal error (`internal_error`), logged with the request id',
  503: 'A dependency is unavailable',
};

/** A JSON response of `schema`, for a route's `responses`. */
export function jsonResponse(description: string, schema: z.ZodType) {
  return { description, content: { 'application/json': { schema } } };
}

export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: PROBLEM_DESCRIPTIONS[status], content: { 'application/problem+json': { schema: Problem } } },
    ]),
  );
}

/** Tags in the order the docs page shows them, each with what it groups. */
const TAGS = [
  {
    name: 'Auth',
    description: 'Register, verify the email, log in, refresh and revoke tokens; the profile with balance and usage.',
  },
  { name: 'API keys', description: 'Long-lived `vk_…` keys for servers and scripts; shown once, stored as a SHA-256.' },
  {
    name: 'Text to speech',
    description: 'Submit a synthesis (202 + status URL), poll it, download the audio, list and delete history.',
  },
  {
    name: 'Voices',
    description: 'The premade catalog and your cloned voices (acoustic matching of a base voice to a sample).',
  },
  { name: 'Projects', description: 'Group syntheses; names are unique per account.' },
  {
    name: 'Pronunciation dictionaries',
    description: 'Words said your way (an alias or IPA), per account or per project; imported and exported as W3C PLS.',
  },
  { name: 'Plans', description: 'Subscription plans, cheapest first.' },
  {
    name: 'Webhooks',
    description:
      'Endpoints told when a job ends (signed with HMAC-SHA256, retried for 24 h); their secrets and deliveries.',
  },
  {
    name: 'OpenAI-compatible',
    description:
      "OpenAI's speech API (`/v1/audio/speech`, streamed sentence by sentence), models and voices, with OpenAI's error shape: point an OpenAI client's base URL here.",
  },
  {
    name: 'ElevenLabs-compatible',
    description:
      "ElevenLabs' API (text to speech with timestamps, voices, instant cloning, user, history) with its error shape: point an ElevenLabs client's base URL at the service's root, the key in `xi-api-key`.",
  },
  { name: 'Operations', description: 'Index, health, readiness, metrics and these docs.' },
  {
    name: 'Unversioned aliases',
    description:
      'The same endpoints under `/api/...` for clients written against it: identical handlers, `task_id` instead of `id` in synthesis responses, paths in this family. New clients use `/api/v1/...`.',
  },
];
const ALIAS_TAG = 'Unversioned aliases';

const header = (description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ description, schema });
/**
 * Headers on most responses, written once under `components.headers` and
 * referenced: inline, X-Request-Id alone repeated over ~1,000 responses made
 * 423 KB of a 733 KB document that the docs page parses on every load.
 */
const SHARED_HEADERS = {
  RequestId: header(
    'The request id (yours if it matched `[A-Za-z0-9._~:-]{1,128}`, else a new one); problem bodies repeat it as `request_id`.',
  ),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }),
};
const sharedHeader = (name: keyof typeof SHARED_HEADERS) => ({ $ref: `#/components/headers/${name}` });
const REQUEST_ID = sharedHeader('RequestId');
const RETRY_AFTER = sharedHeader('RetryAfter');
const AUDIO_HEADERS = {
  'Content-Length': header('Size of the audio in bytes.', { type: 'integer', minimum: 0 }),
  'Accept-Ranges': header('`bytes`: send `Range: bytes=<first>-<last>` for a part (206).', {
    type: 'string',
    enum: ['bytes'],
  }),
  'Content-Disposition': header('`inline; filename="<id>.<format>"`.'),
  'Cache-Control': header('`private, max-age=3600`: the audio of a synthesis never changes.'),
};
/** Response headers that only some operations set, by the operation's v1 (or only) path, method and status. */
const ROUTE_HEADERS: Record<string, Record<string, ReturnType<typeof header>>> = {
  'post /api/v1/tts/synthesize/ 202': {
    Location: header('The status URL of the synthesis, in the caller’s family.'),
    'Idempotent-Replayed': header('`true` when this answer replays the first request with the same Idempotency-Key.', {
      type: 'string',
      enum: ['true'],
    }),
  },
  'post /api/v1/voices/upload/ 202': { Location: header('The voice’s URL, in the caller’s family.') },
  'post /api/v1/projects/ 201': { Location: header('The project’s URL, in the caller’s family.') },
  'post /api/v1/pronunciation-dictionaries/ 201': { Location: header('The dictionary’s URL, in the caller’s family.') },
  'post /api/v1/webhooks/ 201': { Location: header('The endpoint’s URL, in the caller’s family.') },
  'get /api/v1/tts/history/{id}/audio/ 200': AUDIO_HEADERS,
  'get /api/v1/tts/history/{id}/audio/ 206': {
    ...AUDIO_HEADERS,
    'Content-Range': header('`bytes <first>-<last>/<size>`: the part sent, in bytes.'),
    'Content-Length': header('Bytes in this part.', { type: 'integer', minimum: 0 }),
  },
  'post /api/v1/audio/speech/ 200': {
    'X-Synthesis-Id': header('The history entry this speech is recorded as (its id under /api/v1/tts/history/).', {
      type: 'string',
      format: 'uuid',
    }),
  },
};
/** Request bodies that work as they stand when tried from the docs page (by the v1 or only path). */
const REQUEST_EXAMPLES: Record<string, unknown> = {
  'post /api/v1/auth/register/': { email: 'ada@example.com', password: 'a long passphrase', name: 'Ada' },
  'post /api/v1/auth/login/': { email: 'ada@example.com', password: 'a long passphrase' },
  'patch /api/v1/auth/profile/': { history_retention_days: 30 },
  'delete /api/v1/auth/profile/': { password: 'a long passphrase' },
  'post /api/v1/auth/session/': { email: 'ada@example.com', password: 'a long passphrase' },
  'post /api/v1/auth/resend-verification/': { email: 'ada@example.com' },
  'post /api/v1/auth/api-keys/': { name: 'build server' },
  'post /api/v1/tts/synthesize/': {
    text: 'Hello from OpenVox.',
    voice_id: 'en-us-joe',
    speed: 1,
    pitch: 0,
    emotion: 'neutral',
    output_format: 'mp3',
  },
  'post /api/v1/tts/normalize/': { text: 'Dr. Smith paid $1,250.50 on 3/4/2026.', voice_id: 'en-us-joe' },
  'post /api/v1/projects/': { name: 'Audiobook', description: 'Chapters of the first book' },
  'patch /api/v1/projects/{id}/': { description: 'Chapters 1-3 of the first book' },
  // Studio (api/routes/projects): the document is a file part (curl: -F file=@book.epub), or JSON {format, text}.
  'post /api/v1/projects/{id}/content/': { file: 'book.epub', mode: 'replace' },
  'post /api/v1/projects/{id}/chapters/': { title: 'Chapter 1', text: 'It was a dark night.\n\nThe rain fell.' },
  'patch /api/v1/projects/{id}/chapters/{cid}/': { title: 'Chapter One', index: 0 },
  'post /api/v1/projects/{id}/chapters/{cid}/blocks/': { text: 'A new paragraph.', kind: 'paragraph' },
  'patch /api/v1/projects/{id}/chapters/{cid}/blocks/{bid}/': { text: 'The corrected paragraph.' },
  'post /api/v1/projects/{id}/convert/': { chapter_ids: ['0b9f1c2e-4a1d-4c7e-9f57-2a3b4c5d6e7f'] },
  'post /api/v1/pronunciation-dictionaries/': {
    name: 'Product names',
    language: 'en-US',
    entries: [{ grapheme: 'OpenVox', alias: 'open voice box' }],
  },
  'patch /api/v1/pronunciation-dictionaries/{id}/': { name: 'Brand names' },
  'post /api/v1/pronunciation-dictionaries/{id}/entries/': { grapheme: 'Nguyen', phoneme: 'ŋwiən', alphabet: 'ipa' },
  'post /api/v1/pronunciation-dictionaries/{id}/import/': {
    pls: '<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US"><lexeme><grapheme>OpenVox</grapheme><alias>open voice box</alias></lexeme></lexicon>',
  },
  // Tokens arrive by email or from login: paste yours over the placeholder.
  'post /api/v1/auth/verify-email/': { token: 'paste-the-token-from-the-email-link' },
  'post /api/v1/auth/refresh/': { refresh: 'paste-the-refresh-token-from-login' },
  'post /api/v1/auth/logout/': { refresh: 'paste-the-refresh-token-from-login' },
  // The sample is a file part (chosen in the form; curl: -F file=@sample.wav); the other fields as they would be sent.
  'post /api/v1/voices/upload/': {
    file: 'sample.wav',
    name: 'My narrator voice',
    description: 'Read in a quiet room',
    language: 'en-US',
    consent: 'true',
  },
  'post /api/v1/audio/speech/': {
    model: 'tts-1',
    input: 'Hello from OpenVox.',
    voice: 'alloy',
    response_format: 'mp3',
  },
  'post /v1/text-to-speech/{voice_id}/': { text: 'Hello from OpenVox.', model_id: 'eleven_multilingual_v2' },
  'post /v1/text-to-speech/{voice_id}/stream/': { text: 'Hello from OpenVox.', model_id: 'eleven_multilingual_v2' },
  'post /v1/text-to-speech/{voice_id}/with-timestamps/': { text: 'Hello from OpenVox.' },
  'post /v1/text-to-speech/{voice_id}/stream/with-timestamps/': { text: 'Hello from OpenVox.' },
  'post /v1/voices/add/': { name: 'My narrator voice', files: ['sample.wav'], labels: '{"language":"en-US"}' },
  'post /api/v1/voices/attestation/': { attest: true },
  'post /api/v1/webhooks/': {
    url: 'https://example.com/openvox/webhooks',
    events: ['synthesis.completed', 'synthesis.failed'],
    description: 'Build server',
  },
  'patch /api/v1/webhooks/{id}/': { enabled: false },
};

const STATUS_HEADERS: Record<string, Record<string, ReturnType<typeof header> | ReturnType<typeof sharedHeader>>> = {
  '401': {
    'WWW-Authenticate': header(
      '`Bearer`, with `error="invalid_token"` when the token is malformed, revoked or expired.',
    ),
  },
  '405': { Allow: header('The methods this path answers.') },
  '416': { 'Content-Range': header('`bytes */<size>`: the size of the audio.') },
  '429': { 'Retry-After': RETRY_AFTER },
  '503': { 'Retry-After': RETRY_AFTER },
};

/**
 * What the zod schemas cannot say, added to the generated document in one
 * place: response headers, audio as binary, and the unversioned family
 * marked as an alias of the versioned one.
 */
function polish(document: OpenApiDocument, aliases: Map<string, string>): OpenApiDocument {
  document.components = { ...document.components, headers: { ...document.components?.headers, ...SHARED_HEADERS } };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const alias = aliases.get(`${method} ${path}`);
      if (alias) {
        operation.tags = [ALIAS_TAG];
        operation.summary = `${operation.summary} (alias of ${alias})`;
        operation.description = `Alias of \`${method.toUpperCase()} ${alias}\`: the same handler, input and errors, documented there; paths in responses are in this family, and a synthesis id is named \`task_id\`.`;
        operation['x-alias-of'] = alias;
      }
      // The OpenAI paths (/v1/...) alias their /api/v1/ twins the same way.
      const canonical = alias ?? path;
      const example = REQUEST_EXAMPLES[`${method} ${canonical}`];
      const body = operation.requestBody;
      if (example && body && !isReference(body))
        for (const media of Object.values(body.content)) if (!isReference(media)) media.example = example;
      const responses = operation.responses ?? {};
      // (The library types a status's response as any: named here.)
      const byStatus: [string, ResponseOrReference][] = Object.entries(responses);
      for (const [status, response] of byStatus) {
        if (isReference(response)) continue;
        response.headers = {
          'X-Request-Id': REQUEST_ID,
          ...STATUS_HEADERS[status],
          ...ROUTE_HEADERS[`${method} ${canonical} ${status}`],
          ...response.headers,
        };
        // A partial answer carries the same media types as the full one.
        const full: ResponseOrReference | undefined = responses['200'];
        if (status === '206' && !response.content && full && !isReference(full))
          response.content = structuredClone(full.content);
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (isReference(media)) continue;
          if (type.startsWith('audio/') && !media.schema) media.schema = { type: 'string', format: 'binary' };
          if (type === 'text/event-stream' && !media.schema)
            media.schema = { type: 'string', description: 'Server-Sent Events' };
        }
      }
    }
  }
  return document;
}

type OpenApiDocument = ReturnType<typeof createDocument>;
type Operation = NonNullable<NonNullable<OpenApiDocument['paths']>[string]['get']>;
type ResponseOrReference = NonNullable<NonNullable<Operation['responses']>['default']>;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** A `$ref` in place of an object: the generator makes them for shared schemas only, so polish skips them. */
const isReference = <T extends object>(value: T): value is Extract<T, { $ref: string }> => '$ref' in value;

/** What holds for every operation, shown at the top of the docs page. */
const INFO_DESCRIPTION = [
  'Self-hosted text-to-speech and voice cloning.',
  '',
  '**Path families.** Use the `/api/v1/...` paths, documented in full under the resource tags. The same endpoints answer under `/api/...` (and OpenAI’s `/v1/...`), listed once under “Unversioned aliases”: the same handlers, with paths in responses in that family and a synthesis id named `task_id` instead of `id`. Paths end with `/`; the path without it works too.',
  '',
  '**Authentication.** `Authorization: Bearer <token>`: an access JWT from login, or an API key (`vk_…`).',
  '',
  `**Units.** Times are ISO 8601 in UTC; durations in seconds; text lengths in characters (Unicode code points of the trimmed, NFC-normalized text); ${COST_RULE}; pitch in semitones; prices in cents.`,
  '',
  '**Errors** are `application/problem+json` with a stable `code` (see `/api/docs/errors/`); a 429 or 503 says in `Retry-After` how many seconds to wait. Every response carries `X-Request-Id` (send your own to follow a request through the logs).',
  '',
  '**Retries.** Send `Idempotency-Key` on synthesize: a repeat with the same body replays the first answer (`Idempotent-Replayed: true`) and never starts or charges twice.',
].join('\n');

/** OpenAPI 3.1 from the same zod schemas that validate requests: both families, every route. */
export function buildOpenApiDocument(routes: Route[], publicUrl: string, version: string) {
  const paths: ZodOpenApiPathsObject = {};
  /** `method path` of an unversioned operation → `METHOD /api/v1/...` of the operation it aliases. */
  const aliases = new Map<string, string>();
  for (const route of routes) {
    for (const [family, path] of Object.entries(route.paths) as [Family, string][]) {
      const operationId = `${route.method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string) => (c ?? '').toUpperCase())}`;
      if (family === 'unversioned' && route.paths.v1) aliases.set(`${route.method} ${path}`, route.paths.v1);
      paths[path] ??= {};
      paths[path][route.method] = {
        operationId,
        summary: route.summary,
        tags: route.tags,
        requestParams: {
          ...(route.params && { path: route.params }),
          ...(route.query && { query: route.query }),
          ...(route.headers && { header: route.headers }),
        },
        ...(route.body && {
          requestBody: { required: true, content: { 'application/json': { schema: route.body } } },
        }),
        ...(route.form && {
          requestBody: { required: true, content: { 'multipart/form-data': { schema: route.form } } },
        }),
        security: route.auth ? [{ bearer: [] }] : [],
        // Anything that reads PostgreSQL or talks to Temporal answers 503 (with Retry-After) while one is down.
        responses: { ...route.responses, ...problemResponses(500, ...(route.paths.v1 || route.auth ? [503] : [])) },
      };
    }
  }
  const document = createDocument({
    openapi: '3.1.0',
    info: {
      title: 'OpenVox API',
      version,
      // The licence of the software, from package.json; npm's "UNLICENSED" (no licence granted) said in words, since
      // the docs page shows it as the licence's name. The engines' and voices' own licences are listed per voice.
      license: { name: license === 'UNLICENSED' ? 'All rights reserved (no licence is granted)' : license },
      description: INFO_DESCRIPTION,
    },
    servers: [{ url: publicUrl }],
    tags: TAGS,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An access JWT or an API key (`vk_...`).' },
      },
    },
    paths,
  });
  // Redoc's sidebar: the resources first, the aliases apart (Swagger UI ignores this and lists the tags in order).
  document['x-tagGroups'] = [
    { name: 'API', tags: TAGS.filter((tag) => tag.name !== ALIAS_TAG).map((tag) => tag.name) },
    { name: 'Aliases', tags: [ALIAS_TAG] },
  ];
  return polish(document, aliases);
}
