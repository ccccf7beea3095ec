import { z } from 'zod';
import { EMOTIONS, OUTPUT_FORMATS } from '../../../audio/prosody';
import { SYNTHESIS_STATUSES as STATUSES } from '../../../synthesis/status';
import { PageQuery, pageSchema } from '../../pagination';
import { COST_RULE } from '../../../synthesis/cost';

const TEXT_NORMALIZATION = ['auto', 'on', 'off'] as const;
/** Shared by both synthesis routes, the OpenAI-compatible one and the normalize preview. */
export const TextNormalizationField = z
  .enum(TEXT_NORMALIZATION, `Must be one of: ${TEXT_NORMALIZATION.join(', ')}.`)
  .default('auto')
  .meta({
    description:
      'Read written forms as a person would before speaking (numbers, dates, times, money, units, abbreviations, acronyms: see /api/v1/tts/normalize/): `auto` (default) and `on` in the languages the service knows (English, German, French, Spanish), `off` reads the text as written. Credits count the characters you sent either way.',
  });

/** Shared by both synthesis routes, the OpenAI-compatible one and the normalize preview. */
export const PronunciationDictionaryIdsField = z
  .array(z.string().max(64, 'Unknown pronunciation dictionary.').meta({ maxLength: 64 }))
  .max(20, 'At most 20 dictionaries.')
  .optional()
  .meta({
    description:
      'Your pronunciation dictionaries to apply, in order (see /api/v1/pronunciation-dictionaries/). Absent: your account-wide ones and, with `project_id`, that project’s (first); `[]`: none. Fixed when submitted; the entries are read when it renders.',
    example: [],
  });

const TEXT_TYPES = ['text', 'ssml'] as const;
/** Shared by both synthesis routes, the OpenAI-compatible one and the normalize preview. */
export const TextTypeField = z
  .enum(TEXT_TYPES, `Must be one of: ${TEXT_TYPES.join(', ')}.`)
  .optional()
  .meta({
    description:
      'How the text is read: `ssml`, an SSML document (a subset: break, say-as, sub, phoneme, prosody, emphasis, p, s; see the SSML section of the API guide); `text`, plain text read as written even where it looks like markup. Absent: `ssml` when the text starts with `<speak>`, else `text`. An invalid document is a 400 naming its line and column. Credits count the characters you sent, markup included.',
  });

export const SynthesizeBody = z.strictObject({
  // Non-empty after trimming, with a letter or digit: checked by the submit command, documented here.
  text: z
    .string()
    .max(200_000, 'Too long.')
    .meta({
      minLength: 1,
      pattern: '\\S',
      description: `The text to speak: 1 to the plan’s max_text_length characters (Unicode code points, after trimming and NFC), with a letter or digit. Costs ${COST_RULE}.`,
    }),
  voice_id: z
    .string()
    .min(1, 'This field is required.')
    .max(64, 'Unknown voice.')
    .meta({ description: 'A premade voice’s id or one of your ready cloned voices', example: 'en-us-joe' }),
  speed: z
    .number()
    .min(0.5, 'Must be between 0.5 and 2.0.')
    .max(2, 'Must be between 0.5 and 2.0.')
    .default(1)
    .meta({ description: 'Tempo factor, 0.5-2.0 (1 = normal); the pitch is kept' }),
  pitch: z
    .number()
    .min(-12, 'Must be between -12 and 12.')
    .max(12, 'Must be between -12 and 12.')
    .default(0)
    .meta({ description: 'Pitch shift in semitones, -12 to +12 (0 = unchanged)' }),
  emotion: z
    .enum(EMOTIONS, `Must be one of: ${EMOTIONS.join(', ')}.`)
    .default('neutral')
    .meta({ description: 'A prosody preset (rate, pitch and loudness contours)' }),
  output_format: z
    .enum(OUTPUT_FORMATS, `Must be one of: ${OUTPUT_FORMATS.join(', ')}.`)
    .default('wav')
    .meta({ description: 'The audio format: `wav` (PCM), `mp3`, `ogg` (Opus) or `flac`' }),
  project_id: z
    .string()
    .nullable()
    .optional()
    .meta({ description: 'One of your projects’ ids to file the synthesis under; null or absent for none' }),
  text_normalization: TextNormalizationField,
  pronunciation_dictionary_ids: PronunciationDictionaryIdsField,
  text_type: TextTypeField,
});
export type SynthesizeBody = z.output<typeof SynthesizeBody>;

export const SynthesisParams = z.object({
  id: z.uuid().meta({ description: 'The synthesis id (`id`, or `task_id` in the unversioned family)' }),
});

export const IdempotencyHeaders = z.object({
  'Idempotency-Key': z.string().optional().meta({
    description:
      '1-255 printable ASCII characters; a repeat within 24 h with the same body replays the first 202 (Idempotent-Replayed: true).',
  }),
});

/** A time in a query string: an ISO 8601 date-time with its offset, or a date (midnight UTC). */
const Instant = z
  .union(
    [z.iso.datetime({ offset: true }), z.iso.date()],
    'Must be an ISO 8601 date or date-time, e.g. 2026-11-01 or 2026-11-01T00:00:00Z.',
  )
  .transform((value) => new Date(value.length === 10 ? `${value}T00:00:00Z` : value));

