import type { ActivityDeps } from '.';
import { reserve, settle, type SettleOutcome } from '../db/ledger';
import type { SynthesisRequest } from '../synthesis/contracts';
import { creditsFor } from '../synthesis/cost';
import { type CompletedAudio, recordCompletion, recordRequest } from '../synthesis/lifecycle';
import { type SynthesisSlot, takeSynthesisSlot } from './synthesis';

export interface CaptureInput {
  accountId: string;
  /** What the credits are for: the synthesis id. The charge is the reservation's amount. */
  reference: string;
  /**
   * The synthesis's audio, to record it completed in the transaction that
   * charges it: the client hears of completion from that commit's NOTIFY,
   * with no workflow task of the parent in between. Absent (histories from
   * before it): the parent's recordSynthesisCompleted records it.
   */
  completes?: CompletedAudio;
}
export type CaptureResult = { outcome: SettleOutcome };

/** The credit steps of a synthesis; the ledger rules live in db/ledger.ts, the cost in synthesis/cost.ts. */
export function createCreditActivities({ db }: ActivityDeps) {
  return {
    /**
     * The `reserve` update's work, in one transaction: the reservation and the
     * synthesis row exist together or not at all. Idempotent on the synthesis
     * id: a retry after a commit whose answer was lost finds both.
     */
    async reserveSynthesis(
      request: SynthesisRequest,
    ): Promise<{ outcome: 'insufficient' } | ({ outcome: 'reserved' } & SynthesisSlot)> {
      return db.transaction(async (trx) => {
        if (!(await reserve(trx, request.accountId, request.synthesisId, creditsFor(request))))
          return { outcome: 'insufficient' as const };
        await recordRequest(trx, request);
        // One transaction fewer before the 202: the slot, when the plan has one free, comes with the reservation.
        return { outcome: 'reserved' as const, ...(await takeSynthesisSlot(trx, request.synthesisId)) };
      });
    },

    async captureCredits({ accountId, reference, completes }: CaptureInput): Promise<CaptureResult> {
      return {
        outcome: await db.transaction(async (trx) => {
          const { outcome, amount } = await settle(trx, accountId, reference, 'capture');
          // Recorded whatever the outcome, as the parent's record step did after the capture: a retry after a
          // lost commit answer finds 'settled' and writes the same values again.
          if (completes) await recordCompletion(trx, reference, completes, amount);
          return outcome;
        }),
      };
    },

    async releaseCredits({
      accountId,
      reference,
    }: {
      accountId: string;
      reference: string;
    }): Promise<{ outcome: SettleOutcome }> {
      return { outcome: (await db.transaction((trx) => settle(trx, accountId, reference, 'release'))).outcome };
    },
  };
}
