import { z } from 'zod';
import { COST_RULE } from '../../../synthesis/cost';
import { DEFAULT_OUTPUT_FORMAT, OUTPUT_FORMATS } from './formats';

/**
 * ElevenLabs' API as its SDKs send and parse it (`@elevenlabs/elevenlabs-js`),
 * and what each field does here (docs/elevenlabs.md says the same in words).
 */

export const ElevenLabsError = z
  .object({
    detail: z
      .object({
        status: z.string().meta({ description: 'A machine-readable code, e.g. `voice_not_found`, `quota_exceeded`' }),
        message: z.string().meta({ description: 'What went wrong, in words' }),
      })
      .meta({ description: 'ElevenLabs’ error object' }),
  })
  .meta({ id: 'ElevenLabsError' });

export const VoiceIdParams = z.object({
  voice_id: z.string().max(64).meta({ description: 'A voice id: a premade voice’s or one of your cloned voices' }),
});

const bool = z.enum(['true', 'false'], 'Must be true or false.');

export const SpeechQuery = z.object({
  output_format: z
    .enum(OUTPUT_FORMATS, `Unknown output_format; one of: ${OUTPUT_FORMATS.join(', ')}.`)
    .default(DEFAULT_OUTPUT_FORMAT)
    .meta({ description: '`<codec>_<sample rate>[_<kbit/s>]`; pcm, ulaw and alaw are headerless' }),
  enable_logging: bool.optional().meta({ description: 'Accepted; every synthesis is kept in your history here' }),
  optimize_streaming_latency: z
    .string()
    .regex(/^[0-4]$/, 'Must be 0-4.')
    .optional()
    .meta({ description: 'Accepted and ignored: audio always streams sentence by sentence' }),
});

const VoiceSettings = z
  .strictObject({
    stability: z.number().min(0).max(1).optional().meta({ description: 'Accepted (0-1); no effect here' }),
    similarity_boost: z.number().min(0).max(1).optional().meta({ description: 'Accepted (0-1); no effect here' }),
    style: z.number().min(0).max(1).optional().meta({ description: 'Accepted (0-1); no effect here' }),
    use_speaker_boost: z.boolean().optional().meta({ description: 'Accepted; no effect here' }),
    speed: z
      .number()
      .min(0.5, 'Must be between 0.5 and 2.0.')
      .max(2, 'Must be between 0.5 and 2.0.')
      .optional()
      .meta({ description: 'Tempo, pitch kept (0.5-2.0; 1 is the voice’s own)' }),
  })
  .meta({ description: 'Voice settings; only `speed` changes the audio here' });

const DictionaryLocator = z.strictObject({
  pronunciation_dictionary_id: z
    .string()
    .max(64)
    .meta({ description: 'One of your pronunciation dictionaries (/api/v1/pronunciation-dictionaries/)' }),
  version_id: z.string().max(64).optional().meta({ description: 'Accepted; the dictionary’s current entries apply' }),
});

export const SpeechBody = z.strictObject({
  text: z
    .string()
    .max(200_000, 'Too long.')
    .meta({ description: `The text to speak (at most the plan’s max_text_length characters); ${COST_RULE}` }),
  model_id: z.string().max(64).optional().meta({
    description: 'One of GET /v1/models (an engine, or an `eleven_*` id): accepted; the voice decides the engine',
  }),
  language_code: z.string().max(16).optional().meta({ description: 'Accepted; the voice’s language is read' }),
  voice_settings: VoiceSettings.optional(),
  pronunciation_dictionary_locators: z
    .array(DictionaryLocator)
    .max(20, 'At most 20 dictionaries.')
    .optional()
    .meta({ description: 'Your dictionaries to apply, in order; absent: your account-wide ones' }),
  seed: z.number().int().optional().meta({ description: 'Accepted; rendering is deterministic anyway' }),
  previous_text: z.string().max(10_000).optional().meta({ description: 'Accepted and ignored' }),
  next_text: z.string().max(10_000).optional().meta({ description: 'Accepted and ignored' }),
  previous_request_ids: z.array(z.string().max(64)).max(3).optional().meta({ description: 'Accepted and ignored' }),
  next_request_ids: z.array(z.string().max(64)).max(3).optional().meta({ description: 'Accepted and ignored' }),
  use_pvc_as_ivc: z.boolean().optional().meta({ description: 'Accepted and ignored' }),
  apply_text_normalization: z
    .enum(['auto', 'on', 'off'], 'Must be one of: auto, on, off.')
    .default('auto')
    .meta({ description: 'The service’s text normalization (numbers, dates, money…): auto, on or off' }),
  apply_language_text_normalization: z.boolean().optional().meta({ description: 'Accepted and ignored' }),
  audio_effects: z.record(z.string(), z.unknown()).optional().meta({ description: 'Accepted and ignored' }),
});
export type SpeechBody = z.output<typeof SpeechBody>;

