import { allHandlersFinished, condition, defineQuery, defineSignal, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { sendVerificationEmail, verifyAccount } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

export type SignupState = 'awaiting_verification' | 'verified' | 'expired';

/** Mails a new token; every older one dies. */
export const resendSignal = defineSignal('resend');
/** The API awaits this update: its result means verified and credited. The argument is a token row id, never the token. */
export const verifyUpdate = defineUpdate<{ verified: true }, [{ tokenId: string }]>('verify');
export const stateQuery = defineQuery<SignupState>('state');

export interface SignupVerificationInput {
  accountId: string;
  /** VERIFICATION_TTL: how long each mailed token stays valid. */
  ttlSeconds: number;
}

/** `signup:<account-id>`: send the email, wait for verify or the TTL, grant free credits once. */
export async function signupVerification({ accountId, ttlSeconds }: SignupVerificationInput): Promise<SignupState> {
  let state: SignupState = 'awaiting_verification';
  let mailWanted = true;

  setHandler(stateQuery, () => state);
  setHandler(resendSignal, () => {
    if (state === 'awaiting_verification') mailWanted = true;
  });
  setHandler(verifyUpdate, async ({ tokenId }) => {
    await verifyAccount({ accountId, tokenId });
    state = 'verified';
    return { verified: true };
  });

  while (state === 'awaiting_verification') {
    if (mailWanted) {
      mailWanted = false;
      await sendVerificationEmail({ accountId });
    }
    const woken = await condition(() => state !== 'awaiting_verification' || mailWanted, ttlSeconds * 1000);
    if (!woken) {
      // A verification already under way when the timer fired still decides.
      await condition(allHandlersFinished);
      if (state === 'awaiting_verification') state = 'expired';
    }
  }
  await condition(allHandlersFinished);
  return state;
}
