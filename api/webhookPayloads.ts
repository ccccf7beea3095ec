import type { ResourcePresenters } from '../activities';
import { presentHistoryEntry } from './routes/tts/presenter';
import { presentVoice } from './routes/voices/presenter';

/**
 * What a webhook event's `data` is: the resource as the versioned family
 * presents it. The worker hands these to the activities (worker/create.ts),
 * so activities/ imports nothing from api/ and the folders form no cycle.
 */
export const webhookPayloads: ResourcePresenters = {
  synthesis: (row) => presentHistoryEntry(row, 'v1'),
  voice: (row) => presentVoice(row),
};
