import { type CatalogVoice, OPENAI_VOICES, openAiVoiceFor } from '../../api/routes/openai/voices';

const voice = (id: string, language: string, gender: string, quality: 'neural' | 'classic'): CatalogVoice => ({
  id,
  language,
  gender,
  quality,
});
const CLASSIC = [
  voice('en-us-slt', 'en-US', 'female', 'classic'),
  voice('en-us-flite-slt', 'en-US', 'female', 'classic'),
  voice('en-us-festival-ked', 'en-US', 'male', 'classic'),
];
const JOE = voice('en-us-joe', 'en-US', 'male', 'neural');
const NAMES = [...OPENAI_VOICES.keys()];

describe('OpenAI voice names', () => {
  it('speak the one installed neural voice, whatever its gender', () => {
    for (const name of NAMES) expect(openAiVoiceFor(name, [JOE, ...CLASSIC])).toBe('en-us-joe');
  });

  it('fall back to their classic voices when no neural English voice is installed', () => {
    const german = voice('de-de-thorsten-medium', 'de-DE', 'male', 'neural');
    expect(openAiVoiceFor('alloy', [german, ...CLASSIC])).toBe('en-us-slt');
    expect(openAiVoiceFor('onyx', CLASSIC)).toBe('en-us-festival-ked');
    // Not available here: the last classic voice, always a free one.
    expect(openAiVoiceFor('fable', CLASSIC)).toBe('en-gb-flite-awb');
  });

  it('take a neural voice of their gender, British first for fable, and spread over several', () => {
    const amy = voice('en-us-amy-medium', 'en-US', 'female', 'neural');
    const lessac = voice('en-us-lessac-medium', 'en-US', 'female', 'neural');
    const alan = voice('en-gb-alan-medium', 'en-GB', 'male', 'neural');
    const catalog = [JOE, amy, lessac, alan, ...CLASSIC];
    const female = NAMES.filter((name) => OPENAI_VOICES.get(name)!.gender === 'female');
    const chosen = female.map((name) => openAiVoiceFor(name, catalog));
    expect(new Set(chosen)).toEqual(new Set(['en-us-amy-medium', 'en-us-lessac-medium']));
    expect(openAiVoiceFor('alloy', catalog)).toBe('en-us-amy-medium');
    expect(openAiVoiceFor('fable', catalog)).toBe('en-gb-alan-medium');
    expect(
      new Set(['ash', 'ballad', 'cedar', 'echo', 'onyx', 'verse'].map((name) => openAiVoiceFor(name, catalog))),
    ).toEqual(new Set(['en-us-joe', 'en-gb-alan-medium']));
  });

  it('know nothing of inherited object keys', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty'])
      expect(openAiVoiceFor(name, [JOE, ...CLASSIC])).toBeUndefined();
  });
});
