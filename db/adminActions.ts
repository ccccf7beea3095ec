import type { Knex } from 'knex';

/** One admin CLI command's record (db/migrations/016_admin_actions.ts), written in the transaction of the change it made. */
export interface AdminAction {
  operator: string;
  command: 'user create' | 'user verify' | 'credits grant' | 'plan set';
  accountId: string;
  details: Record<string, unknown>;
}

export async function recordAdminAction(trx: Knex, action: AdminAction): Promise<void> {
  await trx('admin_actions').insert({
    operator: action.operator,
    command: action.command,
    account_id: action.accountId,
    details: JSON.stringify(action.details),
  });
}

export interface AdminActionRow {
  id: string;
  at: Date;
  operator: string;
  command: string;
  account_id: string | null;
  details: Record<string, unknown>;
}

/** The newest first. */
export async function recentAdminActions(db: Knex, limit: number): Promise<AdminActionRow[]> {
  return db('admin_actions')
    .orderBy('id', 'desc')
    .limit(limit)
    .select('id', 'at', 'operator', 'command', 'account_id', 'details');
}