const Alignment = z
  .object({
    characters: z.array(z.string()).meta({ description: 'The text’s characters in order, spaces included' }),
    character_start_times_seconds: z.array(z.number()).meta({ description: 'When each character starts' }),
    character_end_times_seconds: z.array(z.number()).meta({ description: 'When each character ends' }),
  })
  .meta({ id: 'ElevenLabsAlignment', description: 'Characters with their times in the audio (seconds)' });

export const AudioWithTimestamps = z
  .object({
    audio_base64: z.string().meta({ description: 'The audio (or this piece of it), base64' }),
    alignment: Alignment.optional(),
    normalized_alignment: Alignment.optional(),
  })
  .meta({ id: 'ElevenLabsAudioWithTimestamps' });

const Labels = z
  .record(z.string(), z.string())
  .meta({ description: '`language`, `accent`, `gender`, `quality` (and a clone’s own labels), strings' });

export const Voice = z
  .object({
    voice_id: z.string().meta({ description: 'The voice id' }),
    name: z.string().meta({ description: 'Display name' }),
    category: z.enum(['premade', 'cloned']).meta({ description: '`premade` or `cloned`' }),
    labels: Labels,
    description: z.string().meta({ description: 'Notes on the voice' }),
    preview_url: z.string().optional().meta({ description: 'An absolute URL of a short MP3 sample (premade voices)' }),
    available_for_tiers: z.array(z.string()).meta({ description: 'Always empty: every plan may use it' }),
    is_owner: z.boolean().meta({ description: 'Whether it is your clone' }),
    created_at_unix: z.number().int().optional().meta({ description: 'When a clone was created (seconds)' }),
  })
  .meta({ id: 'ElevenLabsVoice' });

export const VoicesV1 = z
  .object({ voices: z.array(Voice).meta({ description: 'Every voice you can use' }) })
  .meta({ id: 'ElevenLabsVoices' });

export const VoicesV1Query = z.object({
  show_legacy: bool.optional().meta({ description: 'Accepted and ignored' }),
});

export const VoicesV2Query = z.object({
  next_page_token: z.string().max(32).optional().meta({ description: 'From the previous page' }),
  page_size: z.coerce
    .number()
    .int('Must be an integer.')
    .min(1, 'Must be 1-100.')
    .max(100, 'Must be 1-100.')
    .default(10)
    .meta({ description: 'Voices per page, 1-100 (default 10)' }),
  search: z.string().max(200).optional().meta({ description: 'Part of the name, description or language' }),
  category: z
    .enum(['premade', 'cloned', 'generated', 'professional', 'famous'], 'Unknown category.')
    .optional()
    .meta({ description: '`premade` or `cloned` (the others match nothing here)' }),
  voice_type: z
    .enum(['personal', 'community', 'default', 'workspace', 'non-default', 'saved'], 'Unknown voice_type.')
    .optional()
    .meta({ description: '`personal`/`workspace`/`non-default`: your clones; `default`: premade; others: all' }),
  gender: z.string().max(32).optional().meta({ description: 'female or male' }),
  language: z.string().max(35).optional().meta({ description: 'A language (`en`, `en-US`)' }),
  sort: z.string().max(32).optional().meta({ description: '`name` or `created_at_unix` (default: catalog order)' }),
  sort_direction: z.enum(['asc', 'desc'], 'Must be asc or desc.').optional().meta({ description: 'asc or desc' }),
  include_total_count: bool.optional().meta({ description: 'Accepted; the total is always counted' }),
});

