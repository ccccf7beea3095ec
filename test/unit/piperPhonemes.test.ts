import fixture from '../fixtures/piper-phoneme-ids.json';
import { ipaFromSeparated, phonemeIds, sentencePhonemes, splitClauses } from '../../engines/piper/phonemes';
import { lengthScaleForRate, PIPER_RATE_RANGE } from '../../engines/piper/speed';

describe('Piper phonemes, the way piper-tts makes them', () => {
  it('splits clauses after .!?,;: and a space, a run of marks counting as its first', () => {
    expect(splitClauses('Is it? Yes! Well: maybe; so, fine.')).toEqual([
      { text: 'Is it', terminator: '?' },
      { text: 'Yes', terminator: '!' },
      { text: 'Well', terminator: ':' },
      { text: 'maybe', terminator: ';' },
      { text: 'so', terminator: ',' },
      { text: 'fine', terminator: '.' },
    ]);
    expect(splitClauses('What?! 3.14 and 1,000 stay whole')).toEqual([
      { text: 'What', terminator: '?' },
      { text: '3.14 and 1,000 stay whole', terminator: '' },
    ]);
  });

  it('ends a clause at an ellipsis without punctuation, inside the sentence', () => {
    expect(splitClauses('Wait... what… now')).toEqual([
      { text: 'Wait', terminator: '' },
      { text: 'what', terminator: '' },
      { text: 'now', terminator: '' },
    ]);
  });

  it('keeps the punctuation, a space after ,;: and starts a sentence after .!?', () => {
    const clauses = splitClauses('Hi, you. Bye');
    expect(sentencePhonemes(clauses, ['hˈaɪ', 'juː', 'bˈaɪ']).map((phonemes) => phonemes.join(''))).toEqual([
      'hˈaɪ, juː.',
      'bˈaɪ',
    ]);
  });

  it('removes language switch flags and decomposes to NFD code points', () => {
    const [sentence] = sentencePhonemes([{ text: 'x', terminator: '' }], ['(fr)kafe(en)\u00e9']);
    expect(sentence).toEqual(['k', 'a', 'f', 'e', 'e', '\u0301']);
  });

  it('restores the linking palatal the CLI drops, and only that silent phoneme', () => {
    expect(ipaFromSeparated('θ_ɹ_ˈiː_ ˈæ_p_əl_z')).toBe('θɹˈiːʲ ˈæpəlz');
    expect(ipaFromSeparated('ð_ɪ_ ˈɛ_n_d')).toBe('ðɪʲ ˈɛnd');
    // Pauses (quotes, digit groups) are silent phonemes too.
    expect(ipaFromSeparated('s_ˈɛ_d__ n_ˈoʊ____ t_w_ˈaɪ_s')).toBe('sˈɛd nˈoʊ twˈaɪs');
    expect(ipaFromSeparated('m_ˈɪ_l_iə_n_ t_ˈuː')).toBe('mˈɪliən tˈuː');
  });

  it('maps phonemes to ids: ^, pad, each id followed by pad, $; unknown phonemes dropped', () => {
    const map = { _: [0], '^': [1], $: [2], a: [14], b: [15] };
    expect(phonemeIds(['a', '☃', 'b'], map)).toEqual([1, 0, 14, 0, 15, 0, 2]);
  });

  it('ids of piper-tts for the fixture phonemes', () => {
    for (const entry of fixture.cases) {
      const ids = entry.phonemes.map((sentence) => phonemeIds([...sentence], fixture.phonemeIdMap));
      expect(ids).toEqual(entry.ids);
    }
  });
});

describe('Piper speed', () => {
  it('maps rate to a length_scale that falls as the rate rises, 1 at rate 1', () => {
    expect(lengthScaleForRate(1)).toBeCloseTo(1, 6);
    let previous = Infinity;
    for (let rate = PIPER_RATE_RANGE.min; rate <= PIPER_RATE_RANGE.max; rate += 0.05) {
      const scale = lengthScaleForRate(rate);
      expect(scale).toBeLessThan(previous);
      previous = scale;
    }
    expect(lengthScaleForRate(PIPER_RATE_RANGE.min / 2)).toBe(lengthScaleForRate(PIPER_RATE_RANGE.min));
  });
});
