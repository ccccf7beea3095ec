import { TableModel } from './TableModel';

export class SubscriptionPlan extends TableModel {
  static override tableName = 'subscription_plans';

  id!: string;
  name!: string;
  price_cents!: number;
  currency!: string;
  monthly_credits!: number;
  max_text_length!: number;
  max_cloned_voices!: number;
  max_concurrent_syntheses!: number;
  output_formats!: string[];
  requires_card!: boolean;
  sort_order!: number;
  created_at!: Date;
  updated_at!: Date;
}
