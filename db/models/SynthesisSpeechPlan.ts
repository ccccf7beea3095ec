import type { SpeechPlan } from '../../synthesis/speechPlan';
import { TableModel } from './TableModel';

/** A synthesis's speech plan, stored once (db/migrations/020_synthesis_speech_plans.ts). */
export class SynthesisSpeechPlan extends TableModel {
  static override tableName = 'synthesis_speech_plans';
  static override idColumn = 'synthesis_id';
  static override jsonAttributes = ['plan'];

  synthesis_id!: string;
  plan!: SpeechPlan;
  created_at!: Date;

  /** The stored plan of a synthesis; null when none is (a synthesis whose first step predates the table). */
  static async planOf(
    db: Parameters<typeof SynthesisSpeechPlan.query>[0],
    synthesisId: string,
  ): Promise<SpeechPlan | null> {
    const row = await SynthesisSpeechPlan.query(db).findById(synthesisId).select('plan');
    return row?.plan ?? null;
  }

  /**
   * Stores `plan` unless the synthesis has one already, and returns the one
   * stored: two steps that planned at once (the slot and the API's stream)
   * both go on with the first writer's.
   */
  static async keep(
    db: Parameters<typeof SynthesisSpeechPlan.query>[0],
    synthesisId: string,
    plan: SpeechPlan,
  ): Promise<SpeechPlan> {
    await SynthesisSpeechPlan.query(db).insert({ synthesis_id: synthesisId, plan }).onConflict('synthesis_id').ignore();
    // Read back: the insert's answer is the plan given either way (Objection merges it in), not the stored one.
    return (await SynthesisSpeechPlan.planOf(db, synthesisId)) ?? plan;
  }
}
