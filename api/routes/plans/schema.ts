import { z } from 'zod';
import { PageQuery, pageSchema } from '../../pagination';
import { COST_RULE } from '../../../synthesis/cost';

export const Plan = z
  .object({
    id: z.string().meta({ description: 'The plan’s id (the profile’s subscription_tier)', example: 'free' }),
    name: z.string().meta({ description: 'The plan’s display name' }),
    price_cents: z.number().int().meta({ description: 'Monthly price in cents of `currency` (0: free)', example: 0 }),
    currency: z.string().meta({ description: 'ISO 4217 currency code', example: 'USD' }),
    monthly_credits: z
      .number()
      .int()
      .meta({ description: `Credits the balance is topped up to at each period start (${COST_RULE})`, example: 35000 }),
    credits_per_character: z.number().meta({
      description: `What a synthesis costs per character of its text (${COST_RULE}): the dashboard’s estimate; the 402 and the reservation use the same rule`,
      example: 1,
    }),
    max_text_length: z
      .number()
      .int()
      .meta({ description: 'Longest text of one synthesis, in characters (Unicode code points)', example: 5000 }),
    max_cloned_voices: z
      .number()
      .int()
      .meta({ description: 'Cloned voices an account may hold (processing or ready)', example: 3 }),
    max_concurrent_syntheses: z
      .number()
      .int()
      .meta({ description: 'Syntheses rendered at once per account; more wait queued', example: 2 }),
    output_formats: z
      .array(z.enum(['wav', 'mp3', 'ogg', 'flac']))
      .meta({ description: 'Audio formats the plan may request' }),
  })
  .meta({ id: 'SubscriptionPlan' });

export const PlanListQuery = PageQuery;
export const PlanPage = pageSchema(Plan).meta({ id: 'SubscriptionPlanPage' });
