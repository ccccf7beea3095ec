import type { QueryBuilder } from 'objection';
import { TableModel } from './TableModel';

export class EmailVerificationToken extends TableModel {
  static override tableName = 'email_verification_tokens';

  static override modifiers = {
    /** Neither used nor replaced by a newer one (expiry is checked by the reader). */
    pending(query: QueryBuilder<EmailVerificationToken>) {
      query.whereNull('email_verification_tokens.used_at').whereNull('email_verification_tokens.superseded_at');
    },
  };

  id!: string;
  account_id!: string;
  token_hash!: Buffer;
  expires_at!: Date;
  /** Set when the token verified the account. */
  used_at!: Date | null;
  /** Set when a newer token (a resend) replaced this one. */
  superseded_at!: Date | null;
  created_at!: Date;
}
