import type { ActivityDeps } from '.';

export type CreditStep = 'reserve' | 'capture' | 'release';

export interface CreditStepInput {
  step: CreditStep;
  accountId: string;
  /** What the credits are for, e.g. the synthesis id; one row per (account, step, reference). */
  reference: string;
  amount: number;
}

export type CreditStepResult = { applied: boolean; outcome: 'reserved' | 'insufficient' | 'captured' | 'released' | 'settled' };

/**
 * Ledger amounts are positive; the kind says which way they move. One ledger step, exactly once per (account, step, reference), with the
 * balance change in the same transaction:
 * - reserve moves `amount` from the available balance to `credits_reserved`,
 *   only if the balance covers it (so concurrent reservations cannot overdraw);
 * - capture charges a reservation (it leaves `credits_reserved`);
 * - release returns a reservation to the balance.
 * A reservation is settled once: after a capture a release does nothing, and vice versa.
 */
export function createCreditActivities({ db }: ActivityDeps) {
  return {
    async applyCreditStep({ step, accountId, reference, amount }: CreditStepInput): Promise<CreditStepResult> {
      return db.transaction(async (trx) => {
        // Every credit step of an account runs one at a time.
        await trx('accounts').where({ id: accountId }).forUpdate().first('id');
        const existing = await trx('credit_ledger').where({ account_id: accountId, reference }).whereIn('kind', ['reserve', 'capture', 'release']).select('kind');
        const kinds = new Set(existing.map((row: { kind: string }) => row.kind));

        if (step === 'reserve') {
          if (kinds.has('reserve')) return { applied: false, outcome: 'reserved' };
          const updated = await trx('accounts')
            .where({ id: accountId })
            .andWhere('credit_balance', '>=', amount)
            .update({
              credit_balance: trx.raw('credit_balance - ?', [amount]),
              credits_reserved: trx.raw('credits_reserved + ?', [amount]),
              updated_at: trx.fn.now(),
            });
          if (updated === 0) return { applied: false, outcome: 'insufficient' };
          await trx('credit_ledger').insert({ account_id: accountId, kind: 'reserve', reference, amount });
          return { applied: true, outcome: 'reserved' };
        }

        if (!kinds.has('reserve')) return { applied: false, outcome: 'settled' };
        if (kinds.has('capture') || kinds.has('release')) return { applied: false, outcome: 'settled' };
        const [reservation] = await trx('credit_ledger').where({ account_id: accountId, reference, kind: 'reserve' }).select('amount');
        const reserved = Number(reservation.amount);
        await trx('credit_ledger').insert({ account_id: accountId, kind: step, reference, amount: reserved });
        await trx('accounts')
          .where({ id: accountId })
          .update({
            credits_reserved: trx.raw('credits_reserved - ?', [reserved]),
            ...(step === 'release' && { credit_balance: trx.raw('credit_balance + ?', [reserved]) }),
            updated_at: trx.fn.now(),
          });
        return { applied: true, outcome: step === 'capture' ? 'captured' : 'released' };
      });
    },
  };
}
