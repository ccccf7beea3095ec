import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/**
 * Every setting of the service, read from environment variables once at start.
 * Defaults are the embedded development stack (scripts/start.sh); an operator
 * overrides them with the variables listed in docs/operations.md, "Configuration".
 */

// The repository root, from source (lib/) or from the compiled dist/lib/.
const parent = path.resolve(__dirname, '..');
export const ROOT = path.basename(parent) === 'dist' ? path.dirname(parent) : parent;

const port = z.coerce.number().int().min(1).max(65535);
const seconds = z.coerce.number().int().positive();
const url = z.url({ protocol: /^https?$/ });
const rateLimit = z.coerce.number().int().min(0);

/**
 * Which reverse proxies may tell the client's address (X-Forwarded-For):
 * `hops` proxies in front of the API (each appends the address it saw), or
 * the proxies' own addresses/CIDR ranges. `{ hops: 0 }` trusts no header.
 */
export type TrustProxy = { hops: number } | { proxies: string[] };

const MAX_PROXY_HOPS = 10;

function isProxyAddress(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** `false`/`0` (default), `true` (= 1 hop), a hop count, or a comma-separated list of proxy IPs/CIDRs. */
const trustProxy = z
  .string()
  .trim()
  .transform((value, context): TrustProxy => {
    const lower = value.toLowerCase();
    if (['false', '0', 'no', 'off'].includes(lower)) return { hops: 0 };
    if (['true', 'yes', 'on'].includes(lower)) return { hops: 1 };
    if (/^\d+$/.test(value) && Number(value) <= MAX_PROXY_HOPS) return { hops: Number(value) };
    const proxies = value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (proxies.length > 0 && proxies.every(isProxyAddress)) return { proxies };
    context.addIssue({
      code: 'custom',
      message: `must be false, true (one proxy), a hop count 0-${MAX_PROXY_HOPS}, or a comma-separated list of proxy IP addresses/CIDR ranges`,
    });
    return z.NEVER;
  });

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(3000),
  /** A request's headers and body must arrive within this (408 after it); responses, streams included, are not limited. */
  HTTP_REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  /** Status event streams (`Accept: text/event-stream`) one account may keep open on one API process; more are 429. */
  SSE_MAX_STREAMS_PER_ACCOUNT: z.coerce.number().int().min(1).max(100_000).default(20),
  /** The same per client address (many accounts behind one address). */
  SSE_MAX_STREAMS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(50),
  /** OpenAI-compatible speech streams one account may have open on one API process; more are 429. */
  SPEECH_MAX_STREAMS_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(4),
  /** Encoder processes (mp3, opus, aac, flac streams) one API process runs at once; more streams are 503 with Retry-After. */
  SPEECH_MAX_ENCODERS: z.coerce.number().int().min(1).max(10_000).default(16),
  /** A speech stream whose client takes no byte for this long is cut, so its reader lets the synthesis's chunks go. */
  SPEECH_STALL_SECONDS: seconds.max(3600).default(60),
  /** Connections the API accepts at once; more are closed as they arrive. */
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1024),
  PUBLIC_URL: url.optional(),
  /** Trust X-Forwarded-For (client IP for rate limits and consent records) only from known reverse proxies. */
  TRUST_PROXY: trustProxy.default({ hops: 0 }),
  DATA_DIR: z.string().min(1).default(path.join(ROOT, '.data')),

  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .default('postgres://openvox:openvox@127.0.0.1:5432/openvox'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),

  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('openvox'),

  MINIO_ENDPOINT: url.default('http://127.0.0.1:9000'),
  MINIO_ACCESS_KEY: z.string().min(3).default('openvox'),
  MINIO_SECRET_KEY: z.string().min(8).default('openvox-dev-secret'),
  MINIO_REGION: z.string().min(1).default('us-east-1'),
  AUDIO_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid S3 bucket name')
    .default('openvox-audio'),

  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  ACCESS_TOKEN_TTL: seconds.default(900),
  REFRESH_TOKEN_TTL: seconds.default(14 * 24 * 3600),
  /** How long an API process keeps who a credential is (0: not at all); a deleted key or account is dropped at once. */
  AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(5),
  VERIFICATION_TTL: seconds.default(24 * 3600),

  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('OpenVox <no-reply@localhost>'),
  MAIL_DIR: z.string().min(1).optional(),
  MODELS_DIR: z.string().min(1).optional(),
  /**
   * Where `openvox voices available|install` read Piper's voice index
   * (`voices.json`) and the voices' files (paths relative to it): the official
   * piper-voices v1.0.0 download path, or a mirror. Only that operator command
   * downloads; the service never does.
   */
  PIPER_VOICES_URL: url.default('https://huggingface.co/rhasspy/piper-voices/resolve/v1.0.0/'),
  /**
   * Other origins (`https://cdn.example.org`, comma-separated) whose files the
   * index at PIPER_VOICES_URL may name by absolute URL. Empty (default): only
   * PIPER_VOICES_URL's own origin, so an index cannot send the installer to
   * another host (the server's own redirects are still followed).
   */
  PIPER_VOICES_FILE_ORIGINS: z
    .string()
    .default('')
    .transform((value, context) => {
      const origins: string[] = [];
      for (const entry of value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)) {
        const parsed = URL.canParse(entry) ? new URL(entry) : null;
        if (parsed && /^https?:$/.test(parsed.protocol)) origins.push(parsed.origin);
        else
          context.addIssue({
            code: 'custom',
            message: `${entry} is not an http(s) origin like https://cdn.example.org`,
          });
      }
      return origins;
    }),
  /**
   * Where `openvox voices install kokoro:<voice>` reads Kokoro voice styles: an `.npz` of every voice
   * (kokoro-onnx's `voices-v1.0.bin`), or a directory URL (ending in `/`) of `<voice>.npy` files.
   */
  KOKORO_VOICES_URL: url.default(
    'https://github.com/thewh1teagle/kokoro-onnx/releases/download/model-files-v1.0/voices-v1.0.bin',
  ),
  /** The SHA-256 the file at KOKORO_VOICES_URL must have (an `.npz`; a directory's files are checked by shape only), or empty. */
  KOKORO_VOICES_SHA256: z
    .string()
    .regex(/^([0-9a-f]{64})?$/)
    .default(''),
  /** A prebuilt workflow bundle for the worker (default: dist/workflow-bundle.js beside the compiled worker). */
  WORKFLOW_BUNDLE: z.string().min(1).optional(),
  /**
   * Operator opt-in for the speech engines Debian ships in non-free (SVOX Pico,
   * RHVoice): scripts/install.sh then installs them and the catalog offers their voices.
   */
  ENABLE_NONFREE_ENGINES: z.stringbool().default(false),
  /** Each worker start renders the premade voices' previews that are missing or outdated (one short sentence each, once). */
  VOICE_PREVIEWS: z.stringbool().default(true),
  /** Engine and ffmpeg activities one worker process runs at once (default: its cores). */
  SYNTHESIS_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
  /**
   * How long a submit waits for its workflow to answer the reservation before
   * the API answers 503 (the outcome is then unknown; a retry with the same
   * Idempotency-Key gets it). Only a stack without a live worker waits this long.
   */
  SUBMIT_TIMEOUT_SECONDS: seconds.max(300).default(30),
  /** The worker's Prometheus endpoint (its metrics and the Temporal SDK's): port 0 turns it off. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** The API's Prometheus endpoint, on a port of its own (never the public one): port 0 turns it off. */
  API_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9463),
  API_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Home Assistant's Wyoming protocol (TCP) served by the API process on this port: 0 (default) turns it off. */
  WYOMING_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  WYOMING_HOST: z.string().min(1).default('127.0.0.1'),
  /** The API key whose account the Wyoming server speaks for (charged, in its history): required with WYOMING_PORT. */
  WYOMING_API_KEY: z.string().min(1).optional(),
  /** How long synthesis activities retry object-storage errors (an outage is waited out) before the job fails as storage_unavailable. */
  STORAGE_RETRY_SECONDS: seconds.default(600),

  /** Webhook targets may use plain http (deliveries are still signed); https only by default. */
  WEBHOOK_ALLOW_HTTP: z.stringbool().default(false),
  /** Webhook targets may be loopback, private, link-local or metadata addresses (an internal receiver; the tests' local one). */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.stringbool().default(false),
  /** The first retry of a failed webhook delivery waits this long, doubling up to an hour, for 24 h in all. */
  WEBHOOK_RETRY_INITIAL_SECONDS: seconds.max(3600).default(10),
  /** Each webhook request waits this long for its receiver's answer; past it the attempt fails and is retried with backoff. */
  WEBHOOK_TIMEOUT_SECONDS: seconds.max(120).default(10),
  /** Webhook delivery attempts one worker process runs at once, on their own task queue (each waits up to WEBHOOK_TIMEOUT_SECONDS for its receiver). */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(10),
  /** Webhook endpoints one account may have: each one is a delivery per event, so the cap bounds what one account can make the workers send. */
  WEBHOOK_MAX_ENDPOINTS: z.coerce.number().int().min(1).max(1000).default(20),
  /** `POST /webhooks/{id}/test/` pings per account per minute (0 turns the limit off). */
  RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE: rateLimit.default(10),
  /**
   * Block renders one Studio conversion runs at once, over all its chapters (default: the cores). They run on the
   * Studio queue, whose slots (the CPU queue's count) bound all books at once, beside the CPU queue's slots.
   */
  STUDIO_MAX_PARALLEL_BLOCKS: z.coerce.number().int().min(1).max(64).default(os.availableParallelism()),
  /** Ended Studio snapshots kept per project (the newest completed one always is); older ones go with their files. */
  STUDIO_SNAPSHOTS_KEPT: z.coerce.number().int().min(1).max(1000).default(5),
  /** Rendered block audio that no kept snapshot and no block as it is now holds is removed once older than this many days. */
  STUDIO_BLOCK_AUDIO_GRACE_DAYS: z.coerce.number().int().min(0).max(3650).default(7),
  /** `POST /tts/normalize/` previews per account per minute: free, so bounded (0 turns the limit off). */
  RATE_LIMIT_NORMALIZE_PER_MINUTE: rateLimit.default(60),

  /**
   * Synthesis history older than this many days is deleted (with its audio) for
   * accounts that set no retention of their own; unset keeps history. Credits
   * are never touched.
   */
  HISTORY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).optional(),
  /** How long a keyed hash of an erased account's address is kept, so registering it again grants no free credits again (docs/api.md, "Account deletion"). */
  ERASED_SIGNUP_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(365),

  RATE_LIMIT_REGISTER_PER_HOUR: rateLimit.default(60),
  RATE_LIMIT_LOGIN_PER_MINUTE: rateLimit.default(30),
  RATE_LIMIT_LOGIN_PER_EMAIL_PER_MINUTE: rateLimit.default(10),
  RATE_LIMIT_RESEND_PER_HOUR: rateLimit.default(5),
});

