import type { Knex } from 'knex';
import { Account } from '../db/models/Account';
import { Voice, type VoiceRow } from '../db/models/Voice';
import { FALLBACK_VOICE_ID, RECOMMENDED_VOICE_ID } from '../engines/catalog';

/**
 * The voice that speaks when a request names none: the account's chosen
 * default voice while it can speak, else the service default. The service
 * default is fixed (`en-us-joe`, else `en-us-slt`, which always exists), not
 * "the first voice in the catalog", so installing a voice never changes
 * anyone's default; only the owner does (PATCH profile).
 */

export interface DefaultVoice {
  /** The voice that speaks. */
  id: string;
  name: string;
  /** `account`: the account's choice; `service`: the service default (none chosen, or the choice cannot speak). */
  source: 'account' | 'service';
  /** Why the account's choice is passed over (null when it is not). */
  notice: string | null;
}

type VoiceState = Pick<VoiceRow, 'id' | 'name' | 'category' | 'status' | 'available' | 'deleted_at'>;

/** Why the chosen voice cannot speak now, or null when it can. */
function unusable(voice: VoiceState | undefined): string | null {
  if (!voice || voice.deleted_at) return 'was deleted';
  if (voice.status === 'revoked') return "had its speaker's consent revoked";
  if (voice.category === 'premade' && !voice.available) return 'is not installed on this server any more';
  if (voice.status !== 'ready') return 'is not ready';
  return null;
}

/** The service default: the recommended voice when installed, else the voice that always exists, else the catalog's first. */
async function serviceDefault(db: Knex): Promise<Pick<VoiceRow, 'id' | 'name'>> {
  const preferred = await Voice.query(db)
    .modify('catalog')
    .modify('live')
    .whereIn('id', [RECOMMENDED_VOICE_ID, FALLBACK_VOICE_ID])
    .select('id', 'name');
  const voice =
    preferred.find((row) => row.id === RECOMMENDED_VOICE_ID) ??
    preferred.find((row) => row.id === FALLBACK_VOICE_ID) ??
    (await Voice.query(db).modify('catalog').modify('live').orderBy('sort_order').first().select('id', 'name'));
  return voice ?? { id: FALLBACK_VOICE_ID, name: 'SLT' };
}

/** The account's default voice as it stands now (read fresh: a cached account may predate a PATCH). */
export async function defaultVoiceOf(db: Knex, accountId: string): Promise<DefaultVoice> {
  const account = await Account.query(db).findById(accountId).select('default_voice_id');
  const chosenId = account?.default_voice_id ?? null;
  if (chosenId) {
    const chosen = await Voice.query(db)
      .findById(chosenId)
      .where((query) => query.where({ category: 'premade' }).orWhere({ category: 'cloned', account_id: accountId }))
      .select('id', 'name', 'category', 'status', 'available', 'deleted_at');
    const reason = unusable(chosen);
    if (!reason) return { id: chosen!.id, name: chosen!.name, source: 'account', notice: null };
    const fallback = await serviceDefault(db);
    return {
      ...fallback,
      source: 'service',
      notice: `Your default voice ${chosen?.name ? `"${chosen.name}" (${chosenId})` : chosenId} ${reason}; the service default ${fallback.id} speaks instead until you choose another.`,
    };
  }
  return { ...(await serviceDefault(db)), source: 'service', notice: null };
}
