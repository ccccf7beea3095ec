import type { Knex } from 'knex';
import { TableModel } from './TableModel';

export class Account extends TableModel {
  static override tableName = 'accounts';

  /** Locks the account's row until the transaction ends: an account's plan-limited steps run one at a time. */
  static lock(trx: Knex.Transaction, id: string) {
    return this.query(trx).findById(id).forUpdate().select('id');
  }

  /**
   * The balance beside the plan's monthly credits (a refill tops up to them; the
   * credits.low threshold is a share of them). `lock`: the account's row is
   * locked until the transaction ends, the plan's is not.
   */
  static withMonthlyCredits(db: Knex, id: string, { lock = false } = {}) {
    return this.query(db)
      .join('subscription_plans', 'subscription_plans.id', 'accounts.subscription_tier')
      .findOne('accounts.id', id)
      .select('accounts.credit_balance', 'accounts.credits_reserved', 'subscription_plans.monthly_credits')
      .onBuildKnex((query) => {
        if (lock) query.forUpdate('accounts');
      })
      .castTo<(Pick<Account, 'credit_balance' | 'credits_reserved'> & { monthly_credits: number }) | undefined>();
  }

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
  /** The voice that speaks when a request names none (synthesis/defaultVoice.ts); null: the service default. */
  default_voice_id!: string | null;
  /** Set when a deletion was asked for; the row goes last. */
  deleted_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
}