export const HistoryQuery = PageQuery.extend({
  project_id: z.uuid('Must be a project id.').optional().meta({ description: 'Only the syntheses of this project' }),
  status: z
    .enum(STATUSES, `Must be one of: ${STATUSES.join(', ')}.`)
    .optional()
    .meta({ description: 'Only the syntheses in this status' }),
  voice_id: z.string().max(64).optional().meta({ description: 'Only the syntheses made with this voice' }),
  created_since: Instant.optional().meta({
    description: 'Only the syntheses created at or after this time (ISO 8601; a bare date is midnight UTC)',
    example: '2026-11-01',
  }),
  created_before: Instant.optional().meta({
    description: 'Only the syntheses created before this time (ISO 8601; a bare date is midnight UTC)',
    example: '2026-12-01',
  }),
});

const ErrorOut = z
  .object({
    code: z.string().meta({
      description:
        'Why it failed: `engine_failed`, `storage_unavailable` or `synthesis_failed` (see /api/docs/errors/)',
    }),
    message: z.string().meta({ description: 'The reason in words' }),
  })
  .nullable()
  .meta({ description: 'Set when status is `failed` (nothing was charged), else null' });

const SynthesisId = z.uuid().optional().meta({ description: 'The synthesis id (versioned family only)' });
const TaskId = z.uuid().optional().meta({ description: 'The synthesis id (unversioned family only)' });

/** The status object; the id is `id` in the versioned family, `task_id` in the unversioned one. */
export const SynthesisStatus = z
  .object({
    id: SynthesisId,
    task_id: TaskId,
    status: z.enum(STATUSES).meta({ description: 'Poll until it is neither `queued` nor `processing`' }),
    progress: z.number().meta({
      description: 'Share rendered, 0-1, moving with each sentence rendered; exactly 1 when completed',
      example: 1,
    }),
    eta_seconds: z.number().int().nullable().meta({
      description:
        'Seconds left while processing, from its own throughput so far (time since its render started over the share rendered); null while queued, before its first sentence is rendered, and once it has ended',
      example: 42,
    }),
    created_at: z.string().meta({ description: 'When it was submitted (ISO 8601, UTC)', format: 'date-time' }),
    started_at: z
      .string()
      .nullable()
      .meta({ description: 'When rendering began (ISO 8601, UTC); null while queued', format: 'date-time' }),
    completed_at: z
      .string()
      .nullable()
      .meta({ description: 'When it ended: completed, failed or canceled (ISO 8601, UTC)', format: 'date-time' }),
    characters: z
      .number()
      .int()
      .meta({
        description: `Characters (Unicode code points) of the normalized text; the synthesis costs ${COST_RULE}`,
        example: 19,
      }),
    credits_charged: z.number().int().meta({
      description:
        'Credits charged: the cost reserved at submission, once completed; 0 before and on failure or cancel',
      example: 19,
    }),
    output_format: z.enum(OUTPUT_FORMATS).meta({ description: 'The requested audio format' }),
    duration_seconds: z
      .number()
      .nullable()
      .meta({ description: 'Length of the audio in seconds, once completed', example: 1.4 }),
    audio_url: z.string().nullable().meta({ description: 'Path of the audio download in your family, once completed' }),
    error: ErrorOut,
  })
  .meta({ id: 'SynthesisStatus' });

export const HistoryEntry = SynthesisStatus.extend({
  text: z.string().meta({ description: 'The submitted text' }),
  voice_id: z.string().meta({ description: 'The voice it was rendered with' }),
  speed: z.number().meta({ description: 'Tempo factor, 0.5-2.0' }),
  pitch: z.number().meta({ description: 'Pitch shift in semitones' }),
  emotion: z.enum(EMOTIONS).meta({ description: 'The prosody preset' }),
  project_id: z.uuid().nullable().meta({ description: 'The project it is filed under, or null' }),
  text_type: z
    .enum(TEXT_TYPES)
    .meta({ description: 'How `text` was read: `text` (plain) or `ssml` (an SSML document)' }),
  text_normalization: z
    .enum(TEXT_NORMALIZATION)
    .meta({ description: 'Whether written forms were read as words: `auto`, `on` or `off`' }),
  pronunciation_dictionary_ids: z.array(z.string()).meta({
    description:
      'The pronunciation dictionaries it applied, in order (the defaults made explicit when it was submitted); empty: none',
  }),
}).meta({ id: 'HistoryEntry' });
export const HistoryPage = pageSchema(HistoryEntry).meta({ id: 'HistoryPage' });

export const SynthesisAccepted = z
  .object({
    id: SynthesisId,
    task_id: TaskId,
    status: z.literal('queued').meta({ description: 'Always `queued` on submission' }),
    created_at: z.string().meta({ description: 'When it was submitted (ISO 8601, UTC)', format: 'date-time' }),
    characters: z.number().int().meta({
      description: 'Characters (Unicode code points) of the normalized text: the credits reserved',
      example: 19,
    }),
    status_url: z
      .string()
      .meta({ description: 'Path of the status endpoint in your family (also the Location header)' }),
    warnings: z.array(z.string()).meta({
      description:
        'What an SSML document asked that is read differently (an unknown element read as its text, an unsupported attribute…), each with its line and column; empty for plain text',
      example: [],
    }),
  })
  .meta({ id: 'SynthesisAccepted' });
