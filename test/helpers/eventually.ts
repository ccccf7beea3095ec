/**
 * Polls `probe` every `everyMs` until it returns something other than null, undefined or false, and resolves
 * with that; fails naming `what` after `timeoutMs`.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 60_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Resolves once `probe` is true, polling every 20 ms; fails with `what` after `timeoutMs`. */
export async function eventually(
  what: string,
  probe: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  await until(what, async () => (await probe()) || null, timeoutMs, 20);
}
