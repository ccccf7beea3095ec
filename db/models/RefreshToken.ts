import { TableModel } from './TableModel';

/** A refresh token, known by the SHA-256 of its jti. */
export class RefreshToken extends TableModel {
  static override tableName = 'refresh_tokens';
  static override idColumn = 'jti_hash';

  jti_hash!: Buffer;
  family_id!: string;
  expires_at!: Date;
  /** Set when this token was exchanged for the next one; presenting it again is reuse. */
  rotated_at!: Date | null;
  created_at!: Date;
}
