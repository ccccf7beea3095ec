import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** The user's side: the HTTP API with an API key, from the environment or a config file. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ClientSettings {
  url: string;
  apiKey: string;
}

/** `OPENVOX_CONFIG`, else `$XDG_CONFIG_HOME/openvox/config.json` (`~/.config/...`): `{"url": "...", "api_key": "vk_..."}`. */
function defaultConfigPath(env: NodeJS.ProcessEnv): string {
  return env.OPENVOX_CONFIG ?? path.join(env.XDG_CONFIG_HOME ?? path.join(homedir(), '.config'), 'openvox', 'config.json');
}

/** The environment wins over the file: `OPENVOX_URL`, `OPENVOX_API_KEY`. */
export function clientSettings(env: NodeJS.ProcessEnv, configPath = defaultConfigPath(env)): ClientSettings {
  let file: { url?: string; api_key?: string } = {};
  if (existsSync(configPath)) {
    try {
      file = JSON.parse(readFileSync(configPath, 'utf8'));
    } catch (error) {
      throw new Error(`${configPath} is not valid JSON: ${(error as Error).message}`);
    }
  }
  const url = (env.OPENVOX_URL ?? file.url ?? 'http://localhost:3000').replace(/\/+$/, '');
  const apiKey = env.OPENVOX_API_KEY ?? file.api_key;
  if (!apiKey) throw new Error(`no API key: set OPENVOX_API_KEY or put {"api_key": "vk_..."} into ${configPath} (create one with POST /api/v1/auth/api-keys/)`);
  return { url, apiKey };
}

export class OpenVoxClient {
  constructor(private readonly settings: ClientSettings) {}

  async request(method: string, apiPath: string, init: { json?: unknown; body?: RequestInit['body']; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.settings.apiKey}`, ...init.headers };
    let body = init.body;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const response = await fetch(`${this.settings.url}${apiPath}`, { method, headers, body });
    if (response.status >= 400) {
      const problem = (await response.json().catch(() => ({}))) as { code?: string; detail?: string; title?: string };
      throw new ApiError(response.status, problem.code ?? 'http_error', `${response.status} ${problem.code ?? ''}: ${problem.detail ?? problem.title ?? response.statusText}`);
    }
    return response;
  }

  async json<T = any>(method: string, apiPath: string, init?: Parameters<OpenVoxClient['request']>[2]): Promise<T> {
    return (await (await this.request(method, apiPath, init)).json()) as T;
  }

  /** Submits with an Idempotency-Key and retries what may not have arrived (no answer, 5xx, 409 in use) with the same key and body. */
  async submit(body: Record<string, unknown>, attempts = 5): Promise<{ id: string; characters: number }> {
    const key = randomUUID();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.json('POST', '/api/v1/tts/synthesize/', { json: body, headers: { 'Idempotency-Key': key } });
      } catch (error) {
        const retryable = !(error instanceof ApiError) || error.status >= 500 || error.code === 'idempotency_key_in_use' || error.status === 429;
        if (!retryable || attempt >= attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
      }
    }
  }
}

/** `12.3 s`, `2 min 05 s`. */
function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  return `${Math.floor(seconds / 60)} min ${String(Math.round(seconds % 60)).padStart(2, '0')} s`;
}

/** A progress line with an estimate of the time left from the rate so far. */
export function progressLine(label: string, progress: number, elapsedSeconds: number, width = 24): string {
  const done = Math.max(0, Math.min(1, progress));
  const filled = Math.round(done * width);
  const eta = done > 0 && done < 1 ? ` ETA ${formatSeconds((elapsedSeconds / done) * (1 - done))}` : '';
  return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(done * 100)).padStart(3)}%${eta}`;
}