type Env = z.infer<typeof EnvSchema>;

export interface Config extends Env {
  PUBLIC_URL: string;
  MAIL_DIR: string;
  MODELS_DIR: string;
  minio: { endPoint: string; port: number; useSSL: boolean };
}

/**
 * Where scripts/install.sh puts the Piper voices it fetches (beside the
 * Go-built servers, outside the repo, shared by clones): the default MODELS_DIR.
 */
export function defaultModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'openvox', 'models');
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses and validates settings; throws a ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const values = parsed.data;
  if (values.WYOMING_PORT && !values.WYOMING_API_KEY)
    throw new ConfigError(
      'invalid configuration:\n  WYOMING_API_KEY: required when WYOMING_PORT is set (an API key of the account Home Assistant speaks for)',
    );
  const minioUrl = new URL(values.MINIO_ENDPOINT);
  const useSSL = minioUrl.protocol === 'https:';
  return {
    ...values,
    PUBLIC_URL: (values.PUBLIC_URL ?? `http://localhost:${values.PORT}`).replace(/\/+$/, ''),
    MAIL_DIR: values.MAIL_DIR ?? path.join(values.DATA_DIR, 'mail'),
    MODELS_DIR: values.MODELS_DIR ?? defaultModelsDir(env),
    minio: {
      endPoint: minioUrl.hostname,
      port: minioUrl.port ? Number(minioUrl.port) : useSSL ? 443 : 80,
      useSSL,
    },
  };
}

/** A ConfigError (thrown by loadConfig, or later, e.g. by the signing key) stops the process with its message and EX_CONFIG, no stack. */
export function exitOnConfigError(error: unknown): void {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
}

/** Entry points call this: a bad setting stops the process with a clear message. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    exitOnConfigError(error);
    throw error;
  }
}
