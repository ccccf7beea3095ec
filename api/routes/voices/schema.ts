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
    created_at: z.string(),
  })
  .meta({ id: 'Voice' });
export const VoicePage = pageSchema(VoiceOut).meta({ id: 'VoicePage' });
