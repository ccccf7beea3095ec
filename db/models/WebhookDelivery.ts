import { TableModel } from './TableModel';

/** One event sent to one endpoint, with its retries. */
export class WebhookDelivery extends TableModel {
  static override tableName = 'webhook_deliveries';

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
