import { z } from 'zod';
import { COST_RULE } from '../../../synthesis/cost';

const codePoints = (value: string) => [...value].length;

const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'Must be at most 254 characters.')
  .pipe(z.email('Enter a valid email address.'))
  // The pipe's output side (the email check) is invisible to the document: say it here.
  .meta({
    description: 'The account’s email address, at most 254 characters (trimmed and compared in lower case)',
    example: 'ada@example.com',
    format: 'email',
    maxLength: 254,
  });

const Password = z
  .string()
  .refine((value) => codePoints(value) >= 8, 'Must be at least 8 characters.')
  .refine((value) => codePoints(value) <= 128, 'Must be at most 128 characters.')
  // Counted in code points like JSON Schema's minLength/maxLength (zod's .min counts UTF-16 units).
  .meta({ description: 'The password: 8-128 characters (Unicode code points)', minLength: 8, maxLength: 128 });

const Token = z.string().min(1, 'This field is required.').max(512, 'Invalid or expired token.');

export const RegisterBody = z.strictObject({
  email: Email,
  password: Password,
  name: z
    .string()
    .trim()
    .max(100, 'Must be at most 100 characters.')
    .default('')
    .meta({ description: 'A display name, at most 100 characters', example: 'Ada' }),
});
const VerificationToken = Token.meta({
  description: 'The token from the verification email’s link (at most 512 characters)',
});
export const VerifyEmailBody = z.strictObject({ token: VerificationToken });
export const VerifyEmailQuery = z.object({ token: VerificationToken });
export const ResendBody = z.strictObject({ email: Email });
export const LoginBody = z.strictObject({
  email: Email,
  password: z
    .string()
    .min(1, 'This field is required.')
    .max(1024)
    .meta({ description: 'The account’s password (at most 1024 characters)' }),
});
export const RefreshBody = z.strictObject({
  refresh: Token.meta({ description: 'A refresh token from login or the last refresh; it rotates (each works once)' }),
});
export const LogoutBody = RefreshBody;

export const AccountOut = z
  .object({
    id: z.uuid().meta({ description: 'The account’s id' }),
    email: z.string().meta({ description: 'The email address, lower case', example: 'ada@example.com' }),
    name: z.string().meta({ description: 'The display name (may be empty)', example: 'Ada' }),
    email_verified: z.boolean().meta({ description: 'Whether the email link was followed; login needs it' }),
    created_at: z
      .string()
      .meta({ description: 'When the account was registered (ISO 8601, UTC)', format: 'date-time' }),
  })
  .meta({ id: 'Account' });

export const RegisteredAccount = AccountOut.extend({
  verification_mail: z
    .object({
      delivery: z
        .literal('file')
        .meta({ description: 'Always `file`: the mail was written to a file on the server, not sent' }),
      directory: z.string().meta({
        description: 'Where on the server (relative to its working directory when inside it)',
        example: '.data/mail',
      }),
    })
    .optional()
    .meta({
      description:
        'Only when `NODE_ENV=development` and `SMTP_URL` is unset (mail goes to `.eml` files): where the verification mail went. Never present in production or when mail is sent.',
    }),
}).meta({ id: 'RegisteredAccount' });

export const TokenPair = z
  .object({
    access: z.string().meta({ description: 'The access JWT, sent as `Authorization: Bearer <access>`' }),
    refresh: z.string().meta({
      description:
        'The refresh JWT: trade it for a new pair before the access token expires (default lifetime 14 days; works once)',
    }),
    token_type: z.literal('Bearer').meta({ description: 'Always `Bearer`' }),
    expires_in: z
      .number()
      .int()
      .meta({ description: 'Lifetime of the access token in seconds (ACCESS_TOKEN_TTL, default 900)', example: 900 }),
  })
  .meta({ id: 'TokenPair' });

