import type { Knex } from 'knex';

const ALL_FORMATS = ['wav', 'mp3', 'ogg', 'flac'];

/** The plan catalog. The code is the source of truth; seeding upserts it. */
export const PLANS = [
  {
    id: 'free',
    name: 'Free',
    price_cents: 0,
    monthly_credits: 35_000,
    max_text_length: 5_000,
    max_cloned_voices: 3,
    max_concurrent_syntheses: 2,
    max_projects: 3,
    max_project_characters: 100_000,
    max_chapters: 50,
    requires_card: false,
  },
  {
    id: 'starter',
    name: 'Starter',
    price_cents: 500,
    monthly_credits: 120_000,
    max_text_length: 10_000,
    max_cloned_voices: 10,
    max_concurrent_syntheses: 3,
    max_projects: 10,
    max_project_characters: 1_000_000,
    max_chapters: 200,
    requires_card: true,
  },
  {
    id: 'creator',
    name: 'Creator',
    price_cents: 2_200,
    monthly_credits: 600_000,
    max_text_length: 20_000,
    max_cloned_voices: 30,
    max_concurrent_syntheses: 5,
    max_projects: 30,
    max_project_characters: 3_000_000,
    max_chapters: 500,
    requires_card: true,
  },
  {
    id: 'pro',
    name: 'Pro',
    price_cents: 9_900,
    monthly_credits: 3_000_000,
    max_text_length: 40_000,
    max_cloned_voices: 100,
    max_concurrent_syntheses: 10,
    max_projects: 100,
    max_project_characters: 10_000_000,
    max_chapters: 1_000,
    requires_card: true,
  },
].map((plan, index) => ({ ...plan, currency: 'USD', output_formats: ALL_FORMATS, sort_order: index }));

export async function seedPlans(knex: Knex): Promise<void> {
  await knex('subscription_plans')
    .insert(PLANS.map((plan) => ({ ...plan, updated_at: knex.fn.now() })))
    .onConflict('id')
    .merge();
}
