import type { QueryBuilder } from 'objection';
import { TableModel } from './TableModel';

/** The consent behind an uploaded sample; it outlives the voice, its audio and the account. */
export class ConsentRecord extends TableModel {
  static override tableName = 'consent_records';

  static override modifiers = {
    /** Not withdrawn by the owner. */
    standing(query: QueryBuilder<ConsentRecord>) {
      query.whereNull('consent_records.revoked_at');
    },
  };

  id!: string;
  /** Null once the account is erased (the record stays as proof). */
  account_id!: string | null;
  voice_id!: string;
  client_ip!: string;
  user_agent!: string;
  file_sha256!: Buffer;
  /** bigint: a string from pg. */
  file_bytes!: string | number;
  consented_at!: Date;
  revoked_at!: Date | null;
}
