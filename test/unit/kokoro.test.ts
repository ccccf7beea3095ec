import { KOKORO_HOP_SAMPLES, KOKORO_SAMPLE_RATE, kokoroWords } from '../../engines/kokoro';
import { kokoroSymbols } from '../../engines/kokoro/phonemes';
import { readNpyStyle, readNpz, styleRow } from '../../engines/kokoro/styles';
import { zip } from '../helpers/kokoroMirror';

const VOCAB: Record<string, number> = Object.fromEntries(
  [...' .,!?ðəkwˈɪbɹWnfɑsʤʌmpˌOvlAziɡhɜdTtᵊIYʧkʃjuːɛæɔiA'].map((symbol, index) => [symbol, index + 1]),
);

/** An `.npy` of float32 `values` with the given shape. */
function npy(values: number[], shape: number[]): Buffer {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((header.length + 10) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), Buffer.from(Float32Array.from(values).buffer)]);
}

describe('kokoro phonemes', () => {
  it('maps espeak-ng IPA to the symbols Kokoro was trained on, keeping where each came from', () => {
    const { symbols, source } = kokoroSymbols([...'bɹˈaʊn fˈɑːks dʒˈʌmps ˌoʊvɚ lˈeɪzi'], VOCAB);
    expect(symbols.join('')).toBe('bɹˈWn fˈɑks ʤˈʌmps ˌOvəɹ lˈAzi');
    // `W` (aʊ) came from the phoneme at index 3 (`a`); `ʤ` from `d` at 14.
    expect(source[symbols.indexOf('W')]).toBe(3);
    expect(source[symbols.indexOf('ʤ')]).toBe(14);
  });

  it('moves a syllabic mark before its consonant, reads a glottal stop before n as t, drops what the vocabulary lacks', () => {
    expect(kokoroSymbols([...'bˈʌʔn̩'.normalize('NFD')], VOCAB).symbols.join('')).toBe('bˈʌtᵊn');
    expect(kokoroSymbols([...'bˈɑːɾəl.'], VOCAB).symbols.join('')).toBe('bˈɑTᵊl.');
    expect(kokoroSymbols([...'əlˈaʊ'], VOCAB).symbols.join('')).toBe('əlˈW');
    expect(kokoroSymbols([...'θɹˈiːʲ ˈæpəlz'], VOCAB).symbols.join('')).toBe('ɹˈi ˈæpəlz');
  });

  it('does not double the linking r espeak-ng writes after an r-coloured schwa', () => {
    // "the water is", "never again": one ɹ, as before a consonant.
    expect(kokoroSymbols([...'ðə wˈɔːɾɚɹ ɪz'], VOCAB).symbols.join('')).toBe('ðə wˈɔTəɹ ɪz');
    expect(kokoroSymbols([...'nˈɛvɚɹ ɐɡˈɛn'], VOCAB).symbols.join('')).toBe('nˈɛvəɹ əɡˈɛn');
    expect(kokoroSymbols([...'nˈɛvɚr'], VOCAB).symbols.join('')).toBe('nˈɛvəɹ');
    expect(kokoroSymbols([...'ˈæftɚ'], VOCAB).symbols.join('')).toBe('ˈæftəɹ');
  });
});

describe('kokoro styles', () => {
  const rows = (count: number) =>
    Array.from({ length: count * 256 }, (_, index) => Math.floor(index / 256) + (index % 256) / 1000);

  it('reads a stored and a deflated .npz of styles, and picks the row by token count (clamped)', () => {
    for (const deflate of [false, true]) {
      const files = readNpz(
        zip({ 'af_one.npy': npy(rows(3), [3, 1, 256]), 'bm_two.npy': npy(rows(2), [2, 256]) }, deflate),
      );
      expect([...files.keys()]).toEqual(['af_one', 'bm_two']);
      const style = readNpyStyle(files.get('af_one')!);
      expect(style.length).toBe(3 * 256);
      expect(styleRow(style, 1)[0]).toBe(0);
      expect(styleRow(style, 2)[0]).toBe(1);
      expect(styleRow(style, 2)[5]).toBeCloseTo(1.005, 5);
      expect(styleRow(style, 99)[0]).toBe(2);
      expect(styleRow(style, 0)).toHaveLength(256);
    }
  });

  it('refuses what is not a float32 style array', () => {
    expect(() => readNpyStyle(Buffer.from('not numpy'))).toThrow(/not an .npy/);
    expect(() => readNpyStyle(npy([1, 2, 3], [3]))).toThrow(/not a style array/);
    expect(() => readNpz(Buffer.from('PK nothing'))).toThrow(/not a zip/);
  });
});

describe('kokoro word timestamps', () => {
  it('times each phonetic word by its tokens’ predicted frames, the pads and sentence pauses included', () => {
    const symbols = [...'hˈI ðˈɛɹ.'];
    const clause = { start: 0, end: 11 };
    // Start pad 4 frames; each symbol 2 frames; end pad 3.
    const frames = [4, ...symbols.map(() => 2), 3];
    const second = [...'jˈɛs'];
    const words = kokoroWords(
      [
        { symbols, clauses: symbols.map(() => clause) },
        { symbols: second, clauses: second.map(() => ({ start: 12, end: 16 })) },
      ],
      [frames, [1, 2, 2, 2, 2, 1]],
      2400,
    );
    const at = (frame: number) => (frame * KOKORO_HOP_SAMPLES) / KOKORO_SAMPLE_RATE;
    expect(words.map((word) => word.text)).toEqual(['hˈI', 'ðˈɛɹ', 'jˈɛs']);
    expect(words[0]).toMatchObject({ start: at(4), end: at(10), weight: 2, clause });
    expect(words[1]).toMatchObject({ start: at(12), end: at(20) });
    const secondStart = at(frames.reduce((a, b) => a + b, 0)) + 2400 / KOKORO_SAMPLE_RATE;
    expect(words[2].start).toBeCloseTo(secondStart + at(1), 9);
    expect(words[2].clause).toEqual({ start: 12, end: 16 });
  });
});
