import { startIsolatedStack, type IsolatedStack } from '../scripts/isolatedStack';
import { checkStudio, expect, findingsReport, newFindings, type RunRow, runningWorkflows, settle } from './checks';
import { scenarios } from './scenarios';
import { chaosStack, logger } from './stack';

/**
 * The chaos suite (issue 13): on its own isolated stack, kill -9 the worker,
 * the API and the Temporal server, stop MinIO, burst submits, and convert a
 * Studio book through a worker kill and a storage outage; after each
 * scenario wait until the system is quiet and check the credit and storage
 * invariants from outside. Prints one table row per scenario, then every
 * violation; exits 1 when there is one.
 *
 * Run: npm run chaos
 *   CHAOS_ONLY=1,6      runs only these scenarios (numbers as in the table)
 *   CHAOS_QUIESCE_S=240 the bounded wait for quiescence after each scenario
 *   CHAOS_SHOW=5        details printed per violated check
 *   CHAOS_LONG_LIVED=re workflow ids that never end (entity workflows): not waited for
 */

const ONLY = (process.env.CHAOS_ONLY ?? '').split(',').filter(Boolean).map(Number);
/** Details printed per violated check; the count says how many there were. */
const SHOWN = Number(process.env.CHAOS_SHOW ?? 5);
const LONG_LIVED = process.env.CHAOS_LONG_LIVED ? new RegExp(process.env.CHAOS_LONG_LIVED) : undefined;
const QUIESCE_MS = Number(process.env.CHAOS_QUIESCE_S ?? 240) * 1000;

interface Row extends RunRow {
  unavailable: number;
}

const log = logger('chaos');

/** Restarts a crashed api or worker, as a process supervisor would; says so in the notes. */
async function supervise(stack: IsolatedStack, notes: string[]): Promise<void> {
  const worker = stack.workers().find((child) => child.exitCode !== null || child.signalCode !== null);
  if (worker || stack.workers().length === 0) {
    notes.push(
      `worker ${worker ? `exited (${worker.exitCode ?? worker.signalCode})` : 'missing'}; restarted by the suite`,
    );
    await stack.startWorkers(1).catch((error) => notes.push(`worker restart failed: ${error}`));
  }
  const api = stack.api();
  if (!api || api.exitCode !== null || api.signalCode !== null) {
    notes.push(`api ${api ? `exited (${api.exitCode ?? api.signalCode})` : 'missing'}; restarted by the suite`);
    await stack.startApi().catch((error) => notes.push(`api restart failed: ${error}`));
  }
}

async function main() {
  const started = Date.now();
  log('starting the isolated stack (PostgreSQL database, Temporal on a sqlite file, MinIO, api, worker)');
  const stack = await startIsolatedStack(chaosStack('chaos'));
  const rows: Row[] = [];
  const reportedKeys = new Set<string>();
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    void stack.close().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await stack.startWorkers(1);
    await stack.startApi();
    log(`stack up (logs in ${stack.logDir})`);
    for (const [index, scenario] of scenarios.entries()) {
      if (ONLY.length && !ONLY.includes(index + 1)) continue;
      const name = `${index + 1}. ${scenario.name}`;
      log(`scenario ${name}`);
      const scenarioStarted = Date.now();
      const findings = newFindings();
      const before = await runningWorkflows(stack);
      let run;
      try {
        run = await scenario.run({ stack, findings, log });
      } catch (error) {
        // A scenario that could not run is a failed gate, and the next ones still run.
        findings.violations.push({
          check: 'scenario aborted',
          detail: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
        rows.push({
          name,
          accepted: 0,
          completed: 0,
          failed: 0,
          canceled: 0,
          unavailable: 0,
          findings,
          seconds: (Date.now() - scenarioStarted) / 1000,
        });
        await supervise(stack, findings.notes);
        continue;
      }
      const tally = await settle(
        stack,
        {
          accountIds: run.accounts.map((account) => account.id),
          accepted: run.accepted,
          reportedKeys,
          before,
          quiesceMs: QUIESCE_MS,
          tick: () => supervise(stack, findings.notes),
          longLived: LONG_LIVED,
          allCompleted: Boolean(run.expectAllCompleted),
        },
        findings,
      );
      await checkStudio(stack, { accountIds: run.accounts.map((account) => account.id), reportedKeys }, findings);
      const unavailable = run.answers.filter((answer) => answer.status === 503).length;
      if (run.no503)
        expect(
          findings,
          unavailable === 0,
          '503 from a healthy stack',
          () => `${unavailable} × 503 from a healthy stack`,
        );
      if (run.failureCode) {
        for (const [code, count] of tally.failureCodes) {
          expect(
            findings,
            code === run.failureCode,
            'failure blamed on the wrong cause',
            () => `${count} jobs failed with error code ${code} during a fault that should read ${run.failureCode}`,
          );
        }
      }
      rows.push({
        name,
        accepted: run.accepted.size,
        completed: tally.completed,
        failed: tally.failed,
        canceled: tally.canceled,
        unavailable,
        findings,
        seconds: (Date.now() - scenarioStarted) / 1000,
      });
      log(`${name}: ${findings.violations.length} violations`);
    }
  } finally {
    if (!interrupted) await stack.close();
  }

  const out = (text: string) => process.stdout.write(text);
  out(
    `\nOpenVox chaos suite — ${new Date().toISOString()}, node ${process.version}, ${((Date.now() - started) / 1000).toFixed(0)} s in all\n\n`,
  );
  out('| scenario | accepted jobs | completed | failed | canceled | 503s | checks | violations | wall time |\n');
  out('|---|---|---|---|---|---|---|---|---|\n');
  for (const row of rows) {
    out(
      `| ${row.name} | ${row.accepted} | ${row.completed} | ${row.failed} | ${row.canceled} | ${row.unavailable} | ${row.findings.checks} | ${row.findings.violations.length} | ${row.seconds.toFixed(0)} s |\n`,
    );
  }
  const { text, violations: total } = findingsReport(rows, SHOWN);
  out(text);
  out(`\n${total === 0 ? 'All invariants hold.' : `${total} violations.`}\n`);
  process.exitCode = total === 0 ? 0 : 1;
}

main().catch((error) => {
  process.stderr.write(`chaos suite failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(2);
});
