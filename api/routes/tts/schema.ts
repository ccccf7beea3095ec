import { z } from 'zod';
import { PageQuery, pageSchema } from '../../pagination';

export const EMOTIONS = ['neutral', 'happy', 'sad', 'angry', 'calm', 'excited'] as const;
export const OUTPUT_FORMATS = ['wav', 'mp3', 'ogg', 'flac'] as const;
export const STATUSES = ['queued', 'processing', 'completed', 'failed', 'canceled'] as const;

export const SynthesizeBody = z.strictObject({
  // Non-empty after trimming, with a letter or digit: checked by the submit command, documented here.
  text: z.string().max(200_000, 'Too long.').meta({ minLength: 1, pattern: '\\S' }),
  voice_id: z.string().min(1, 'This field is required.').max(64, 'Unknown voice.'),
  speed: z.number().min(0.5, 'Must be between 0.5 and 2.0.').max(2, 'Must be between 0.5 and 2.0.').default(1),
  pitch: z.number().min(-12, 'Must be between -12 and 12.').max(12, 'Must be between -12 and 12.').default(0),
  emotion: z.enum(EMOTIONS, `Must be one of: ${EMOTIONS.join(', ')}.`).default('neutral'),
  output_format: z.enum(OUTPUT_FORMATS, `Must be one of: ${OUTPUT_FORMATS.join(', ')}.`).default('wav'),
  project_id: z.string().nullable().optional(),
});
export type SynthesizeBody = z.output<typeof SynthesizeBody>;

export const SynthesisParams = z.object({ id: z.uuid() });

export const IdempotencyHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .optional()
    .meta({ description: '1-255 printable ASCII characters; a repeat within 24 h with the same body replays the first 202 (Idempotent-Replayed: true).' }),
});

export const HistoryQuery = PageQuery.extend({
  project_id: z.uuid('Must be a project id.').optional(),
  status: z.enum(STATUSES, `Must be one of: ${STATUSES.join(', ')}.`).optional(),
  voice_id: z.string().max(64).optional(),
});

const ErrorOut = z.object({ code: z.string(), message: z.string() }).nullable();

/** The status object; the id is `id` in the versioned family, `task_id` in the unversioned one. */
export const SynthesisStatus = z
  .object({
    id: z.uuid().optional(),
    task_id: z.uuid().optional(),
    status: z.enum(STATUSES),
    progress: z.number(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    characters: z.number().int(),
    credits_charged: z.number().int(),
    output_format: z.enum(OUTPUT_FORMATS),
    duration_seconds: z.number().nullable(),
    audio_url: z.string().nullable(),
    error: ErrorOut,
  })
  .meta({ id: 'SynthesisStatus' });

export const HistoryEntry = SynthesisStatus.extend({
  text: z.string(),
  voice_id: z.string(),
  speed: z.number(),
  pitch: z.number(),
  emotion: z.enum(EMOTIONS),
  project_id: z.uuid().nullable(),
}).meta({ id: 'HistoryEntry' });
export const HistoryPage = pageSchema(HistoryEntry).meta({ id: 'HistoryPage' });

export const SynthesisAccepted = z
  .object({
    id: z.uuid().optional(),
    task_id: z.uuid().optional(),
    status: z.literal('queued'),
    created_at: z.string(),
    characters: z.number().int(),
    status_url: z.string(),
  })
  .meta({ id: 'SynthesisAccepted' });
