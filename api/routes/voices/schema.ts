import { z } from 'zod';
import { PageQuery, pageSchema } from '../../pagination';

export const VoiceParams = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/)
    .meta({ description: 'A premade voice’s readable id (e.g. `en-us-slt`) or a cloned voice’s UUID' }),
});

export const VoiceListQuery = PageQuery.extend({
  category: z
    .enum(['premade', 'cloned'], 'Must be premade or cloned.')
    .optional()
    .meta({ description: 'Only premade voices, or only your cloned voices (in every status)' }),
  language: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'Must be a BCP 47 language tag, e.g. en or en-US.')
    .optional()
    .meta({ description: 'A BCP 47 tag, case-insensitive; a bare language (`en`) matches all its regions' }),
  used: z.enum(['true', 'false'], 'Must be true or false.').optional().meta({
    description:
      '`true`: only the voices of syntheses in your history (what a history filter offers); `false` or absent: no such filter',
  }),
});
export const MyVoicesQuery = VoiceListQuery.omit({ category: true });

export const VoiceOut = z
  .object({
    id: z.string().meta({
      description:
        'The voice id for `voice_id`: readable for premade voices (e.g. `en-us-slt`), a UUID for cloned ones',
    }),
    name: z.string().meta({ description: 'The voice’s display name' }),
    category: z.enum(['premade', 'cloned']).meta({ description: '`premade` (the catalog) or `cloned` (yours)' }),
    language: z.string().meta({ description: 'BCP 47 tag of the language it speaks', example: 'en-US' }),
    gender: z
      .string()
      .meta({ description: '`female`, `male` or `unknown` (a clone: estimated from the sample’s pitch)' }),
    description: z.string().meta({ description: 'Notes on the voice (may be empty)' }),
    status: z.enum(['processing', 'ready', 'failed', 'revoked']).meta({
      description:
        'Premade voices are always `ready`; a clone is `processing` until it ends `ready` or `failed`; `revoked` once its owner withdrew the speaker’s consent (it can no longer be used and its sample is gone)',
    }),
    error: z
      .object({
        code: z.string().meta({
          description:
            'Why cloning failed, e.g. `audio_too_short`, `audio_too_long`, `audio_unreadable`, `no_speech_detected`',
        }),
        message: z.string().meta({ description: 'The reason in words' }),
      })
      .nullable()
      .meta({ description: 'Set when status is `failed`, else null' }),
    similarity: z.number().nullable().meta({
      description:
        'Cloned voices: how close a synthesis with the clone is to the sample, 0-1 (the service’s own measure); null otherwise',
    }),
    closest_premade: z.string().nullable().meta({
      description:
        'A clone for which an unmodified premade voice measured closest to the sample: that voice’s id (the clone is that voice unchanged, not an adjustment toward the speaker); null otherwise',
    }),
    engine: z.string().nullable().meta({
      description:
        "The engine that renders the voice (a clone: its base voice's), e.g. piper, festival, espeak-ng; null while a clone is processing",
    }),
    quality: z
      .enum(['neural', 'classic'])
      .nullable()
      .meta({ description: 'neural: a trained model (Piper); classic: formant, diphone, unit or HMM synthesis' }),
    word_timestamps: z.boolean().meta({
      description:
        'Whether its syntheses have word timestamps (GET …/timestamps/): its engine reports timing (Festival, Piper); false for the others and while a clone is processing',
    }),
    licence: z.string().nullable().meta({ description: 'Licence facts of the engine and the voice data' }),
    preview_url: z.string().nullable().meta({
      description:
        "A premade voice's short sample in its own language (MP3, public, no token needed); null for clones and until rendered",
    }),
    created_at: z.string().meta({ description: 'When the voice was added (ISO 8601, UTC)', format: 'date-time' }),
  })
  .meta({ id: 'Voice' });
export const VoicePage = pageSchema(VoiceOut).meta({ id: 'VoicePage' });
