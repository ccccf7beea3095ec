import { ActivityCancellationType, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

export interface VoiceCloningInput {
  voiceId: string;
  accountId: string;
  /** Where decoding and analysis run: the CPU queue. */
  cpuTaskQueue: string;
}

type VoiceCloningResult = 'ready' | 'failed' | 'canceled';

const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

/**
 * `voice-cloning:<uuid>`: decode and check the sample → analyse the speaker
 * and build the profile on the closest base voice → score the similarity →
 * mark ready. An unusable sample ends the voice failed with its error code;
 * a cancel (the voice was deleted) removes the objects.
 */
export async function voiceCloning({ voiceId, cpuTaskQueue }: VoiceCloningInput): Promise<VoiceCloningResult> {
  const audio = proxyActivities<Activities>({
    taskQueue: cpuTaskQueue,
    startToCloseTimeout: '15 minutes',
    // A worker killed mid-analysis is noticed within seconds; the voice never stays stuck.
    heartbeatTimeout: '20 seconds',
    // Unlimited attempts, as a synthesis's renders: the activities decide (classifyFailures) what is worth a retry.
    // A storage outage is waited out; a sample the pipeline cannot take fails after three. With three attempts
    // whatever the cause, a MinIO restart of a few seconds failed every clone in progress (the chaos suite).
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
    // On cancel, wait until the running activity has stopped, so the cleanup sees every object it wrote.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  try {
    const intake = await audio.intakeVoiceSample({ voiceId });
    if (!intake.ok) {
      await bookkeeping.recordVoiceFailed({ voiceId, error: { code: intake.code, message: intake.message } });
      return 'failed';
    }
    const profile = await audio.buildClonedVoiceProfile({ voiceId });
    await bookkeeping.recordVoiceReady({ voiceId, profile });
    return 'ready';
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() => bookkeeping.removeVoiceObjects({ voiceId }));
      throw error;
    }
    await bookkeeping.recordVoiceFailed({
      voiceId,
      error: { code: 'cloning_failed', message: 'The sample could not be turned into a voice.' },
    });
    return 'failed';
  }
}
