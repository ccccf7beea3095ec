import type { QueryBuilder } from 'objection';
import { TableModel } from './TableModel';

export class Account extends TableModel {
  static override tableName = 'accounts';

  static override modifiers = {
    /** Not marked deleted (a deletion erases the row last; nothing authenticates as it meanwhile). */
    live(query: QueryBuilder<Account>) {
      query.whereNull('accounts.deleted_at');
    },
  };

  id!: string;
  email!: string;
  name!: string;
  password_hash!: string;
  email_verified_at!: Date | null;
  subscription_tier!: string;
  /** bigint columns arrive as strings from pg; read them through the numbers below. */
  credit_balance!: string | number;
  credits_reserved!: string | number;
  /** The owner's history retention; null: the operator's default applies. */
  history_retention_days!: number | null;
  /** Set when a deletion was asked for; the row goes last. */
  deleted_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
}
