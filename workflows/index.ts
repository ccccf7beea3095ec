// The worker's workflow bundle: every workflow type, one file each.
export { systemCheck } from './systemCheck';
export { signupVerification } from './signupVerification';
// Registered under its old type name (CREDIT_CAPTURE_WORKFLOW_TYPE): histories and running workflows name it so.
export { creditCapture as creditDeduction } from './creditCapture';
export { synthesis } from './synthesis';
export { streamSession } from './streamSession';
export { synthesisDeletion, voiceDeletion } from './deletion';
export { voiceCloning } from './voiceCloning';
export { billingRefill } from './billingRefill';
export { webhookDelivery } from './webhookDelivery';
export { accountDeletion } from './accountDeletion';
export { historyRetention } from './retention';
export { voicePreview } from './voicePreview';
export { projectConversion, chapterConversion, blockAudioRender } from './projectConversion';
