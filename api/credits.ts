import type { Knex } from 'knex';
import { Account } from '../db/models/Account';
import { type ApiError, insufficientCredits } from './errors';

/**
 * The 402 for a request the balance cannot cover, saying both figures: what
 * it needed (`required`) and the account's available balance as it stands
 * now (`balance`, after reservations: the profile's `credit_balance`). `what`
 * names the request in the detail ("This synthesis").
 */
export async function creditShortfall(db: Knex, accountId: string, what: string, required: number): Promise<ApiError> {
  const account = await Account.query(db).findById(accountId).select('credit_balance');
  const balance = Number(account?.credit_balance ?? 0);
  return insufficientCredits(`${what} costs ${required} credits; the available balance is ${balance}.`, {
    balance,
    required,
  });
}
