import { TableModel } from './TableModel';

export type LedgerKind = 'grant' | 'reserve' | 'capture' | 'release';

/** A row of the credit ledger; every write goes through db/ledger.ts. */
export class CreditLedgerEntry extends TableModel {
  static override tableName = 'credit_ledger';

  /** bigserial: a string from pg. */
  id!: string;
  /** Null once the account is erased (the amounts stay for the books). */
  account_id!: string | null;
  kind!: LedgerKind;
  reference!: string;
  /** bigint: a string from pg. */
  amount!: string | number;
  created_at!: Date;
}
