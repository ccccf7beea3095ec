import fixture from '../fixtures/piper-phoneme-ids.json';
import { textToPhonemeIds } from '../../engines/piper/phonemes';

/**
 * The golden test: ids from the espeak-ng CLI equal those piper-tts made with
 * the same espeak-ng data (test/fixtures/piper-phoneme-ids.json says how).
 */
describe('Piper phoneme ids from the espeak-ng CLI', () => {
  const inverse = new Map(Object.entries(fixture.phonemeIdMap).map(([phoneme, [id]]) => [id, phoneme]));
  const asText = (ids: number[][]) =>
    ids.map((sentence) =>
      sentence
        .filter((id) => id > 2)
        .map((id) => inverse.get(id))
        .join(''),
    );

  it.each(fixture.cases.filter((entry) => !('knownDifference' in entry)).map((entry) => [entry.text, entry]))('equal piper-tts for %j', async (_, entry) => {
    const ids = await textToPhonemeIds(entry.text, { espeakVoice: fixture.espeakVoice, map: fixture.phonemeIdMap });
    expect(asText(ids)).toEqual(entry.phonemes);
    expect(ids).toEqual(entry.ids);
  });

  it('differ only in the documented stress mark after an ellipsis', async () => {
    const entry = fixture.cases.find((candidate) => 'knownDifference' in candidate)!;
    const ids = await textToPhonemeIds(entry.text, { espeakVoice: fixture.espeakVoice, map: fixture.phonemeIdMap });
    expect(asText(ids).map((sentence) => sentence.replace(/ˌ/g, 'ˈ'))).toEqual(entry.phonemes.map((sentence) => sentence.replace(/ˌ/g, 'ˈ')));
  });
});
