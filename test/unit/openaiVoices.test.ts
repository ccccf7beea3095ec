import {
  type CatalogVoice,
  chooseOpenAiVoices,
  neuralInstallFor,
  OPENAI_VOICES,
  openAiVoiceFor,
} from '../../engines/openAiVoices';

const voice = (id: string, language: string, gender: string, quality: 'neural' | 'classic'): CatalogVoice => ({
  id,
  language,
  gender,
  quality,
});
/** What a default install offers (free engines): joe, then the classic English voices in catalog order. */
const JOE = voice('en-us-joe', 'en-US', 'male', 'neural');
const FREE_CLASSIC = [
  voice('en-us-slt', 'en-US', 'female', 'classic'),
  voice('en-us-flite-slt', 'en-US', 'female', 'classic'),
  voice('en-us-flite-rms', 'en-US', 'male', 'classic'),
  voice('en-us-festival-kal', 'en-US', 'male', 'classic'),
  voice('en-us-festival-ked', 'en-US', 'male', 'classic'),
  voice('en-us-espeak-m', 'en-US', 'male', 'classic'),
  voice('en-us-espeak-f', 'en-US', 'female', 'classic'),
  voice('en-gb-flite-awb', 'en-GB', 'male', 'classic'),
  voice('en-gb-espeak-m', 'en-GB', 'male', 'classic'),
  voice('en-gb-espeak-f', 'en-GB', 'female', 'classic'),
];
const DEFAULT_INSTALL = [JOE, ...FREE_CLASSIC];
const NAMES = [...OPENAI_VOICES.keys()];
const FEMALE = NAMES.filter((name) => OPENAI_VOICES.get(name)!.gender === 'female');
const MALE = NAMES.filter((name) => OPENAI_VOICES.get(name)!.gender === 'male');
const genderOf = (catalog: CatalogVoice[], id: string) => catalog.find((entry) => entry.id === id)!.gender;

describe('OpenAI voice names', () => {
  it('are the thirteen names, six female and seven male as they are commonly heard', () => {
    expect([...NAMES].sort()).toEqual([
      'alloy',
      'ash',
      'ballad',
      'cedar',
      'coral',
      'echo',
      'fable',
      'marin',
      'nova',
      'onyx',
      'sage',
      'shimmer',
      'verse',
    ]);
    expect([...FEMALE].sort()).toEqual(['alloy', 'coral', 'marin', 'nova', 'sage', 'shimmer']);
    for (const [, entry] of OPENAI_VOICES) expect(entry.heard).not.toBe('');
  });

  it('keep their gender on a default install: the female names speak female classic voices, not joe', () => {
    const choices = chooseOpenAiVoices(DEFAULT_INSTALL);
    for (const name of NAMES)
      expect(genderOf(DEFAULT_INSTALL, choices.get(name)!.voiceId)).toBe(choices.get(name)!.gender);
    expect(choices.get('nova')).toMatchObject({ gender: 'female', neural: false });
    expect(choices.get('echo')).toMatchObject({ voiceId: 'en-us-joe', neural: true, install: null });
    // eSpeak NG's formant voices only when a gender has nothing better.
    for (const choice of choices.values()) expect(choice.voiceId).not.toMatch(/espeak/);
  });

  it('spread the names of one gender over distinct voices as far as there are voices', () => {
    const choices = chooseOpenAiVoices(DEFAULT_INSTALL);
    const female = FEMALE.map((name) => choices.get(name)!.voiceId);
    expect(new Set(female)).toEqual(new Set(['en-us-slt', 'en-us-flite-slt']));
    expect(choices.get('alloy')!.voiceId).not.toBe(choices.get('nova')!.voiceId);
    const male = MALE.map((name) => choices.get(name)!.voiceId);
    // Five male voices (joe and four classic) for seven names: every one used, the first five names all different.
    expect(new Set(male).size).toBe(5);
    expect(new Set(male.slice(0, 5)).size).toBe(5);
    expect(choices.get('fable')!.voiceId).toBe('en-gb-flite-awb');
  });

  it('name the recommended voice that makes a classic-voiced name neural, and take it once installed', () => {
    const before = chooseOpenAiVoices(DEFAULT_INSTALL).get('nova')!;
    expect(before.install).toEqual({
      key: 'kokoro:af_bella',
      voice_id: 'en-us-kokoro-bella',
      command: 'openvox voices install kokoro:af_bella',
    });
    expect(neuralInstallFor('nova')).toEqual(before.install);
    const bella = voice('en-us-kokoro-bella', 'en-US', 'female', 'neural');
    const after = chooseOpenAiVoices([bella, ...DEFAULT_INSTALL]);
    // The name it was recommended for takes it, not the first female name.
    expect(after.get('nova')).toMatchObject({ voiceId: 'en-us-kokoro-bella', neural: true, install: null });
    expect(after.get('alloy')!.voiceId).not.toBe('en-us-kokoro-bella');
    // Every name has its own recommendation.
    expect(new Set(NAMES.map((name) => neuralInstallFor(name)!.key)).size).toBe(NAMES.length);
  });

  it('prefer neural voices of their gender and their own accent: fable takes the British one', () => {
    const amy = voice('en-us-amy-medium', 'en-US', 'female', 'neural');
    const lessac = voice('en-us-lessac-medium', 'en-US', 'female', 'neural');
    const alan = voice('en-gb-alan-medium', 'en-GB', 'male', 'neural');
    const catalog = [JOE, amy, lessac, alan, ...FREE_CLASSIC];
    const choices = chooseOpenAiVoices(catalog);
    expect(choices.get('alloy')!.voiceId).toBe('en-us-amy-medium');
    expect(choices.get('nova')!.voiceId).toBe('en-us-lessac-medium');
    expect(choices.get('echo')!.voiceId).toBe('en-us-joe');
    expect(choices.get('fable')!.voiceId).toBe('en-gb-alan-medium');
  });

  it('are deterministic, and fall back to any voice of the gender (eSpeak NG) only when nothing better exists', () => {
    expect([...chooseOpenAiVoices(DEFAULT_INSTALL)]).toEqual([...chooseOpenAiVoices(DEFAULT_INSTALL)]);
    const espeakOnly = FREE_CLASSIC.filter((entry) => entry.id.includes('espeak'));
    expect(['alloy', 'nova'].map((name) => openAiVoiceFor(name, espeakOnly))).toEqual([
      'en-us-espeak-f',
      'en-gb-espeak-f',
    ]);
    const german = voice('de-de-thorsten-medium', 'de-DE', 'male', 'neural');
    expect(openAiVoiceFor('onyx', [german, ...FREE_CLASSIC])).not.toBe('de-de-thorsten-medium');
  });

  it('know nothing of inherited object keys', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty'])
      expect(openAiVoiceFor(name, DEFAULT_INSTALL)).toBeUndefined();
  });
});
