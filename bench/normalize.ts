/**
 * How long the text normalizer and the SSML parser take on hostile input
 * (issue 41, items 3 and 4): each shape at 5 k, 10 k and 20 k characters (and
 * 200 k for the normalizer) in every language, with the ratio of each size's
 * time to the previous size's. Linear code doubles (×2, or ×10 from 20 k to
 * 200 k); a quadratic rule shows ×4 and ×100. Prints figures only.
 *
 *   npx tsx bench/normalize.ts [--quick] [--ssml]
 */
import { normalizeText } from '../text/normalize';
import { parseSsml } from '../text/ssml';

const quick = process.argv.includes('--quick');
const ssmlOnly = process.argv.includes('--ssml');

/** `unit` repeated to about `size` characters, then `tail`. */
const repeat = (unit: string, size: number, tail = '', head = ''): string =>
  head + unit.repeat(Math.max(1, Math.round((size - head.length - tail.length) / unit.length))) + tail;

const SHAPES: Record<string, (size: number) => string> = {
  'a. … @': (n) => repeat('a.', n, '@'),
  'a- …': (n) => repeat('a-', n),
  '- …': (n) => repeat('-', n),
  '1 123 … x': (n) => repeat(' 123', n, 'x', '1'),
  '1.123 … x': (n) => repeat('.123', n, 'x', '1'),
  '1,123 … x': (n) => repeat(',123', n, 'x', '1'),
  'a.b … (domain)': (n) => repeat('a.', n, 'x'),
  'a_ … @': (n) => repeat('a_', n, '@'),
  '+1 … (phone)': (n) => repeat(' 1', n, '', '+1'),
  digits: (n) => repeat('1', n),
  '1.1 …': (n) => repeat('1.', n, '1'),
  'www. …': (n) => repeat('www.', n),
  'http://… (no space)': (n) => repeat('a', n, '', 'http://'),
  prose: (n) => repeat('Dr. Smith paid $1,250.50 on 3/4/2026 at 10:30am for 5 kg. ', n),
};

const LANGUAGES = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'es-419'];

function time(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const format = (ms: number): string => (ms < 10 ? ms.toFixed(2) : ms.toFixed(0)).padStart(7) + ' ms';

function row(label: string, sizes: number[], run: (size: number) => void): void {
  const times: number[] = [];
  for (const size of sizes) {
    times.push(time(() => run(size)));
    // Stop a shape that is already slow: the next size would only be slower.
    if (times[times.length - 1] > 20_000) break;
  }
  const cells = times.map((ms, i) => format(ms) + (i ? ` (×${(ms / times[i - 1]).toFixed(1)})` : '').padEnd(9));
  console.log(`${label.padEnd(34)} ${cells.join('  ')}`);
}

if (!ssmlOnly) {
  const sizes = quick ? [5_000, 10_000, 20_000] : [5_000, 10_000, 20_000, 200_000];
  console.log(`normalizeText, ${sizes.map((s) => s / 1000 + ' k').join(' / ')} characters`);
  for (const language of LANGUAGES)
    for (const [shape, make] of Object.entries(SHAPES)) {
      normalizeText(make(1000), { language }); // warm up
      row(`${language} ${shape}`, sizes, (size) => normalizeText(make(size), { language }));
    }
}

const SSML: Record<string, (size: number) => string> = {
  '<speak>a<x/>…': (n) => repeat('<x/>', n, '</speak>', '<speak>a'),
  '<speak><x/>a…': (n) => repeat('<x/>a', n, '</speak>', '<speak>'),
  'a<break strength=none/>…': (n) => repeat('a<break strength="none"/>', n, '</speak>', '<speak>'),
  'a<!---->…': (n) => repeat('a<!---->', n, '</speak>', '<speak>'),
  '<say-as>a<!---->…': (n) => repeat('a<!---->', n, '</say-as></speak>', '<speak><say-as interpret-as="x">'),
  prose: (n) => repeat('<s>Dr. Smith paid <prosody rate="slow">$1,250.50</prosody> on 3/4/2026.</s> ', n),
};
const ssmlSizes = quick ? [5_000, 10_000, 20_000] : [5_000, 10_000, 20_000, 100_000];
console.log(`parseSsml (en-US), ${ssmlSizes.map((s) => s / 1000 + ' KB').join(' / ')}`);
for (const [shape, make] of Object.entries(SSML)) {
  parseSsml(make(1000), { language: 'en-US' });
  row(shape, ssmlSizes, (size) => parseSsml(make(size), { language: 'en-US' }));
}
