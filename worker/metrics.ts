import { Context } from '@temporalio/activity';
import { once } from 'node:events';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Activities } from '../activities';
import type { Db } from '../db/knex';
import { Synthesis } from '../db/models/Synthesis';

/**
 * The worker's Prometheus metrics, taken by an activity interceptor so that
 * no activity needs to know about them: durations by activity type, slots in
 * use, the engines' real-time factor, how syntheses and clones ended. The
 * Temporal SDK's own metrics (task slots, poll latencies, schedule-to-start)
 * come from the runtime's Prometheus exporter and are served beside them.
 */
export interface WorkerMetrics {
  registry: Registry;
  interceptor: ActivityInterceptorsFactory;
}

/** An activity's input and result as it declares them (the interceptor sees them untyped). */
type InputOf<A extends keyof Activities> = Parameters<Activities[A]>[0];
type ResultOf<A extends keyof Activities> = Awaited<ReturnType<Activities[A]>>;

/** Activities whose result carries the seconds of audio they rendered. */
const RENDERS: Partial<Record<string, (result: unknown) => number | undefined>> = {
  renderShortSynthesis: (result) => (result as ResultOf<'renderShortSynthesis'> | undefined)?.durationSeconds,
  renderSynthesisChunk: (result) => (result as ResultOf<'renderSynthesisChunk'> | undefined)?.seconds,
};

export function createWorkerMetrics(db: Db): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const duration = new Histogram({
    name: 'openvox_activity_duration_seconds',
    help: 'Activity executions by type, task queue and outcome (ok, failed)',
    labelNames: ['activity', 'task_queue', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const inUse = new Gauge({
    name: 'openvox_activity_slots_in_use',
    help: 'Activities running now in this worker, by task queue',
    labelNames: ['task_queue'] as const,
    registers: [registry],
  });
  const realtimeFactor = new Histogram({
    name: 'openvox_engine_realtime_factor',
    help: 'Seconds of audio per second of render activity (engine + voicing), by engine',
    labelNames: ['engine'] as const,
    buckets: [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500],
    registers: [registry],
  });
  const renderedSeconds = new Counter({
    name: 'openvox_audio_rendered_seconds_total',
    help: 'Seconds of audio rendered, by engine',
    labelNames: ['engine'] as const,
    registers: [registry],
  });
  const synthesesEnded = new Counter({
    name: 'openvox_worker_syntheses_ended_total',
    help: 'Syntheses this worker recorded as ended, by status (completed, failed, canceled)',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const clonesEnded = new Counter({
    name: 'openvox_worker_clone_jobs_ended_total',
    help: 'Voice cloning jobs this worker recorded as ended, by status (ready, failed)',
    labelNames: ['status'] as const,
    registers: [registry],
  });

  /** The engine that renders a synthesis (a clone's base voice's). */
  async function engineOf(synthesisId: string): Promise<string> {
    return (await Synthesis.engineOf(db, synthesisId)) ?? 'unknown';
  }

  /** Counts how jobs ended, and logs one line per synthesis and clone (the worker's log says what it did). */
  function recordEnd(ctx: Context, activity: string, args: unknown[]) {
    if (activity === 'recordSynthesisCompleted') {
      const input = args[0] as InputOf<'recordSynthesisCompleted'> | undefined;
      synthesesEnded.inc({ status: 'completed' });
      ctx.log.info('synthesis completed', {
        synthesisId: input?.synthesisId,
        audioSeconds: input?.durationSeconds,
        bytes: input?.bytes,
      });
    } else if (activity === 'recordSynthesisEnded') {
      const input = args[0] as InputOf<'recordSynthesisEnded'> | undefined;
      if (!input) return;
      synthesesEnded.inc({ status: input.status });
      ctx.log.info(`synthesis ${input.status}`, { synthesisId: input.synthesisId, error: input.error?.code });
    } else if (activity === 'recordVoiceReady') {
      const input = args[0] as InputOf<'recordVoiceReady'> | undefined;
      clonesEnded.inc({ status: 'ready' });
      ctx.log.info('voice clone ready', { voiceId: input?.voiceId });
    } else if (activity === 'recordVoiceFailed') {
      const input = args[0] as InputOf<'recordVoiceFailed'> | undefined;
      clonesEnded.inc({ status: 'failed' });
      ctx.log.info('voice clone failed', { voiceId: input?.voiceId, error: input?.error?.code });
    }
  }

  const interceptor: ActivityInterceptorsFactory = (ctx: Context) => ({
    inbound: {
      async execute(input, next) {
        const { activityType: activity, taskQueue } = ctx.info;
        const started = performance.now();
        inUse.inc({ task_queue: taskQueue });
        let outcome = 'failed';
        try {
          const result = await next(input);
          outcome = 'ok';
          recordEnd(ctx, activity, input.args);
          const audioSeconds = RENDERS[activity]?.(result);
          if (audioSeconds && audioSeconds > 0) {
            const wallSeconds = (performance.now() - started) / 1000;
            // A metric must never fail the activity it measures.
            const engine = await engineOf((input.args[0] as { synthesisId: string }).synthesisId).catch(
              () => 'unknown',
            );
            realtimeFactor.observe({ engine }, audioSeconds / wallSeconds);
            renderedSeconds.inc({ engine }, audioSeconds);
            ctx.log.info('rendered', {
              engine,
              audioSeconds,
              wallSeconds: Math.round(wallSeconds * 1000) / 1000,
              realtimeFactor: Math.round((audioSeconds / wallSeconds) * 10) / 10,
            });
          }
          return result;
        } finally {
          inUse.dec({ task_queue: taskQueue });
          duration.observe({ activity, task_queue: taskQueue, outcome }, (performance.now() - started) / 1000);
        }
      },
    },
  });
  return { registry, interceptor };
}

/** A port free on 127.0.0.1 now, for the SDK's exporter (its bind address cannot report an ephemeral port back). */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
