/**
 * Work a process starts after it has answered (a verification mail after a
 * resend, the cancel of a stream its client abandoned). Nothing awaits it in
 * the request, so shutdown must: `settled()` resolves once every task started
 * so far (and any started meanwhile) has ended, or after `timeoutMs`.
 */
export interface BackgroundTasks {
  /** Starts `task` now; a failure goes to `onError` and nowhere else. */
  run(task: () => Promise<unknown>, onError: (error: unknown) => void): void;
  /** How many tasks are still running. */
  readonly size: number;
  settled(timeoutMs?: number): Promise<void>;
}

export function createBackgroundTasks(): BackgroundTasks {
  const running = new Set<Promise<void>>();
  return {
    run(task, onError) {
      const promise: Promise<void> = Promise.resolve()
        .then(task)
        .then(() => undefined, onError)
        .finally(() => running.delete(promise));
      running.add(promise);
    },
    get size() {
      return running.size;
    },
    async settled(timeoutMs = 10_000) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      const drained = (async () => {
        while (running.size > 0) await Promise.allSettled([...running]);
      })();
      await Promise.race([drained, timedOut]);
      clearTimeout(timer);
    },
  };
}
