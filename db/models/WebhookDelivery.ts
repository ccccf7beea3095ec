import type { Knex } from 'knex';
import { TableModel } from './TableModel';
import type { WebhookEndpoint } from './WebhookEndpoint';

/** What one delivery attempt reads: the delivery and its endpoint's address and secrets. */
export type DeliveryAttempt = Pick<WebhookDelivery, 'id' | 'event_id' | 'body' | 'status' | 'endpoint_id'> &
  Pick<WebhookEndpoint, 'url' | 'enabled' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'>;

/** One event sent to one endpoint, with its retries. */
export class WebhookDelivery extends TableModel {
  static override tableName = 'webhook_deliveries';

  /** The delivery of one event to one endpoint, recorded once (a repeat finds the first row): its id. */
  static async record(
    db: Knex,
    delivery: Pick<WebhookDelivery, 'id' | 'endpoint_id' | 'event_id' | 'event_type' | 'body'>,
  ): Promise<string> {
    await this.query(db).insert(delivery).onConflict(['endpoint_id', 'event_id']).ignore();
    const row = await this.query(db)
      .findOne({ endpoint_id: delivery.endpoint_id, event_id: delivery.event_id })
      .select('id')
      .throwIfNotFound();
    return row.id;
  }

  /** A delivery with its endpoint; undefined once the endpoint (and the delivery with it) was deleted. */
  static forAttempt(db: Knex, id: string): PromiseLike<DeliveryAttempt | undefined> {
    return this.query(db)
      .alias('d')
      .join('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .findOne('d.id', id)
      .select(
        'd.id',
        'd.event_id',
        'd.body',
        'd.status',
        'd.endpoint_id',
        'e.url',
        'e.enabled',
        'e.secret',
        'e.previous_secret',
        'e.previous_secret_expires_at',
      )
      .castTo<DeliveryAttempt | undefined>();
  }

  /** Records an attempt's outcome (and when it happened). */
  static note(
    db: Knex,
    id: string,
    changes: Partial<Pick<WebhookDelivery, 'status' | 'last_response_code' | 'last_error'>> & {
      delivered_at?: Knex.Raw;
    },
  ) {
    return this.query(db)
      .patch({ ...changes, updated_at: db.fn.now() })
      .where({ id });
  }

  id!: string;
  endpoint_id!: string;
  /** Stable per event: the same event id reaches every endpoint, and every retry carries it. */
  event_id!: string;
  event_type!: string;
  /** The body sent, `{id, type, created, data}`, exactly as signed. */
  body!: string;
  status!: 'pending' | 'delivered' | 'failed';
  attempts!: number;
  last_response_code!: number | null;
  last_error!: string | null;
  delivered_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
}