export const VoicesV2 = z
  .object({
    voices: z.array(Voice).meta({ description: 'This page' }),
    has_more: z.boolean().meta({ description: 'Whether there is a next page' }),
    total_count: z.number().int().meta({ description: 'Voices matching the query' }),
    next_page_token: z.string().optional().meta({ description: 'The next page’s token (absent on the last)' }),
  })
  .meta({ id: 'ElevenLabsVoicesPage' });

export const VoiceQuery = z.object({
  with_settings: bool.optional().meta({ description: 'Accepted and ignored' }),
});

export const AddVoiceForm = z.object({
  name: z.string().meta({ description: 'The voice’s name, 1-100 characters' }),
  files: z
    .array(z.string().meta({ format: 'binary' }))
    .meta({ description: 'Audio samples (WAV, MP3, OGG, FLAC, M4A, ≤ 20 MiB each): the first is cloned from' }),
  description: z.string().optional().meta({ description: 'Notes, at most 500 characters' }),
  labels: z
    .string()
    .optional()
    .meta({ description: 'A JSON object of strings; `language` sets the sample’s language' }),
  remove_background_noise: z.string().optional().meta({ description: 'Accepted and ignored' }),
});

export const AddVoiceAnswer = z
  .object({
    voice_id: z.string().meta({ description: 'The new voice (processing for a few seconds)' }),
    requires_verification: z.boolean().meta({ description: 'Always false' }),
  })
  .meta({ id: 'ElevenLabsAddVoice' });

export const StatusOk = z
  .object({ status: z.literal('ok').meta({ description: 'Always `ok`' }) })
  .meta({ id: 'ElevenLabsStatusOk' });

const Subscription = {
  tier: z.string().meta({ description: 'Your plan’s id' }),
  character_count: z.number().int().meta({ description: 'Characters charged in the current billing period' }),
  character_limit: z
    .number()
    .int()
    .meta({ description: 'character_count plus what your balance still pays for: the difference is what is left' }),
  max_credit_limit_extension: z.number().int().meta({ description: 'Always 0' }),
  can_extend_character_limit: z.boolean().meta({ description: 'Always false' }),
  allowed_to_extend_character_limit: z.boolean().meta({ description: 'Always false' }),
  next_character_count_reset_unix: z.number().int().optional().meta({ description: 'When the period ends (seconds)' }),
  voice_slots_used: z.number().int().meta({ description: 'Cloned voices counting toward the plan' }),
  professional_voice_slots_used: z.number().int().meta({ description: 'Always 0' }),
  professional_voice_slots_used_in_workspace: z.number().int().meta({ description: 'Always 0' }),
  voice_limit: z.number().int().meta({ description: 'The plan’s max_cloned_voices' }),
  voice_add_edit_counter: z.number().int().meta({ description: 'Clones made (live or not)' }),
  professional_voice_limit: z.number().int().meta({ description: 'Always 0' }),
  can_extend_voice_limit: z.boolean().meta({ description: 'Always false' }),
  can_use_instant_voice_cloning: z.boolean().meta({ description: 'Whether the plan allows any clone' }),
  can_use_professional_voice_cloning: z.boolean().meta({ description: 'Always false' }),
  currency: z.enum(['usd', 'eur', 'gbp']).optional().meta({ description: 'The plan’s currency' }),
  current_overage: z
    .object({
      amount: z.string().meta({ description: 'Always "0"' }),
      currency: z.string().meta({ description: 'The plan’s currency' }),
    })
    .meta({ description: 'Nothing is billed past the balance' }),
  status: z.enum(['active', 'free']).meta({ description: '`free` on a plan without a price, else `active`' }),
};

export const UserSubscription = z
  .object({
    ...Subscription,
    open_invoices: z.array(z.never()).meta({ description: 'Always empty' }),
    has_open_invoices: z.boolean().meta({ description: 'Always false' }),
  })
  .meta({ id: 'ElevenLabsSubscription' });

