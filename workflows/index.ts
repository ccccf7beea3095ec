// The worker's workflow bundle: every workflow type, one file each.
export { systemCheck } from './systemCheck';
export { signupVerification } from './signupVerification';
export { creditDeduction } from './creditDeduction';
export { synthesis } from './synthesis';
export { synthesisDeletion, voiceDeletion } from './deletion';
export { voiceCloning } from './voiceCloning';
export { billingRefill } from './billingRefill';
export { benchCreditShape, benchNoop, benchSynthesisShape } from './benchmark';
export { webhookDelivery } from './webhookDelivery';
export { voicePreview } from './voicePreview';
