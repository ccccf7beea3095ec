// A voice is presented by synthesis/resources.ts, which the webhook events share.
export { presentVoice } from '../../../synthesis/resources';
export type { VoiceRow } from '../../../db/models/Voice';
