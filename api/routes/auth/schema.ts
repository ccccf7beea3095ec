import { z } from 'zod';

const codePoints = (value: string) => [...value].length;

export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'Must be at most 254 characters.')
  .pipe(z.email('Enter a valid email address.'))
  // The pipe's output side (the email check) is invisible to the document: say it here.
  .meta({ example: 'ada@example.com', format: 'email', maxLength: 254 });

export const Password = z
  .string()
  .refine((value) => codePoints(value) >= 8, 'Must be at least 8 characters.')
  .refine((value) => codePoints(value) <= 128, 'Must be at most 128 characters.')
  // Counted in code points like JSON Schema's minLength/maxLength (zod's .min counts UTF-16 units).
  .meta({ description: '8-128 characters', minLength: 8, maxLength: 128 });

const Token = z.string().min(1, 'This field is required.').max(512, 'Invalid or expired token.');

export const RegisterBody = z.strictObject({
  email: Email,
  password: Password,
  name: z.string().trim().max(100, 'Must be at most 100 characters.').default(''),
});
export const VerifyEmailBody = z.strictObject({ token: Token });
export const VerifyEmailQuery = z.object({ token: Token });
export const ResendBody = z.strictObject({ email: Email });
export const LoginBody = z.strictObject({ email: Email, password: z.string().min(1, 'This field is required.').max(1024) });
export const RefreshBody = z.strictObject({ refresh: Token });
export const LogoutBody = RefreshBody;

export const AccountOut = z
  .object({ id: z.uuid(), email: z.string(), name: z.string(), email_verified: z.boolean(), created_at: z.string() })
  .meta({ id: 'Account' });

export const TokenPair = z
  .object({ access: z.string(), refresh: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int() })
  .meta({ id: 'TokenPair' });

export const Usage = z
  .object({
    period_start: z.string(),
    period_end: z.string(),
    credits_used: z.number().int(),
    characters_synthesized: z.number().int(),
    syntheses: z.number().int(),
    syntheses_failed: z.number().int(),
    audio_seconds: z.number(),
    cloned_voices: z.number().int(),
    cloned_voices_limit: z.number().int(),
    daily: z
      .array(
        z.object({
          date: z.string().meta({ description: 'A UTC day, YYYY-MM-DD' }),
          syntheses: z.number().int(),
          credits_used: z.number().int(),
          audio_seconds: z.number(),
        }),
      )
      .meta({ description: 'Completed syntheses of the period per UTC day, oldest first; days without any are left out' }),
  })
  .meta({ id: 'Usage' });

export const BillingPeriod = z
  .object({
    start: z.string().meta({ description: 'When the current billing period began: monthly from verification; its credits were topped up to the plan’s monthly_credits then' }),
    end: z.string().meta({ description: 'When the next period begins (and the next refill)' }),
  })
  .meta({ id: 'BillingPeriod' });

export const Profile = AccountOut.extend({
  subscription_tier: z.string(),
  credit_balance: z.number().int(),
  credits_reserved: z.number().int(),
  billing_period: BillingPeriod.nullable().meta({ description: 'null until the email is verified' }),
  history_retention_days: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'Syntheses older than this many days are deleted with their audio (credits untouched); null: the service default applies (by default, history is kept)' }),
  usage: Usage,
}).meta({ id: 'Profile' });

export const Accepted = z.object({ detail: z.string() }).meta({ id: 'Accepted' });
