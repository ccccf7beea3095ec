import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

/**
 * Removing what a client deleted is a workflow, so an object-storage outage
 * delays the removal and never leaves an object behind: the activity retries,
 * with backoff up to a minute, until storage answers.
 */
const { removeSynthesis, removeVoiceObjects } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** `synthesis-deletion:<uuid>`: the entry leaves history and its audio leaves storage (an ended synthesis only). */
export async function synthesisDeletion(synthesisId: string): Promise<void> {
  await removeSynthesis({ synthesisId });
}

/** `voice-deletion:<uuid>`: a cloned voice's sample and derived objects leave storage (the consent record stays). */
export async function voiceDeletion(voiceId: string): Promise<void> {
  await removeVoiceObjects({ voiceId });
}
