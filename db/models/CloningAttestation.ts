import type { QueryBuilder } from 'objection';
import { ownedBy, TableModel } from './TableModel';

/**
 * An account's standing cloning attestation (migration 023): recorded through
 * POST /api/v1/voices/attestation/, required by clients whose cloning call
 * carries no consent field (the ElevenLabs-compatible POST /v1/voices/add).
 */
export class CloningAttestation extends TableModel {
  static override tableName = 'cloning_attestations';

  static override modifiers = {
    ownedBy,
    /** Not withdrawn by the owner. */
    standing(query: QueryBuilder<CloningAttestation>) {
      query.whereNull('cloning_attestations.withdrawn_at');
    },
  };

  id!: string;
  /** Null once the account is erased (the record stays as proof). */
  account_id!: string | null;
  statement!: string;
  client_ip!: string;
  user_agent!: string;
  attested_at!: Date;
  withdrawn_at!: Date | null;
}
