import { allHandlersFinished, ApplicationFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  INVALID_TOKEN,
  resendSignal,
  type SignupState,
  type SignupVerificationInput,
  verifyUpdate,
} from '../synthesis/contracts';

const { sendVerificationEmail, verifyAccount } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** `signup:<account-id>`: send the email, wait for verify or the TTL, grant free credits once. */
export async function signupVerification({ accountId, ttlSeconds }: SignupVerificationInput): Promise<SignupState> {
  let state: SignupState = 'awaiting_verification';
  let mailWanted = true;
  let verifying = false;

  setHandler(resendSignal, () => {
    if (state === 'awaiting_verification') mailWanted = true;
  });
  setHandler(
    verifyUpdate,
    async ({ tokenId }) => {
      verifying = true;
      try {
        await verifyAccount({ accountId, tokenId });
      } catch {
        // Surface the activity's verdict as this update's own failure type.
        throw ApplicationFailure.nonRetryable('The token cannot verify this account.', INVALID_TOKEN);
      } finally {
        verifying = false;
      }
      state = 'verified';
      return { verified: true as const };
    },
    {
      // One verification at a time: concurrent requests with the same token get one 200, the rest 400.
      validator: (_request: { tokenId: string }) => {
        if (verifying || state !== 'awaiting_verification') {
          throw ApplicationFailure.nonRetryable('This account is verified or being verified.', INVALID_TOKEN);
        }
      },
    },
  );

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
