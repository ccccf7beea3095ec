import type { Knex } from 'knex';
import type { QueryBuilder } from 'objection';
import { TableModel, ownedBy } from './TableModel';

/** A login session: every refresh token rotated from one login belongs to one family. */
export class RefreshTokenFamily extends TableModel {
  static override tableName = 'refresh_token_families';

  static override modifiers = {
    ownedBy,
    /** Not revoked (by a logout, a detected reuse or the account's deletion). */
    active(query: QueryBuilder<RefreshTokenFamily>) {
      query.whereNull('refresh_token_families.revoked_at');
    },
  };

  /** A logout: the family's refresh tokens stop working (a family already revoked stays as it was). */
  static revoke(db: Knex, accountId: string, familyId: string) {
    return this.query(db)
      .modify('ownedBy', { id: accountId })
      .modify('active')
      .patch({ revoked_at: db.fn.now() })
      .where({ 'refresh_token_families.id': familyId });
  }

  id!: string;
  account_id!: string;
  revoked_at!: Date | null;
  created_at!: Date;
}
