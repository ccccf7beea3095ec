import type { Account } from '../../../db/models/Account';
import { ConsentRecord } from '../../../db/models/ConsentRecord';
import { Voice } from '../../../db/models/Voice';
import { awaitBriefly, startRemoval } from '../../../lib/temporal';
import { consentRevocationWorkflowId } from '../../../synthesis/contracts';
import { voiceDeletion } from '../../../workflows/deletion';
import type { ApiDeps } from '../../deps';
import { stopClone } from './commands';
import type { VoiceRow } from './presenter';

/**
 * Withdraws the speaker's consent for one of the caller's cloned voices: in
 * one transaction the voice becomes `revoked` (new syntheses with it get 409
 * voice_consent_revoked, running ones fail before their next step) and loses
 * its profile, and the consent record gets its `revoked_at`. A clone still
 * processing is canceled. The sample objects are removed by a workflow, so a
 * storage outage delays their removal and never leaves them behind. Repeating
 * it changes nothing (the first revocation time stays). Premade voices are
 * 403, another account's or unknown ones 404, as for deletion.
 */
export async function revokeConsent(deps: ApiDeps, account: Account, id: string): Promise<VoiceRow> {
  const { db, temporal } = deps;
  await stopClone(deps, account, id, 'Premade voices have no consent to revoke.');
  const revoked: VoiceRow = await db.transaction(async (trx) => {
    await ConsentRecord.query(trx).where({ voice_id: id }).modify('standing').patch({ revoked_at: trx.fn.now() });
    const [row] = await Voice.query(trx)
      .patch({ status: 'revoked', profile: null, error: null, updated_at: trx.fn.now() })
      .where({ id })
      .returning('*');
    return row;
  });
  const removal = await startRemoval(deps, {
    workflow: voiceDeletion,
    workflowId: consentRevocationWorkflowId(id),
    id,
  });
  await awaitBriefly(temporal, removal);
  return revoked;
}
