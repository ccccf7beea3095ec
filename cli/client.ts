import { randomUUID } from 'node:crypto';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { NetworkError, networkFailure } from './network';
import { printable } from './output';

/** The user's side: the HTTP API with an API key, from the environment or the config file `openvox login` writes. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The problem's field errors (validation), when it has them. */
    readonly errors?: Record<string, string[]>,
  ) {
    super(message);
  }
}

export const DEFAULT_URL = 'http://localhost:3000';

export interface ClientSettings {
  url: string;
  apiKey: string;
}

/** What the config file holds: `openvox login` writes all of it, a hand-written file needs only `api_key` (and `url`). */
export interface StoredConfig {
  url?: string;
  api_key?: string;
  /** The key's id, so `openvox logout` can revoke it. */
  api_key_id?: string;
  /** Whose key it is (shown by login and logout). */
  email?: string;
}

/** `OPENVOX_CONFIG`, else `$XDG_CONFIG_HOME/openvox/config.json` (`~/.config/...`). */
export function configPath(env: NodeJS.ProcessEnv): string {
  return (
    env.OPENVOX_CONFIG || path.join(env.XDG_CONFIG_HOME || path.join(homedir(), '.config'), 'openvox', 'config.json')
  );
}

export function readConfig(file: string): StoredConfig {
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Writes the config readable by its owner only (0600, its directory 0700), replacing the file in one rename; an empty config removes it. */
export async function writeConfig(file: string, config: StoredConfig): Promise<void> {
  if (Object.keys(config).length === 0) {
    await rm(file, { force: true });
    return;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}

/**
 * Where user commands go and with which key. The environment wins over the
 * file: `OPENVOX_URL`, `OPENVOX_API_KEY`, then the config file's `url` and
 * `api_key` (`openvox login` writes them), then `http://localhost:3000`.
 */
export function clientSettings(env: NodeJS.ProcessEnv, file = configPath(env)): ClientSettings {
  const stored = readConfig(file);
  const url = (env.OPENVOX_URL || stored.url || DEFAULT_URL).replace(/\/+$/, '');
  const apiKey = env.OPENVOX_API_KEY || stored.api_key;
  if (!apiKey)
    throw new Error(`no API key: run openvox login, or set OPENVOX_API_KEY, or put {"api_key": "vk_..."} into ${file}`);
  return { url, apiKey };
}

/** The API's problem as one line: its detail first (what to fix), then status and code; the server's words escaped (`printable`). */
function problemMessage(
  status: number,
  problem: { code?: string; detail?: string; title?: string; request_id?: string },
  statusText: string,
): string {
  const reason = problem.detail ?? problem.title ?? statusText;
  const requestId = status >= 500 && problem.request_id ? `, request ${problem.request_id}` : '';
  return printable(`${reason} (${status}${problem.code ? ` ${problem.code}` : ''}${requestId})`);
}

export class OpenVoxClient {
  constructor(private readonly settings: { url: string; apiKey?: string }) {}

  get url(): string {
    return this.settings.url;
  }

  async request(
    method: string,
    apiPath: string,
    init: {
      json?: unknown;
      body?: RequestInit['body'];
      headers?: Record<string, string>;
      token?: string;
      signal?: AbortSignal;
    } = {},
  ): Promise<Response> {
    const token = init.token ?? this.settings.apiKey;
    const headers: Record<string, string> = { ...(token && { Authorization: `Bearer ${token}` }), ...init.headers };
    let body = init.body;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    let response: Response;
    try {
      response = await fetch(`${this.settings.url}${apiPath}`, { method, headers, body, signal: init.signal });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      const failure = networkFailure(error);
      throw new NetworkError(
        failure?.code ?? 'network_error',
        failure?.cause ?? (error as Error).message,
        `cannot reach ${this.settings.url}: ${failure?.detail ?? (error as Error).message}; is the API running? OPENVOX_URL or openvox login --url says where`,
      );
    }
    if (response.status >= 400) {
      const problem = (await response.json().catch(() => ({}))) as {
        code?: string;
        detail?: string;
        title?: string;
        errors?: Record<string, string[]>;
      };
      throw new ApiError(
        response.status,
        problem.code ?? 'http_error',
        problemMessage(response.status, problem, response.statusText),
        problem.errors,
      );
    }
    return response;
  }

  /** The answer's JSON, as the caller says it is typed (cli/wire.ts has the API's answers). */
  async json<T>(method: string, apiPath: string, init?: Parameters<OpenVoxClient['request']>[2]): Promise<T> {
    return (await (await this.request(method, apiPath, init)).json()) as T;
  }

  /** Submits with an Idempotency-Key and retries what may not have arrived (no answer, 5xx, 409 in use) with the same key and body. */
  async submit(body: Record<string, unknown>, attempts = 5): Promise<{ id: string; characters: number }> {
    const key = randomUUID();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.json<{ id: string; characters: number }>('POST', '/api/v1/tts/synthesize/', {
          json: body,
          headers: { 'Idempotency-Key': key },
        });
      } catch (error) {
        const retryable =
          !(error instanceof ApiError) ||
          error.status >= 500 ||
          error.code === 'idempotency_key_in_use' ||
          error.status === 429;
        if (!retryable || attempt >= attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
      }
    }
  }
}