export const User = z
  .object({
    user_id: z.string().meta({ description: 'Your account id' }),
    workspace_id: z.string().meta({ description: 'Your account id too (no workspaces here)' }),
    subscription: z.object(Subscription).meta({ description: 'Plan, characters and voice slots' }),
    is_new_user: z.boolean().meta({ description: 'Whether nothing was synthesized yet' }),
    can_use_delayed_payment_methods: z.boolean().meta({ description: 'Always false' }),
    is_onboarding_completed: z.boolean().meta({ description: 'Whether the email is verified' }),
    is_onboarding_checklist_completed: z.boolean().meta({ description: 'Whether the email is verified' }),
    first_name: z.string().optional().meta({ description: 'Your display name' }),
    created_at: z.number().int().meta({ description: 'When the account was created (seconds)' }),
    seat_type: z.literal('workspace_admin').meta({ description: 'Always `workspace_admin`' }),
  })
  .meta({ id: 'ElevenLabsUser' });

export const HistoryQuery = z.object({
  page_size: z.coerce
    .number()
    .int('Must be an integer.')
    .min(1, 'Must be 1-1000.')
    .max(1000, 'Must be 1-1000.')
    .default(100)
    .meta({ description: 'Items per page, 1-1000 (default 100)' }),
  start_after_history_item_id: z.uuid('Unknown history item.').optional().meta({ description: 'The last item seen' }),
  voice_id: z.string().max(64).optional().meta({ description: 'Only this voice’s' }),
  model_id: z.string().max(64).optional().meta({ description: 'Accepted and ignored' }),
  date_before_unix: z.coerce.number().int().optional().meta({ description: 'Created before (seconds)' }),
  date_after_unix: z.coerce.number().int().optional().meta({ description: 'Created at or after (seconds)' }),
  sort_direction: z.enum(['asc', 'desc'], 'Must be asc or desc.').default('desc').meta({ description: 'By date' }),
  search: z.string().max(200).optional().meta({ description: 'Part of the text' }),
  source: z.string().max(32).optional().meta({ description: 'Accepted; everything is `TTS` here' }),
});

export const HistoryParams = z.object({
  history_item_id: z.uuid().meta({ description: 'A synthesis id' }),
});

export const HistoryItem = z
  .object({
    history_item_id: z.string().meta({ description: 'The synthesis id (the same under /api/v1/tts/history/)' }),
    request_id: z.string().meta({ description: 'The synthesis id again' }),
    voice_id: z.string().meta({ description: 'The voice' }),
    model_id: z.string().optional().meta({ description: 'The engine that rendered it' }),
    voice_name: z.string().optional().meta({ description: 'The voice’s name' }),
    voice_category: z.enum(['premade', 'cloned']).optional().meta({ description: 'premade or cloned' }),
    text: z.string().meta({ description: 'The text spoken' }),
    date_unix: z.number().int().meta({ description: 'When it was submitted (seconds)' }),
    character_count_change_from: z.number().int().meta({ description: 'Always 0 (balances are not kept per item)' }),
    character_count_change_to: z.number().int().meta({ description: 'The characters it was charged' }),
    content_type: z.string().meta({ description: 'The stored audio’s media type' }),
    state: z.string().meta({ description: 'queued, processing, completed, failed or canceled' }),
    output_format: z.string().meta({ description: 'The stored format (mp3, wav, ogg, flac)' }),
    source: z.literal('TTS').meta({ description: 'Always `TTS`' }),
  })
  .meta({ id: 'ElevenLabsHistoryItem' });

export const HistoryPage = z
  .object({
    history: z.array(HistoryItem).meta({ description: 'This page' }),
    last_history_item_id: z.string().optional().meta({ description: 'For start_after_history_item_id' }),
    has_more: z.boolean().meta({ description: 'Whether there are more' }),
  })
  .meta({ id: 'ElevenLabsHistoryPage' });

export const AttestationBody = z.strictObject({
  attest: z.literal(true, 'Must be true: you affirm the statement.').meta({
    description: 'Must be `true`: you affirm `statement` for every sample you upload without a consent field',
  }),
});

export const Attestation = z
  .object({
    statement: z.string().meta({ description: 'What you affirmed' }),
    attested_at: z.string().meta({ description: 'When (ISO 8601)', format: 'date-time' }),
    client_ip: z.string().meta({ description: 'From where' }),
  })
  .meta({ id: 'CloningAttestation' });
