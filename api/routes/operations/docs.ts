import { createHash } from 'node:crypto';
import { contentSecurityPolicy } from '../../web';
import { FAILURE_CODES, UNKNOWN_FAILURE } from '../../../synthesis/contracts';

/** The HTML pages under /api/docs/. Static assets come from swagger-ui-dist. */

/**
 * Swagger UI's start-up, the page's one inline script. No
 * persistAuthorization: a token or API key pasted into it would stay in the
 * dashboard origin's localStorage, readable by any script there, after the
 * tab is closed. From 150 rows (tags and their operations) on, Swagger UI
 * draws only the rows near the view and the others as the page scrolls, so
 * find-in-page misses those; `filter` finds any operation by tag or path.
 */
const DOCS_SCRIPT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#docs', deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, filter: true });`;

/**
 * The docs page's Content-Security-Policy: its scripts are the bundle and
 * the start-up above (by hash); Swagger UI sets inline styles and draws
 * icons from data: URLs; requests go to this origin only ("Try it out"
 * included), audio answers play from blob: URLs.
 */
export const DOCS_CSP = contentSecurityPolicy({
  scriptSrc: `'self' 'sha256-${createHash('sha256').update(DOCS_SCRIPT).digest('base64')}'`,
  styleSrc: "'self' 'unsafe-inline'",
});

/**
 * What the docs pages add to Swagger UI: a bar with the way back to the dashboard, and a dark scheme that follows
 * the system's setting (Swagger UI has none of its own), its colours at 4.5:1 or better like the dashboard's.
 */
const DOCS_STYLE = `
  .back { display: flex; gap: 1rem; align-items: center; padding: 0.6rem 1.25rem; border-bottom: 1px solid #c9d0d8;
    font-family: system-ui, sans-serif; }
  .back a { color: #1d4ed8; font-weight: 600; }
  .back span { color: #4d5661; }
  @media (prefers-color-scheme: dark) {
    html, body { background: #14171b; color: #e6e9ee; color-scheme: dark; }
    .back { border-color: #3d4651; }
    .back a, .swagger-ui a, .swagger-ui .info a { color: #8cb4ff; }
    .back span { color: #aab4c0; }
    .swagger-ui, .swagger-ui .info .title, .swagger-ui .info p, .swagger-ui .info li, .swagger-ui .info table,
    .swagger-ui .opblock-tag, .swagger-ui .opblock .opblock-summary-description, .swagger-ui .opblock-description-wrapper p,
    .swagger-ui .opblock .opblock-section-header h4, .swagger-ui .parameter__name, .swagger-ui .parameter__type,
    .swagger-ui .parameter__in, .swagger-ui .response-col_status, .swagger-ui .response-col_description,
    .swagger-ui .responses-inner h4, .swagger-ui .responses-inner h5, .swagger-ui table thead tr th,
    .swagger-ui table thead tr td, .swagger-ui .tab li, .swagger-ui .model, .swagger-ui .model-title,
    .swagger-ui section.models h4, .swagger-ui .markdown p, .swagger-ui .markdown li, .swagger-ui .renderedMarkdown p,
    .swagger-ui .opblock .opblock-summary-path, .swagger-ui .opblock .opblock-summary-operation-id,
    .swagger-ui label, .swagger-ui .btn, .swagger-ui .info .base-url, .swagger-ui .prop-type, .swagger-ui .prop-format,
    .swagger-ui .servers-title, .swagger-ui .servers > label, .swagger-ui .filter-container .operation-filter-input,
    .swagger-ui .model-box-control, .swagger-ui .models-control, .swagger-ui .opblock-summary-control,
    .swagger-ui .expand-operation, .swagger-ui .response-control-media-type__title, .swagger-ui .title,
    .swagger-ui h1, .swagger-ui h2, .swagger-ui h3, .swagger-ui h4, .swagger-ui h5, .swagger-ui .info h1 small pre {
      color: #e6e9ee; }
    .swagger-ui .scheme-container, .swagger-ui .opblock .opblock-section-header, .swagger-ui section.models,
    .swagger-ui section.models .model-container, .swagger-ui .dialog-ux .modal-ux, .swagger-ui .model-box,
    .swagger-ui select, .swagger-ui input[type=text], .swagger-ui input[type=search], .swagger-ui input[type=password],
    .swagger-ui textarea, .swagger-ui .btn, .swagger-ui .info .title small, .swagger-ui .opblock-body pre.microlight {
      background: #222831 !important; color: #e6e9ee !important; border-color: #3d4651; box-shadow: none; }
    .swagger-ui .opblock { background: #1b1f25 !important; border-color: #3d4651 !important; }
    .swagger-ui .opblock-tag, .swagger-ui table thead tr th, .swagger-ui section.models.is-open h4 { border-color: #3d4651; }
    .swagger-ui .opblock .opblock-summary-method { color: #0b1220; }
    .swagger-ui svg:not(:root) { fill: #e6e9ee; }
    .swagger-ui .prop-type { color: #c4b5fd; }
    .swagger-ui .parameter__name.required span, .swagger-ui .parameter__name.required:after { color: #ff8f85; }
    .swagger-ui .info .title small.version-stamp { background: #116329; }
    .swagger-ui .info .title small { color: #0b1220; }
    .swagger-ui code, .swagger-ui .markdown code, .swagger-ui .renderedMarkdown code {
      background: #222831; color: #ffd59e; }
    table { border-color: #3d4651; }
  }
`;

