import { chapterConversions } from '../../../api/routes/projects/commands';
import { presentChapter } from '../../../api/routes/projects/presenter';
import type { ProjectChapter } from '../../../db/models/ProjectChapter';
import type { ProjectSnapshot } from '../../../db/models/ProjectSnapshot';

/** A chapter's status from its blocks' audio and the project's snapshots (newest first). */
const chapter = (id: string) => ({ id, index: 0, title: id, level: 0, parent_id: null }) as unknown as ProjectChapter;
const snapshot = (status: ProjectSnapshot['status'], chapterIds: string[], assembled: string[], at?: string) =>
  ({
    status,
    chapter_ids: chapterIds,
    chapters: assembled.map((id) => ({ chapter_id: id })),
    completed_at: at ? new Date(at) : null,
  }) as unknown as ProjectSnapshot;

const statusOf = (snapshots: ProjectSnapshot[], current: number, blocks = 2) => {
  const one = chapter('c1');
  const conversion = chapterConversions(snapshots, [one]).get('c1')!;
  return presentChapter(one, {
    characters: 10,
    block_count: blocks,
    credits_needed: 0,
    current_blocks: current,
    conversion,
  });
};

describe('a chapter’s status', () => {
  it('is converting while a running conversion includes it and has not assembled it', () => {
    expect(statusOf([snapshot('converting', ['c1'], [])], 2).status).toBe('converting');
    expect(statusOf([snapshot('queued', ['c1', 'c2'], [])], 0).status).toBe('converting');
    // Assembled already, or not included: its blocks say.
    expect(statusOf([snapshot('converting', ['c1'], ['c1'])], 2).status).toBe('converted');
    expect(statusOf([snapshot('converting', ['c2'], [])], 0).status).toBe('not_converted');
  });

  it('is failed when the newest ended conversion that included it failed and its audio is not all current', () => {
    const failed = [snapshot('failed', ['c1'], []), snapshot('completed', ['c1'], ['c1'], '2026-11-01T00:00:00Z')];
    expect(statusOf(failed, 1).status).toBe('failed');
    expect(statusOf(failed, 2).status).toBe('converted');
    // A failure older than a completion no longer counts.
    expect(statusOf([...failed].reverse(), 1).status).toBe('stale');
  });

  it('carries when a completed conversion last assembled it', () => {
    const chapterOut = statusOf(
      [
        snapshot('completed', ['c2'], ['c2'], '2026-11-03T00:00:00Z'),
        snapshot('completed', ['c1'], ['c1'], '2026-11-02T00:00:00Z'),
        snapshot('completed', ['c1'], ['c1'], '2026-11-01T00:00:00Z'),
      ],
      2,
    );
    expect(chapterOut).toMatchObject({ status: 'converted', converted_at: '2026-11-02T00:00:00.000Z', progress: 1 });
    expect(statusOf([], 0)).toMatchObject({ status: 'not_converted', converted_at: null, progress: 0 });
  });
});