export const Usage = z
  .object({
    period_start: z.string().meta({ description: 'Start of the counted period (ISO 8601, UTC)', format: 'date-time' }),
    period_end: z
      .string()
      .meta({ description: 'End of the counted period, exclusive (ISO 8601, UTC)', format: 'date-time' }),
    credits_used: z
      .number()
      .int()
      .meta({ description: `Credits charged in the period (${COST_RULE})`, example: 129 }),
    characters_synthesized: z
      .number()
      .int()
      .meta({ description: 'Characters (Unicode code points) of the completed syntheses in the period', example: 129 }),
    syntheses: z.number().int().meta({ description: 'Completed syntheses in the period', example: 3 }),
    syntheses_failed: z
      .number()
      .int()
      .meta({ description: 'Failed syntheses in the period (not charged)', example: 0 }),
    audio_seconds: z.number().meta({ description: 'Seconds of audio produced in the period', example: 9.4 }),
    cloned_voices: z
      .number()
      .int()
      .meta({ description: 'Cloned voices now processing or ready (they count against the limit)', example: 1 }),
    cloned_voices_limit: z.number().int().meta({ description: 'The plan’s max_cloned_voices', example: 3 }),
    daily: z
      .array(
        z.object({
          date: z.string().meta({ description: 'A UTC day, YYYY-MM-DD', format: 'date', example: '2026-11-21' }),
          syntheses: z.number().int().meta({ description: 'Completed syntheses that day', example: 3 }),
          credits_used: z.number().int().meta({ description: 'Credits charged that day', example: 129 }),
          audio_seconds: z.number().meta({ description: 'Seconds of audio produced that day', example: 9.4 }),
        }),
      )
      .meta({
        description: 'Completed syntheses of the period per UTC day, oldest first; days without any are left out',
      }),
  })
  .meta({ id: 'Usage', description: 'What the current billing period used' });

const BillingPeriod = z
  .object({
    start: z.string().meta({
      description:
        'When the current billing period began: monthly from verification; its credits were topped up to the plan’s monthly_credits then',
      format: 'date-time',
    }),
    end: z.string().meta({ description: 'When the next period begins (and the next refill)', format: 'date-time' }),
  })
  .meta({ id: 'BillingPeriod' });

const DefaultVoice = z
  .object({
    id: z.string().meta({ description: 'The voice that speaks when a request names none', example: 'en-us-joe' }),
    name: z.string().meta({ description: 'Its display name', example: 'Joe' }),
    source: z.enum(['account', 'service']).meta({
      description:
        '`account`: your `default_voice_id`; `service`: the service default (none chosen, or the chosen voice cannot speak now). Installing voices never changes it',
    }),
    notice: z.string().nullable().meta({
      description:
        'Why your chosen default voice is passed over (deleted, consent revoked, no longer installed), in words; null otherwise',
    }),
  })
  .meta({
    id: 'DefaultVoice',
    description:
      'The voice used where a voice may be left out (`/v1/audio/speech` without `voice`, the dashboard playground, the CLI)',
  });

export const Profile = AccountOut.extend({
  subscription_tier: z.string().meta({ description: 'The plan’s id, e.g. `free`', example: 'free' }),
  credit_balance: z
    .number()
    .int()
    .meta({ description: `Available credits, after reservations (${COST_RULE})`, example: 34871 }),
  credits_reserved: z
    .number()
    .int()
    .meta({ description: 'Credits held by syntheses still queued or processing', example: 0 }),
  billing_period: BillingPeriod.nullable().meta({ description: 'null until the email is verified' }),
  history_retention_days: z.number().int().nullable().meta({
    description:
      'Syntheses older than this many days are deleted with their audio (credits untouched); null: the service default applies (by default, history is kept)',
  }),
  default_voice_id: z.string().nullable().meta({
    description:
      'The voice you chose to speak when a request names none (PATCH it; null: none chosen). Kept while it cannot speak; `default_voice` says what speaks instead',
    example: null,
  }),
  default_voice: DefaultVoice,
  usage: Usage,
}).meta({ id: 'Profile' });

export const Accepted = z
  .object({ detail: z.string().meta({ description: 'What happens next, in words' }) })
  .meta({ id: 'Accepted' });
