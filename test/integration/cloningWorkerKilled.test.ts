import { createAccount } from '../helpers/factories';
import { call } from '../helpers/http';
import { uploadConsentedSample } from '../helpers/samples';
import { type RunningApi, useStack } from '../helpers/stack';
import { killAllWorkerProcesses, spawnWorkerProcess } from '../helpers/workerProcess';

async function voiceStatus(api: RunningApi, voiceId: string, token: string) {
  return (await call(api.url, 'GET', `/api/v1/voices/${voiceId}/`, undefined, token)).body;
}

describe('a worker killed while it clones a voice', () => {
  const { deps, api, onClose } = useStack();
  onClose(async () => {
    await killAllWorkerProcesses();
  });

  it('leaves the voice to end ready after a new worker starts, never stuck in processing', async () => {
    const owner = await createAccount(deps);
    const first = spawnWorkerProcess(deps.config.TEMPORAL_TASK_QUEUE);
    const accepted = await uploadConsentedSample(api.url, owner.access, 'Interrupted', { format: 'flac' });
    expect(accepted.status).toBe(202);
    const voiceId = accepted.body.id;
    const handle = deps.temporal.workflow.getHandle(`voice-cloning:${voiceId}`);

    // Kill once the speaker analysis is running on the worker (a pending, started activity).
    const deadline = Date.now() + 90_000;
    for (;;) {
      const { raw } = await handle.describe();
      const analysing = (raw.pendingActivities ?? []).some(
        (activity) =>
          activity.activityType?.name === 'buildClonedVoiceProfile' &&
          String(activity.state) !== '1' &&
          activity.state !== 1,
      );
      if (analysing || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await first.kill();
    expect((await voiceStatus(api, voiceId, owner.access)).status).toBe('processing');

    const second = spawnWorkerProcess(deps.config.TEMPORAL_TASK_QUEUE);
    try {
      expect(await handle.result()).toBe('ready');
      const voice = await voiceStatus(api, voiceId, owner.access);
      expect(voice.status).toBe('ready');
      expect(voice.similarity).toBeGreaterThan(0);
    } finally {
      await second.kill();
    }
  }, 240_000);
});
