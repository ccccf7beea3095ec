import { festivalText } from '../../engines/festival';

describe('festivalText', () => {
  it('leaves plain text of the voice language alone', () => {
    expect(festivalText('Dobrý den, toto je test.', 'czech_dita')).toBe('Dobrý den, toto je test.');
    expect(festivalText('Hello, world!', 'cmu_us_slt_arctic_hts')).toBe('Hello, world!');
  });

  it('collapses punctuation runs that crash the diphone voices', () => {
    expect(festivalText('ok!!! ??? ... fine', 'kal_diphone')).toBe('ok! fine');
  });

  it('keeps symbols for English voices and turns them into spaces for the others', () => {
    expect(festivalText('100% <speak>', 'cmu_us_slt_arctic_hts')).toBe('100% <speak>');
    expect(festivalText('100% <speak>', 'lp_diphone')).toBe('100 speak');
  });

  it('separates tokens the Russian voice cannot read, and drops the ё it lacks', () => {
    expect(festivalText('ёлка в 12:30, 3.5 кг', 'msu_ru_nsh_clunits')).toBe('елка в 12 30, 3 5 кг');
  });

  it('drops Latin letters for the Indic voices', () => {
    expect(festivalText('नमस्ते OK दुनिया', 'hindi_NSK_diphone')).toBe('नमस्ते दुनिया');
  });

  it('keeps letters, digits and . , alone in strict mode', () => {
    expect(festivalText("a-b (c) d'e 1/2.", 'cmu_us_slt_arctic_hts', true)).toBe('a b c d e 1 2.');
  });
});