/** The bar above each docs page: where you are, and the way back to the dashboard. */
const BACK = `<nav class="back" aria-label="OpenVox"><a href="/app/playground">← Back to the dashboard</a><span>OpenVox API reference</span></nav>`;

export function docsPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>OpenVox API</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="icon" href="/api/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
  <style>${DOCS_STYLE}</style>
</head>
<body>
  ${BACK}
  <div id="docs"></div>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script>${DOCS_SCRIPT}</script>
</body>
</html>
`;
}

const ERROR_CODES: [number, string, string][] = [
  [400, 'validation_error', 'A field is missing, of the wrong type, or out of range; `errors` says which.'],
  [400, 'invalid_json', 'The body is not parseable JSON.'],
  [400, 'consent_required', 'A voice upload without consent=true.'],
  [401, 'not_authenticated', 'No credentials on a protected endpoint.'],
  [401, 'authentication_failed', 'Wrong email or password, or an unknown or deleted API key.'],
  [401, 'token_invalid', 'A malformed or badly signed token, or a revoked or reused refresh token.'],
  [401, 'token_expired', 'An expired JWT.'],
  [
    402,
    'insufficient_credits',
    'The available balance is below the cost; `balance` and `required` give both, in credits.',
  ],
  [403, 'email_not_verified', 'Login before the email is verified.'],
  [403, 'permission_denied', 'The caller may not do this, e.g. delete a premade voice.'],
  [403, 'plan_limit_reached', 'The plan does not allow more, e.g. cloned voices.'],
  [404, 'not_found', 'Unknown id, or one that belongs to another account.'],
  [405, 'method_not_allowed', 'The path exists but not with this method; see Allow.'],
  [409, 'email_taken', 'An account with this email exists.'],
  [409, 'conflict', 'The request conflicts with existing data, e.g. a project name in use.'],
  [409, 'voice_not_ready', 'The cloned voice is still processing or failed.'],
  [409, 'voice_consent_revoked', 'The owner revoked the consent of this cloned voice; it cannot be used again.'],
  [409, 'not_ready', 'The synthesis has not completed.'],
  [409, 'idempotency_key_in_use', 'A request with the same Idempotency-Key is still being processed.'],
  [413, 'payload_too_large', 'The body or uploaded file is over the limit.'],
  [413, 'document_too_large', 'A Studio import holds more bytes or characters (after decompression) than allowed.'],
  [415, 'unsupported_media_type', 'Wrong Content-Type, or an upload that is not supported audio.'],
  [416, 'range_not_satisfiable', 'A Range outside the audio.'],
  [422, 'idempotency_key_reused', 'The same Idempotency-Key with a different body.'],
  [422, 'document_protected', 'A Studio import is DRM-protected (an EPUB’s META-INF/encryption.xml).'],
  [422, 'no_text_layer', 'A Studio import is a PDF without text (scanned pages).'],
  [422, 'document_unreadable', 'A Studio import is broken: malformed XML, a bad archive, an entry leaving it.'],
  [429, 'rate_limited', 'Too many requests; see Retry-After.'],
  [500, 'internal_error', 'A bug; logged with the request id.'],
  [503, 'service_unavailable', 'A dependency is down; see Retry-After.'],
];

/** The `error.code` of a synthesis that ended `failed` (its status and history entry carry it). */
const JOB_FAILURE_CODES: [string, string][] = [
  [
    FAILURE_CODES.EngineFailed.code,
    'The speech engine could not render the text (retried twice). Nothing was charged.',
  ],
  [
    FAILURE_CODES.StorageUnavailable.code,
    'Object storage stayed unavailable longer than the service waits out (STORAGE_RETRY_SECONDS). Nothing was charged; submit again.',
  ],
  [UNKNOWN_FAILURE.code, 'Any other failure. Nothing was charged.'],
];

export function errorsPage(): string {
  const rows = ERROR_CODES.map(
    ([status, code, when]) => `<tr id="${code}"><td>${status}</td><td><code>${code}</code></td><td>${when}</td></tr>`,
  ).join('\n');
  const jobRows = JOB_FAILURE_CODES.map(
    ([code, when]) => `<tr id="${code}"><td><code>${code}</code></td><td>${when}</td></tr>`,
  ).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>OpenVox API errors</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <style>${DOCS_STYLE}
  body { margin: 0; font-family: system-ui, sans-serif; line-height: 1.5; }
  main { padding: 0 1.25rem 1.25rem; max-width: 960px; }
  td, th { text-align: left; vertical-align: top; padding: 0.25rem 0.5rem; }
  code { overflow-wrap: anywhere; }
  </style>
</head>
<body>
  ${BACK}
  <main>
  <h1>Error codes</h1>
  <p>Every error is <code>application/problem+json</code> with <code>type</code>, <code>title</code>, <code>status</code>,
  <code>code</code>, <code>detail</code>, <code>request_id</code> and, for field problems, <code>errors</code>. Branch on <code>code</code>.</p>
  <table><thead><tr><th>status</th><th>code</th><th>when</th></tr></thead>
  <tbody>
${rows}
  </tbody></table>
  <h2>Failed syntheses</h2>
  <p>A synthesis that ends <code>failed</code> has <code>error = {code, message}</code> with one of these codes.</p>
  <table><thead><tr><th>code</th><th>when</th></tr></thead>
  <tbody>
${jobRows}
  </tbody></table>
  </main>
</body>
</html>
`;
}
