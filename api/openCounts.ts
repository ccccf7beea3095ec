/**
 * What one API process holds open right now (streams, encoders), counted per
 * key, for the caps that keep one account or address from holding it all.
 * Per process: with N API processes a key may hold N times a cap.
 */
export function createOpenCounts() {
  const counts = new Map<string, number>();
  return {
    /** Whether `key` already holds `limit`. */
    atLimit: (key: string, limit: number) => (counts.get(key) ?? 0) >= limit,
    /** Counts one more under each key; the returned release (safe to call twice) counts it off again. */
    hold(keys: readonly string[]): () => void {
      for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        for (const key of keys) {
          const left = (counts.get(key) ?? 1) - 1;
          if (left > 0) counts.set(key, left);
          else counts.delete(key);
        }
      };
    },
  };
}
