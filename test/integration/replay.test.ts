import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Replays committed workflow histories (test/replay/histories, recorded by
 * test/replay/recordHistories.test.ts) against today's workflow bundle: a
 * change that would make running workflows non-deterministic fails here.
 */
const DIR = path.join(__dirname, '..', 'replay', 'histories');
const files = readdirSync(DIR).filter((file) => file.endsWith('.json'));

describe('workflow histories replay against the current code', () => {
  it('has recorded histories of the synthesis, credit, signup, account deletion, history retention, Studio, webhook, voice cloning and stream session workflows', () => {
    expect(new Set(files.map((file) => file.split('-')[0]))).toEqual(
      new Set(['synthesis', 'credit', 'signup', 'account', 'history', 'project', 'webhook', 'voice', 'stream']),
    );
  });

  it.each(files)('%s replays without non-determinism', async (file) => {
    const history = JSON.parse(readFileSync(path.join(DIR, file), 'utf8'));
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE! } }, history, file);
  });
});
