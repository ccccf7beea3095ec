import type { ActivityDeps } from '.';
import { reserve, settle, type SettleOutcome } from '../db/ledger';
import { Project } from '../db/models/Project';
import { Synthesis } from '../db/models/Synthesis';
import { type CompletedAudio, recordCompletion } from '../db/synthesisProgress';
import type { SynthesisRequest } from '../synthesis/contracts';
import { creditsFor } from '../synthesis/cost';
import { type SynthesisSlot, takeSynthesisSlot } from './synthesis';

export interface CaptureInput {
  accountId: string;
  /** What the credits are for: the synthesis id. */
  reference: string;
  /** The synthesized characters; the charge is the reservation's amount. */
  amount: number;
  /**
   * The synthesis's audio, to record it completed in the transaction that
   * charges it: the client hears of completion from that commit's NOTIFY,
   * with no workflow task of the parent in between. Absent (histories from
   * before it): the parent's recordSynthesisCompleted records it.
   */
  completes?: CompletedAudio;
}
export type CaptureResult = { outcome: SettleOutcome };

/** The credit steps of a synthesis; the ledger rules live in db/ledger.ts. */
export function createCreditActivities({ db }: ActivityDeps) {
  return {
    /**
     * The `reserve` update's work, in one transaction: the reservation and the
     * synthesis row exist together or not at all. Idempotent on the synthesis
     * id: a retry after a commit whose answer was lost finds both.
     */
    async reserveSynthesis(request: SynthesisRequest): Promise<{ outcome: 'insufficient' } | ({ outcome: 'reserved' } & SynthesisSlot)> {
      return db.transaction(async (trx) => {
        if (!(await reserve(trx, request.accountId, request.synthesisId, creditsFor(request)))) return { outcome: 'insufficient' as const };
        // A project deleted since the API checked it unlinks, as deleting a project unlinks its syntheses.
        const project = request.projectId ? await Project.query(trx).modify('ownedBy', { id: request.accountId }).findById(request.projectId).select('id') : null;
        await Synthesis.query(trx)
          .insert({
            id: request.synthesisId,
            account_id: request.accountId,
            project_id: project ? request.projectId : null,
            voice_id: request.voiceId,
            text: request.text,
            characters: request.characters,
            speed: request.speed,
            pitch: request.pitch,
            emotion: request.emotion,
            output_format: request.outputFormat,
            streaming: request.streaming ?? false,
            text_normalization: request.textNormalization ?? 'auto',
            pronunciation_dictionary_ids: request.pronunciationDictionaryIds?.length ? request.pronunciationDictionaryIds : null,
            text_type: request.textType ?? 'text',
          })
          .onConflict('id')
          .ignore();
        // One transaction fewer before the 202: the slot, when the plan has one free, comes with the reservation.
        return { outcome: 'reserved' as const, ...(await takeSynthesisSlot(trx, request.synthesisId)) };
      });
    },

    async captureCredits({ accountId, reference, completes }: CaptureInput): Promise<CaptureResult> {
      return {
        outcome: await db.transaction(async (trx) => {
          const outcome = await settle(trx, accountId, reference, 'capture');
          // Recorded whatever the outcome, as the parent's record step did after the capture: a retry after a
          // lost commit answer finds 'settled' and writes the same values again.
          if (completes) await recordCompletion(trx, reference, completes);
          return outcome;
        }),
      };
    },

    async releaseCredits({ accountId, reference }: { accountId: string; reference: string }): Promise<{ outcome: SettleOutcome }> {
      return { outcome: await db.transaction((trx) => settle(trx, accountId, reference, 'release')) };
    },
  };
}
