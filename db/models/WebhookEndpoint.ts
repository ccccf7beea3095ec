import type { Knex } from 'knex';
import { TableModel, ownedBy } from './TableModel';

/** A receiver of an account's events. The secret is kept as issued: HMAC signing needs it in clear. */
export class WebhookEndpoint extends TableModel {
  static override tableName = 'webhook_endpoints';

  static override modifiers = {
    ownedBy,
  };

  /** The account's enabled endpoints that take events of `type` (or just `endpointId`, enabled: the test ping). */
  static receiving(db: Knex, accountId: string, type: string, endpointId?: string) {
    return this.query(db)
      .where({ account_id: accountId, enabled: true })
      .modify((query) => (endpointId ? query.where({ id: endpointId }) : query.whereRaw('? = any(events)', [type])))
      .select('id');
  }

  /**
   * Takes the endpoint's attempt lease for `seconds` when no other attempt
   * holds it (or the holder's lease ran out); false when one does.
   */
  static async takeAttemptLease(db: Knex, id: string, seconds: number): Promise<boolean> {
    const taken = await this.query(db)
      .patch({ attempt_lease_until: db.raw(`now() + make_interval(secs => ?)`, [seconds]) as unknown as Date })
      .where({ id })
      .andWhere((query) => query.whereNull('attempt_lease_until').orWhere('attempt_lease_until', '<', db.fn.now()));
    return taken === 1;
  }

  static async releaseAttemptLease(db: Knex, id: string): Promise<void> {
    await this.query(db).patch({ attempt_lease_until: null }).where({ id });
  }

  id!: string;
  account_id!: string;
  url!: string;
  description!: string;
  /** A text[] column: pg sends and returns a JavaScript array (not JSON). */
  events!: string[];
  enabled!: boolean;
  /** Why the service disabled it (`gone`: the receiver answered 410); null when enabled or disabled by the owner. */
  disabled_reason!: string | null;
  secret!: string;
  previous_secret!: string | null;
  previous_secret_expires_at!: Date | null;
  attempt_lease_until!: Date | null;
  created_at!: Date;
  updated_at!: Date;
}
