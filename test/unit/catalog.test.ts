import { FALLBACK_VOICE_ID, findPremadeVoice, PREMADE_VOICES, RECOMMENDED_VOICE_ID } from '../../engines/catalog';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describedEngine, ENGINES } from '../../engines/registry';
import { SAMPLE_SENTENCES, sampleSentence } from '../../engines/samples';

// Neural first, then by reputation: RHVoice > Festival HTS > Pico > Flite > Festival diphone/cluster units > eSpeak NG.
const HTS_VOICES = new Set(['cmu_us_slt_arctic_hts', 'upc_ca_ona_hts']);
function rank(voice: (typeof PREMADE_VOICES)[number]): number {
  if (voice.engine === 'piper') return -1;
  if (voice.engine === 'rhvoice') return 0;
  if (voice.engine === 'festival' && HTS_VOICES.has(voice.engineVoice)) return 1;
  if (voice.engine === 'pico') return 2;
  if (voice.engine === 'flite') return 3;
  if (voice.engine === 'festival') return 4;
  return 5;
}

describe('premade voice catalog', () => {
  const free = PREMADE_VOICES.filter((voice) => voice.license === 'free');

  it('starts with en-us-joe, the recommended (neural) English voice, then en-us-slt, the one that always exists', () => {
    expect(RECOMMENDED_VOICE_ID).toBe('en-us-joe');
    expect(FALLBACK_VOICE_ID).toBe('en-us-slt');
    const facts = ({
      id,
      language,
      gender,
      engine,
      engineVoice,
      license,
      quality,
    }: (typeof PREMADE_VOICES)[number]) => [id, language, gender, engine, engineVoice, license, quality];
    expect(PREMADE_VOICES.slice(0, 2).map(facts)).toEqual([
      ['en-us-joe', 'en-US', 'male', 'piper', 'en_US-joe-medium', 'free', 'neural'],
      ['en-us-slt', 'en-US', 'female', 'festival', 'cmu_us_slt_arctic_hts', 'free', 'classic'],
    ]);
    expect(PREMADE_VOICES[0].licence).toMatch(/CC0.*lessac/);
    expect(findPremadeVoice('en-us-slt')).toBe(PREMADE_VOICES[1]);
    expect(findPremadeVoice('nope')).toBeUndefined();
  });

  it("takes each entry's licence and quality from its engine's description, and names no engine itself", () => {
    for (const voice of PREMADE_VOICES) {
      const description = describedEngine(voice.engine);
      expect(voice.license).toBe(description.license);
      expect(voice.quality).toBe(description.tier === 'classic' ? 'classic' : 'neural');
    }
    expect(new Set(ENGINES.map((engine) => engine.name)).size).toBe(ENGINES.length);
    const source = readFileSync(path.join(__dirname, '../../engines/catalog.ts'), 'utf8');
    for (const { name } of ENGINES) expect(source).not.toContain(`'${name}'`);
  });

  it('offers at least 40 voices in at least 20 languages with free engines alone', () => {
    expect(free.length).toBeGreaterThanOrEqual(40);
    expect(new Set(free.map((voice) => voice.language.split('-')[0])).size).toBeGreaterThanOrEqual(20);
    // Both genders in most languages.
    const female = new Set(free.filter((voice) => voice.gender === 'female').map((voice) => voice.language));
    const male = new Set(free.filter((voice) => voice.gender === 'male').map((voice) => voice.language));
    expect([...female].filter((language) => male.has(language)).length).toBeGreaterThanOrEqual(20);
  });

  it('has unique, stable, readable ids and well-formed entries', () => {
    expect(new Set(PREMADE_VOICES.map((voice) => voice.id)).size).toBe(PREMADE_VOICES.length);
    for (const voice of PREMADE_VOICES) {
      expect(voice.id).toMatch(/^[a-z]{2,3}(-[a-z0-9]{2,3})?-[a-z0-9-]+$/);
      expect(voice.id.startsWith(voice.language.toLowerCase())).toBe(true);
      expect(voice.language).toMatch(/^[a-z]{2,3}(-([A-Z]{2}|\d{3}))?$/);
      expect(['female', 'male']).toContain(voice.gender);
      expect(voice.name.length).toBeGreaterThan(0);
      expect(voice.description.length).toBeGreaterThan(40);
      expect(voice.license).toBe(voice.engine === 'pico' || voice.engine === 'rhvoice' ? 'non-free' : 'free');
      expect(voice.quality).toBe(voice.engine === 'piper' ? 'neural' : 'classic');
      expect(voice.licence!.length).toBeGreaterThan(20);
    }
    expect(new Set(PREMADE_VOICES.map((voice) => voice.description)).size).toBe(PREMADE_VOICES.length);
  });

  it('groups languages and puts the best-sounding voice of each language first', () => {
    const order: string[] = [];
    for (const voice of PREMADE_VOICES) {
      const primary = voice.language.split('-')[0];
      if (order.at(-1) !== primary) {
        expect(order).not.toContain(primary);
        order.push(primary);
      }
    }
    // Within a language tag, ranks never go up again (en-us-slt, second, is the one pinned exception).
    const byLanguage = new Map<string, number[]>();
    for (const voice of PREMADE_VOICES.filter((entry) => entry.id !== FALLBACK_VOICE_ID))
      byLanguage.set(voice.language, [...(byLanguage.get(voice.language) ?? []), rank(voice)]);
    for (const [, ranks] of byLanguage) expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it('leaves out non-commercial and MBROLA voices', () => {
    for (const voice of PREMADE_VOICES) {
      expect(voice.engineVoice).not.toMatch(/evgeniy|lyubov|mb-/i);
    }
  });

  it('has a sample sentence in every catalog language', () => {
    for (const voice of PREMADE_VOICES) {
      const primary = voice.language.split('-')[0];
      expect(SAMPLE_SENTENCES[voice.language] ?? SAMPLE_SENTENCES[primary]).toBeDefined();
    }
    expect(sampleSentence('zh-HK')).not.toBe(sampleSentence('zh-CN'));
    expect(sampleSentence('xx-YY')).toBe(SAMPLE_SENTENCES.en);
    expect(sampleSentence('constructor')).toBe(SAMPLE_SENTENCES.en);
    expect(sampleSentence('__proto__-x')).toBe(SAMPLE_SENTENCES.en);
  });
});
