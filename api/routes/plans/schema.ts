import { z } from 'zod';
import { PageQuery, pageSchema } from '../../pagination';

export const Plan = z
  .object({
    id: z.string(),
    name: z.string(),
    price_cents: z.number().int(),
    currency: z.string(),
    monthly_credits: z.number().int(),
    max_text_length: z.number().int(),
    max_cloned_voices: z.number().int(),
    max_concurrent_syntheses: z.number().int(),
    output_formats: z.array(z.enum(['wav', 'mp3', 'ogg', 'flac'])),
  })
  .meta({ id: 'SubscriptionPlan' });

export const PlanListQuery = PageQuery;
export const PlanPage = pageSchema(Plan).meta({ id: 'SubscriptionPlanPage' });
