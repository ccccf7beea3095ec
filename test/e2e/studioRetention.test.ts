import { randomUUID } from 'node:crypto';
import { requestsBelow } from '../helpers/http';
import { eventually } from '../helpers/eventually';
import { useStack, useAccount } from '../helpers/stack';
import { accountBlocksPrefix, accountSnapshotsPrefix } from '../../studio/conversion';

/**
 * What a completed conversion removes (with the whole stack, keeping one
 * snapshot and no grace for block audio): the older snapshot with its
 * files, and the audio of a block's old text; never the audio of a block as
 * it is now, even in a chapter the newest snapshot did not convert.
 */

const ENV = { STUDIO_SNAPSHOTS_KEPT: '1', STUDIO_BLOCK_AUDIO_GRACE_DAYS: '0' };

describe('Studio retention', () => {
  const { deps, api } = useStack({ worker: true, env: ENV });
  const owner = useAccount(deps, { credits: 10_000 });
  const req = requestsBelow(api, '/api/v1/projects/', owner);

  const converted = async (projectId: string, chapterIds?: string[]) => {
    const started = await req('POST', `${projectId}/convert/`, chapterIds ? { chapter_ids: chapterIds } : {});
    expect(started.status).toBe(202);
    await eventually(
      'the conversion to complete',
      async () => (await req('GET', `${projectId}/snapshots/${started.body.id}/`)).body.status === 'completed',
      240_000,
    );
    return started.body.id as string;
  };
  const hashes = async () =>
    (
      (await deps.db('block_audio').where({ account_id: owner.id }).select('content_hash')) as {
        content_hash: string;
      }[]
    )
      .map((row) => row.content_hash)
      .sort();

  it('removes the older snapshot and the audio of replaced text, and keeps every current block’s audio', async () => {
    const words = randomUUID().slice(0, 8);
    const id = (await req('POST', '', { name: `Book ${words}` })).body.id as string;
    await req('PATCH', `${id}/`, { default_voice_id: 'en-us-espeak-m' });
    const text = `# One\n\nIt was night in ${words}.\n\n# Two\n\nMorning came to ${words}.\n`;
    expect((await req('POST', `${id}/content/`, { format: 'markdown', text })).status).toBe(200);
    const first = await converted(id);
    const before = await hashes();
    expect(before).toHaveLength(4);

    // Chapter one's paragraph changes; only chapter one is converted again.
    const chapters = (await req('GET', `${id}/chapters/`)).body.results as { id: string }[];
    const blocks = (await req('GET', `${id}/chapters/${chapters[0].id}/blocks/`)).body.results as { id: string }[];
    const paragraph = blocks[blocks.length - 1].id;
    await req('PATCH', `${id}/chapters/${chapters[0].id}/blocks/${paragraph}/`, { text: `It was day in ${words}.` });
    const second = await converted(id, [chapters[0].id]);

    // The first snapshot goes, with its files, just after the second completes; the second stays.
    await eventually(
      'the older snapshot to be removed',
      async () => (await req('GET', `${id}/snapshots/${first}/`)).status === 404,
    );
    const snapshotFiles = await deps.storage.list(accountSnapshotsPrefix(owner.id));
    expect(snapshotFiles.length).toBeGreaterThan(0);
    expect(snapshotFiles.every((key) => key.startsWith(`${accountSnapshotsPrefix(owner.id)}${second}/`))).toBe(true);

    // The old paragraph's audio is gone (row and files); chapter two's, which no kept snapshot holds, stays: it is current.
    await eventually('the old paragraph’s audio to be removed', async () => (await hashes()).length === 4);
    const after = await hashes();
    const removed = before.filter((hash) => !after.includes(hash));
    expect(removed).toHaveLength(1);
    // Rows go first, then their files (BlockAudio.removeUnheld): the files a moment after the rows.
    let blockFiles: string[] = [];
    await eventually('the old paragraph’s files to be removed', async () => {
      blockFiles = await deps.storage.list(accountBlocksPrefix(owner.id));
      return !blockFiles.some((key) => key.includes(removed[0]));
    });
    expect(blockFiles.some((key) => key.includes(removed[0]))).toBe(false);
    expect(blockFiles).toHaveLength(after.length * 2);
    expect((await req('GET', `${id}/`)).body.credits_needed).toBe(0);
  }, 400_000);
});
