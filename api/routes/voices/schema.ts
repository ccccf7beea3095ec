import { z } from 'zod';
import { PageQuery, pageSchema } from '../../pagination';

export const VoiceParams = z.object({ id: z.string().regex(/^[A-Za-z0-9-]{1,64}$/) });

export const VoiceListQuery = PageQuery.extend({
  category: z.enum(['premade', 'cloned'], 'Must be premade or cloned.').optional(),
  language: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'Must be a BCP 47 language tag, e.g. en or en-US.')
    .optional(),
});
export const MyVoicesQuery = VoiceListQuery.omit({ category: true });

export const VoiceOut = z
  .object({
    id: z.string(),
    name: z.string(),
    category: z.enum(['premade', 'cloned']),
    language: z.string(),
    gender: z.string(),
    description: z.string(),
    status: z.enum(['processing', 'ready', 'failed']),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    similarity: z.number().nullable(),
    engine: z.string().nullable().meta({ description: 'The engine that renders the voice (a clone: its base voice\'s), e.g. piper, festival, espeak-ng; null while a clone is processing' }),
    quality: z.enum(['neural', 'classic']).nullable().meta({ description: 'neural: a trained model (Piper); classic: formant, diphone, unit or HMM synthesis' }),
    licence: z.string().nullable().meta({ description: 'Licence facts of the engine and the voice data' }),
    preview_url: z.string().nullable().meta({ description: "A premade voice's short sample in its own language (MP3, public, no token needed); null for clones and until rendered" }),
    created_at: z.string(),
  })
  .meta({ id: 'Voice' });
export const VoicePage = pageSchema(VoiceOut).meta({ id: 'VoicePage' });
