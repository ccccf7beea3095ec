import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

/**
 * `voice-preview:<voice id>:<version>`: renders a premade voice's preview
 * once (lib/voicePreviews.ts starts it at worker start). A few attempts: a
 * voice whose engine cannot render here keeps no preview (`preview_url` null).
 */
export async function voicePreview({
  voiceId,
  version,
  cpuTaskQueue,
}: {
  voiceId: string;
  version: string;
  cpuTaskQueue: string;
}): Promise<string> {
  const { renderVoicePreview } = proxyActivities<Activities>({
    taskQueue: cpuTaskQueue,
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
  });
  return renderVoicePreview({ voiceId, version });
}
