import type { z } from 'zod';
import type { SubscriptionPlan } from '../../../db/models/SubscriptionPlan';
import { CREDITS_PER_CHARACTER } from '../../../synthesis/cost';
import type { Plan } from './schema';

export function presentPlan(plan: SubscriptionPlan): z.output<typeof Plan> {
  return {
    id: plan.id,
    name: plan.name,
    price_cents: plan.price_cents,
    currency: plan.currency,
    monthly_credits: plan.monthly_credits,
    credits_per_character: CREDITS_PER_CHARACTER,
    max_text_length: plan.max_text_length,
    max_cloned_voices: plan.max_cloned_voices,
    max_concurrent_syntheses: plan.max_concurrent_syntheses,
    output_formats: plan.output_formats as z.output<typeof Plan>['output_formats'],
  };
}
