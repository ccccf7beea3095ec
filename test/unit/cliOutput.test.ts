import { createProgress, formatDuration, LOG_INTERVAL_MS, printable, progressLine } from '../../cli/output';

describe('formatDuration', () => {
  it.each([
    [0, '0.0 s'],
    [2.04, '2.0 s'],
    [13.66558333333333, '13.7 s'],
    [59.96, '1 min 0.0 s'],
    [133.66558333333333, '2 min 13.7 s'],
    [3600, '1 h 0 min 0.0 s'],
    [3725.25, '1 h 2 min 5.3 s'],
    [Number.NaN, '?'],
  ])('%p seconds reads %p', (seconds, expected) => {
    expect(formatDuration(seconds)).toBe(expected);
  });

  it('never prints more than one decimal', () => {
    for (let seconds = 0; seconds < 7300; seconds += 1.2345)
      expect(formatDuration(seconds)).toMatch(/^(\d+ h )?(\d+ min )?\d{1,2}\.\d s$/);
  });
});

it('progressLine shows the ETA formatted', () => {
  expect(progressLine('processing', 0.25, 44.5)).toBe('processing [######..................]  25% ETA 2 min 13.5 s');
  expect(progressLine('completed', 1, 10)).toBe('completed [########################] 100%');
});

describe('createProgress', () => {
  function recorder(tty: boolean) {
    let clock = 0;
    const lines: string[] = [];
    const progress = createProgress({ err: (text) => lines.push(text), tty }, { now: () => clock });
    return { progress, lines, advance: (ms: number) => (clock += ms) };
  }

  it('off a terminal prints the first state, then one line per LOG_INTERVAL_MS at most, then the final one', () => {
    const { progress, lines, advance } = recorder(false);
    // A 90-second job polled every second: 90 updates.
    for (let second = 0; second < 90; second++) {
      progress.update(() => `processing ${second} s`);
      advance(1000);
    }
    progress.end('completed');
    expect(lines).toHaveLength(Math.ceil((90 * 1000) / LOG_INTERVAL_MS) + 1);
    expect(lines.slice(0, 3)).toEqual(['processing 0 s\n', 'processing 5 s\n', 'processing 10 s\n']);
    expect(lines.at(-1)).toBe('completed\n');
    expect(lines.every((line) => line.endsWith('\n') && !line.includes('\r'))).toBe(true);
  });

  it('off a terminal does not repeat a final line it just printed', () => {
    const { progress, lines } = recorder(false);
    progress.update(() => 'completed');
    progress.end('completed');
    expect(lines).toEqual(['completed\n']);
  });

  it('on a terminal redraws every update in place and ends the line', () => {
    const { progress, lines } = recorder(true);
    for (let step = 0; step < 10; step++) progress.update(() => `step ${step}`);
    progress.end('done');
    expect(lines).toHaveLength(12);
    expect(lines[0]).toBe('\rstep 0\x1b[K');
    expect(lines.slice(-2)).toEqual(['\rdone\x1b[K', '\n']);
  });

  it('quiet (--json) prints nothing', () => {
    const lines: string[] = [];
    const progress = createProgress({ err: (text) => lines.push(text), tty: false }, { quiet: true });
    progress.update(() => 'x');
    progress.end('y');
    expect(lines).toEqual([]);
  });
});

describe('printable', () => {
  it('escapes control characters and the Unicode ones that reorder or break lines, and keeps the rest', () => {
    expect(printable('en_US-joe-medium Grüße 日本')).toBe('en_US-joe-medium Grüße 日本');
    expect(printable('a\x1b[2Jb\r\n\tc\x07\x00\x7f\x9b')).toBe('a\\x1b[2Jb\\r\\n\\tc\\x07\\x00\\x7f\\x9b');
    expect(printable('evil\u202egnp.exe\u2028x\u2066')).toBe('evil\\u202egnp.exe\\u2028x\\u2066');
  });
});
