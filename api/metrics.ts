import type { Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/knex';
import { CreditLedgerEntry } from '../db/models/CreditLedgerEntry';
import { Synthesis } from '../db/models/Synthesis';
import { Voice } from '../db/models/Voice';
import { creditsFor } from '../synthesis/cost';
import { SYNTHESIS_STATUSES } from '../synthesis/status';

/**
 * The API's Prometheus metrics, one registry per app. Two kinds:
 * - this process's own: request durations, and what it submitted;
 * - the service's state, read from PostgreSQL at each scrape (syntheses and
 *   voices by status, credits by ledger kind): the same on every API
 *   process, so aggregate those with max(), not sum().
 */
export interface ApiMetrics {
  registry: Registry;
  middleware: Middleware;
}

const SYNTHESIZE_ROUTES = new Set(['/api/v1/tts/synthesize', '/api/tts/synthesize']);
const CLONE_ROUTES = new Set(['/api/v1/voices/upload', '/api/voices/clone']);

/** How long a scrape-time aggregate is reused. */
const AGGREGATE_TTL_MS = 10_000;

/** `read`'s last answer while it is younger than `ttlMs` (a failed read is not kept). */
function cached<T>(read: () => Promise<T>, ttlMs = AGGREGATE_TTL_MS): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > ttlMs) {
      const value = read();
      last = { at: Date.now(), value };
      value.catch(() => (last = undefined));
    }
    return last.value;
  };
}

export function createApiMetrics(db: Db): ApiMetrics {
  const synthesesByStatus = cached(
    async () =>
      // Each synthesis that ran once: a stream-input connection's entry, recorded from its pieces, is left out.
      await Synthesis.query(db)
        .whereNotExists(Synthesis.query(db).alias('piece').whereColumn('piece.part_of', 'syntheses.id'))
        .select('status')
        .count({ count: '*' })
        .groupBy('status')
        .castTo<{ status: string; count: string }[]>(),
  );
  const ledgerByKind = cached(
    async () =>
      await CreditLedgerEntry.query(db)
        .select('kind')
        .sum('amount as sum')
        .groupBy('kind')
        .castTo<{ kind: string; sum: string }[]>(),
  );
  const clonesByStatus = cached(
    async () =>
      await Voice.query(db)
        .where({ category: 'cloned' })
        .select('status')
        .count({ count: '*' })
        .groupBy('status')
        .castTo<{ status: string; count: string }[]>(),
  );
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requestDuration = new Histogram({
    name: 'openvox_http_request_duration_seconds',
    help: 'HTTP requests by method, route (the path pattern) and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 30],
    registers: [registry],
  });
  const submitted = new Counter({
    name: 'openvox_syntheses_submitted_total',
    help: 'Syntheses this API process accepted (202, replays not counted)',
    registers: [registry],
  });
  const reserved = new Counter({
    name: 'openvox_credits_reserved_total',
    help: 'Credits reserved by the syntheses this API process accepted',
    registers: [registry],
  });
  const cloneJobs = new Counter({
    name: 'openvox_clone_jobs_submitted_total',
    help: 'Voice cloning jobs this API process accepted',
    registers: [registry],
  });

  // Read at scrape time, what every API process sees alike: three table-wide aggregates, so each is
  // kept for AGGREGATE_TTL_MS and a scrape every few seconds (or several scrapers) costs PostgreSQL little.
  new Gauge({
    name: 'openvox_syntheses',
    help: "Syntheses by status (from PostgreSQL; deleted ones included; a stream's pieces, not its entry)",
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const rows = await synthesesByStatus();
      this.reset();
      for (const status of SYNTHESIS_STATUSES) this.set({ status }, 0);
      for (const row of rows) this.set({ status: row.status }, Number(row.count));
    },
  });
  new Gauge({
    name: 'openvox_credits_ledger',
    help: 'Credits moved by ledger kind (grant, reserve, capture, release), from PostgreSQL',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      const rows = await ledgerByKind();
      this.reset();
      for (const kind of ['grant', 'reserve', 'capture', 'release']) this.set({ kind }, 0);
      for (const row of rows) this.set({ kind: row.kind }, Number(row.sum));
    },
  });
  new Gauge({
    name: 'openvox_clone_jobs',
    help: 'Cloned voices by status (processing, ready, failed), from PostgreSQL',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const rows = await clonesByStatus();
      this.reset();
      for (const status of ['processing', 'ready', 'failed']) this.set({ status }, 0);
      for (const row of rows) this.set({ status: row.status }, Number(row.count));
    },
  });

  const middleware: Middleware = async (ctx, next) => {
    const stopTimer = requestDuration.startTimer();
    try {
      await next();
    } finally {
      // The path pattern, never the path itself: ids would make a series per request.
      const route: string = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      stopTimer({ method: ctx.method, route, status: String(ctx.status) });
      if (ctx.status === 202 && ctx.response.get('Idempotent-Replayed') !== 'true') {
        if (SYNTHESIZE_ROUTES.has(route)) {
          submitted.inc();
          const characters = Number((ctx.body as { characters?: number } | undefined)?.characters);
          if (Number.isFinite(characters)) reserved.inc(creditsFor({ characters }));
        } else if (CLONE_ROUTES.has(route)) {
          cloneJobs.inc();
        }
      }
    }
  };
  return { registry, middleware };
}
