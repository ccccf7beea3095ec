/** How the CLI shows durations and progress, the same for every command. */

/** `13.7 s`, `2 min 13.7 s`, `1 h 2 min 5.0 s`: tenths of a second, never a raw float; `?` for an unknown length. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '?';
  const tenths = Math.round(Math.max(0, seconds) * 10);
  const hours = Math.floor(tenths / 36000);
  const minutes = Math.floor((tenths % 36000) / 600);
  const rest = `${((tenths % 600) / 10).toFixed(1)} s`;
  return [...(hours ? [`${hours} h`] : []), ...(hours || minutes ? [`${minutes} min`] : []), rest].join(' ');
}

/** `[######..........]  40%`: a bar of `width` cells and the percentage. */
export function progressBar(progress: number, width = 24): string {
  const done = Math.max(0, Math.min(1, progress));
  const filled = Math.round(done * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(done * 100)).padStart(3)}%`;
}

/** A progress line with an estimate of the time left from the rate so far. */
export function progressLine(label: string, progress: number, elapsedSeconds: number, width = 24): string {
  const done = Math.max(0, Math.min(1, progress));
  const eta = done > 0 && done < 1 ? ` ETA ${formatDuration((elapsedSeconds / done) * (1 - done))}` : '';
  return `${label} ${progressBar(done, width)}${eta}`;
}

/** Off a terminal (logs, CI, `docker build`), a progress line at most this often. */
export const LOG_INTERVAL_MS = 5000;

export interface Progress {
  /** The state now: redrawn in place on a terminal; elsewhere printed if it is the first or LOG_INTERVAL_MS have passed since the last printed. */
  update(line: () => string): void;
  /** The end: on a terminal closes the redrawn line; elsewhere prints the final state unless it was the last line printed. */
  end(finalLine?: string): void;
}

/** Progress on stderr; `now` is the clock (a test's, to check the interval without waiting). */
export function createProgress(
  io: { err(text: string): void; tty: boolean },
  { quiet = false, now = Date.now }: { quiet?: boolean; now?: () => number } = {},
): Progress {
  let lastAt: number | null = null;
  let lastPrinted: string | null = null;
  let drawn = false;
  return {
    update(line) {
      if (quiet) return;
      if (io.tty) {
        io.err(`\r${line()}\x1b[K`);
        drawn = true;
        return;
      }
      const at = now();
      if (lastAt !== null && at - lastAt < LOG_INTERVAL_MS) return;
      lastPrinted = line();
      io.err(`${lastPrinted}\n`);
      lastAt = at;
    },
    end(finalLine) {
      if (quiet) return;
      if (io.tty) {
        if (finalLine !== undefined) io.err(`\r${finalLine}\x1b[K`);
        if (drawn || finalLine !== undefined) io.err('\n');
      } else if (finalLine !== undefined && finalLine !== lastPrinted) {
        io.err(`${finalLine}\n`);
      }
      drawn = false;
    },
  };
}

/**
 * Control characters, and the Unicode ones that reorder or break lines, that
 * text from outside (a voice index, a model card, an environment variable)
 * could use to move the cursor, recolour or rewrite the terminal, or forge a
 * line of the listing it is printed in.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** Outside text for one field of a line: each control character as an escape (`\x1b`, `\n`, `\u202e`), the rest as it is. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
    const code = char.charCodeAt(0);
    return named[char] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`);
  });
}
