import type { Account } from '../../db/models/Account';
import type { SynthesisStatusRow } from '../../db/models/Synthesis';
import { PROGRESS_CHANNEL, type ProgressListener } from '../../lib/progress';

type NotificationSubscriber = Parameters<ProgressListener['subscribe']>[0];
import type { ApiDeps } from '../../api/deps';
import { statusCacheOf } from '../../api/routes/tts/statusCache';

/** A progress listener whose notifications the test sends. */
function fakeProgress() {
  const subscribers = new Set<NotificationSubscriber>();
  const listener = {
    listening: async () => true,
    subscribe(subscriber: NotificationSubscriber) {
      subscribers.add(subscriber);
      return () => subscribers.delete(subscriber);
    },
  } as unknown as ProgressListener;
  return {
    listener,
    notify: (id: string) => subscribers.forEach((subscriber) => subscriber.notified(PROGRESS_CHANNEL, id)),
  };
}

describe('status streams share their reads', () => {
  const progress = fakeProgress();
  const cache = statusCacheOf({ progress: progress.listener } as ApiDeps);
  const account = { id: 'account-a' } as Account;
  let reads = 0;
  let progressNow = 0.1;
  const read = async () => {
    reads += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { status: 'processing', progress: progressNow } as unknown as SynthesisStatusRow;
  };

  it('300 followers of one synthesis cost one read, and one more per notification', async () => {
    const first = await Promise.all(Array.from({ length: 300 }, () => cache.findShared(account, 'synthesis-1', read)));
    expect(reads).toBe(1);
    expect(first.every((row) => row.progress === 0.1)).toBe(true);

    progressNow = 0.5;
    progress.notify('synthesis-1');
    const second = await Promise.all(Array.from({ length: 300 }, () => cache.findShared(account, 'synthesis-1', read)));
    expect(reads).toBe(2);
    // Read after the notification: every follower sees the change.
    expect(second.every((row) => row.progress === 0.5)).toBe(true);
  });

  it('never shares a read between accounts', async () => {
    reads = 0;
    await Promise.all([
      cache.findShared({ id: 'account-b' } as Account, 'synthesis-2', read),
      cache.findShared({ id: 'account-c' } as Account, 'synthesis-2', read),
    ]);
    expect(reads).toBe(2);
  });
});
