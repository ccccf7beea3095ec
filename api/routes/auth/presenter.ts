import type { z } from 'zod';
import type { Account } from '../../../db/models/Account';
import { billingPeriod } from '../../../lib/billingPeriod';
import type { DefaultVoice } from '../../../synthesis/defaultVoice';
import type { AccountOut, Profile, Usage } from './schema';

const presentPeriod = ({ start, end }: { start: Date; end: Date }) => ({
  start: start.toISOString(),
  end: end.toISOString(),
});

export function presentAccount(account: Account): z.output<typeof AccountOut> {
  return {
    id: account.id,
    email: account.email,
    name: account.name,
    email_verified: account.email_verified_at !== null,
    created_at: account.created_at.toISOString(),
  };
}

export function presentProfile(
  account: Account,
  usage: z.output<typeof Usage>,
  defaultVoice: DefaultVoice,
): z.output<typeof Profile> {
  return {
    ...presentAccount(account),
    subscription_tier: account.subscription_tier,
    credit_balance: Number(account.credit_balance),
    credits_reserved: Number(account.credits_reserved),
    billing_period: account.email_verified_at
      ? presentPeriod(billingPeriod(new Date(account.email_verified_at)))
      : null,
    history_retention_days: account.history_retention_days ?? null,
    default_voice_id: account.default_voice_id ?? null,
    default_voice: defaultVoice,
    usage,
  };
}
