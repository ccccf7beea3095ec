import { createBackgroundTasks } from '../../lib/background';

/** Work started after an answer must not be lost when the process shuts down. */
describe('background tasks', () => {
  it('settled() waits for a running task and for one it starts meanwhile', async () => {
    const background = createBackgroundTasks();
    const done: string[] = [];
    background.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      done.push('mail');
      background.run(async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        done.push('follow-up');
      }, fail);
    }, fail);
    expect(background.size).toBe(1);
    await background.settled();
    expect(done).toEqual(['mail', 'follow-up']);
    expect(background.size).toBe(0);
  });

  it('a failing task goes to its own error handler and does not stop settled()', async () => {
    const background = createBackgroundTasks();
    const errors: unknown[] = [];
    background.run(
      () => Promise.reject(new Error('smtp down')),
      (error) => errors.push(error),
    );
    background.run(
      () => {
        throw new Error('thrown synchronously');
      },
      (error) => errors.push(error),
    );
    await background.settled();
    expect(errors.map((error) => (error as Error).message).sort()).toEqual(['smtp down', 'thrown synchronously']);
  });

  it('settled() gives up after its timeout on a task that never ends', async () => {
    const background = createBackgroundTasks();
    background.run(() => new Promise(() => {}), fail);
    await background.settled(100);
    // It returned while the task still runs: a hung dependency cannot hold shutdown for ever.
    expect(background.size).toBe(1);
  });
});

function fail(error: unknown): never {
  throw error;
}
