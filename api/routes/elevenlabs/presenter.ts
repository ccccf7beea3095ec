import type { z } from 'zod';
import { CONTENT_TYPES } from '../../../audio/finish';
import type { OutputFormat } from '../../../audio/prosody';
import type { CloningAttestation } from '../../../db/models/CloningAttestation';
import type { SynthesisRow } from '../../../db/models/Synthesis';
import type { VoiceRow } from '../../../db/models/Voice';
import type { Attestation, HistoryItem, Voice } from './schema';

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });
const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** A BCP 47 tag's English name (`en-US` → `American English`), or the tag when Intl knows none. */
export function languageName(tag: string): string {
  try {
    return languageNames.of(tag) ?? tag;
  } catch {
    return tag;
  }
}

function accentOf(tag: string): string | undefined {
  const region = tag.split('-')[1];
  if (!region || !/^[A-Za-z]{2}$/.test(region)) return undefined;
  try {
    return regionNames.of(region.toUpperCase());
  } catch {
    return undefined;
  }
}

/** A voice as ElevenLabs presents one: labels all strings, the preview an absolute URL (PUBLIC_URL). */
export function presentVoice(voice: VoiceRow, account: { id: string }, publicUrl: string): z.output<typeof Voice> {
  const accent = accentOf(voice.language);
  const labels: Record<string, string> = {
    language: voice.language,
    ...(accent && { accent }),
    ...(voice.gender && voice.gender !== 'unknown' && { gender: voice.gender }),
    ...(voice.quality && { quality: voice.quality }),
  };
  return {
    voice_id: voice.id,
    name: voice.name,
    category: voice.category,
    labels,
    description: voice.description,
    ...(voice.category === 'premade' &&
      voice.preview_key && { preview_url: `${publicUrl}/api/v1/voices/${voice.id}/preview/` }),
    available_for_tiers: [],
    is_owner: voice.account_id === account.id,
    ...(voice.category === 'cloned' && { created_at_unix: seconds(voice.created_at) }),
  };
}

export function presentHistoryItem(
  row: SynthesisRow,
  voice: Pick<VoiceRow, 'name' | 'category'> | undefined,
  engine: string | undefined,
): z.output<typeof HistoryItem> {
  return {
    history_item_id: row.id,
    request_id: row.id,
    voice_id: row.voice_id,
    ...(engine && { model_id: engine }),
    ...(voice && { voice_name: voice.name, voice_category: voice.category }),
    text: row.text,
    date_unix: seconds(row.created_at),
    character_count_change_from: 0,
    character_count_change_to: row.status === 'completed' ? Number(row.credits_charged) : 0,
    content_type: CONTENT_TYPES[row.output_format as OutputFormat] ?? 'application/octet-stream',
    state: row.status,
    output_format: row.output_format,
    source: 'TTS',
  };
}

export const presentAttestation = (row: CloningAttestation): z.output<typeof Attestation> => ({
  statement: row.statement,
  attested_at: row.attested_at.toISOString(),
  client_ip: row.client_ip,
});
