import autocannon from 'autocannon';
import Koa from 'koa';
import { createApp } from '../api/app';
import { createApiDeps } from '../api/deps';
import { migrate } from '../db/migrate';
import { loadConfig } from '../lib/config';
import { createLogger } from '../lib/logger';
import { ensurePostgres } from '../scripts/stack';
import { serve } from '../api/listen';
import { randomUUID } from 'node:crypto';
import { API_KEY_PREFIX } from '../api/auth/authenticate';
import { sha256 } from '../lib/secrets';
import { createAccount, createSynthesis } from '../test/helpers/factories';

/**
 * Requests per second of API endpoints against a bare Koa JSON handler,
 * measured one after the other in the same run, with the same load tool and
 * connection count. Only the ratios mean something on a shared machine.
 * Needs PostgreSQL (started or reused like the start command does).
 */

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

async function load(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 1 }); // warm-up
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function main() {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  await ensurePostgres(config.DATABASE_URL);
  const deps = createApiDeps(config, createLogger(config, 'bench'));
  await migrate(deps.db, config);

  const bare = new Koa().use((ctx) => {
    ctx.body = { status: 'ok', results: [{ id: 'free', name: 'Free', monthly_credits: 35000 }] };
  });
  const [baseline, api] = await Promise.all([serve(bare), serve(createApp(deps))]);
  // One account with a completed synthesis (written as the tests' factories write them), polled with a JWT and with an API key.
  const account = await createAccount(deps);
  const accountId = account.id;
  const synthesisId = await createSynthesis(deps, account, {
    progress: 1,
    audio_key: 'none',
    audio_bytes: 1,
    duration_seconds: 1,
    credits_charged: 6,
    started_at: new Date(),
    completed_at: new Date(),
  });
  const apiKey = `${API_KEY_PREFIX}${randomUUID().replace(/-/g, '')}`;
  await deps.db('api_keys').insert({
    id: randomUUID(),
    account_id: accountId,
    name: 'bench',
    prefix: apiKey.slice(0, 10),
    key_hash: sha256(apiKey),
  });
  const statusUrl = `${api.url}/api/v1/tts/history/${synthesisId}/status/`;
  try {
    const rows: [string, Awaited<ReturnType<typeof load>>][] = [
      ['bare Koa JSON handler (baseline)', await load(`${baseline.url}/`)],
      ['GET /healthz (full middleware chain)', await load(`${api.url}/healthz`)],
      ['GET /api/v1/subscription-plans/ (PostgreSQL)', await load(`${api.url}/api/v1/subscription-plans/`)],
      [
        'GET status of a completed synthesis (JWT)',
        await load(statusUrl, { Authorization: `Bearer ${account.access}` }),
      ],
      ['GET status of a completed synthesis (API key)', await load(statusUrl, { Authorization: `Bearer ${apiKey}` })],
    ];
    const base = rows[0][1].rps;
    process.stdout.write(`\n${CONNECTIONS} connections, ${DURATION_S} s each, node ${process.version}\n\n`);
    process.stdout.write(
      '| endpoint | req/s | ratio to baseline | p50 ms | p99 ms | errors |\n|---|---|---|---|---|---|\n',
    );
    for (const [name, r] of rows) {
      process.stdout.write(
        `| ${name} | ${r.rps.toFixed(0)} | ${(r.rps / base).toFixed(2)} | ${r.p50} | ${r.p99} | ${r.errors} |\n`,
      );
    }
  } finally {
    await Promise.all([baseline.close(), api.close()]);
    await deps.db('accounts').where({ id: accountId }).delete();
    await deps.close();
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
