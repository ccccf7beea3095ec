import type { SynthesisRow } from '../../../db/models/Synthesis';
import { familyPaths } from '../../../synthesis/resources';
import type { Family } from '../../route';

// A synthesis's status and history entry are presented by synthesis/resources.ts, which the webhook events share.
export { familyPaths, presentHistoryEntry, presentStatus } from '../../../synthesis/resources';

export function presentAccepted(row: SynthesisRow, family: Family, warnings: readonly string[] = []) {
  const paths = familyPaths[family];
  return {
    [paths.idKey]: row.id,
    status: 'queued' as const,
    created_at: row.created_at.toISOString(),
    characters: row.characters,
    status_url: paths.status(row.id),
    warnings: [...warnings],
  };
}
