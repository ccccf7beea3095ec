import { Model } from 'objection';

export class Account extends Model {
  static override tableName = 'accounts';

  id!: string;
  email!: string;
  name!: string;
  password_hash!: string;
  email_verified_at!: Date | null;
  subscription_tier!: string;
  /** bigint columns arrive as strings from pg; read them through the numbers below. */
  credit_balance!: string | number;
  credits_reserved!: string | number;
  created_at!: Date;
  updated_at!: Date;
}
