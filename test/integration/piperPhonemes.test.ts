import childProcess from 'node:child_process';
import fixture from '../fixtures/piper-phoneme-ids.json';
import { stopKeptEspeak } from '../../engines/piper/espeakProcess';
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

  it.each(fixture.cases.filter((entry) => !('knownDifference' in entry)).map((entry) => [entry.text, entry]))(
    'equal piper-tts for %j',
    async (_, entry) => {
      const ids = await textToPhonemeIds(entry.text, { espeakVoice: fixture.espeakVoice, map: fixture.phonemeIdMap });
      expect(asText(ids)).toEqual(entry.phonemes);
      expect(ids).toEqual(entry.ids);
    },
  );

  it('differ only in the documented stress mark after an ellipsis', async () => {
    const entry = fixture.cases.find((candidate) => 'knownDifference' in candidate)!;
    const ids = await textToPhonemeIds(entry.text, { espeakVoice: fixture.espeakVoice, map: fixture.phonemeIdMap });
    expect(asText(ids).map((sentence) => sentence.replace(/ˌ/g, 'ˈ'))).toEqual(
      entry.phonemes.map((sentence) => sentence.replace(/ˌ/g, 'ˈ')),
    );
  });
});

describe('the kept espeak-ng process', () => {
  afterAll(() => stopKeptEspeak());

  it('phonemizes clause after clause in one process per voice, in step with its input', async () => {
    stopKeptEspeak();
    const spawn = jest.spyOn(childProcess, 'spawn');
    try {
      const cases = fixture.cases.filter((entry) => !('knownDifference' in entry));
      // Side by side: the answers come back in order, each to its own request.
      const all = await Promise.all(
        cases.map((entry) =>
          textToPhonemeIds(entry.text, { espeakVoice: fixture.espeakVoice, map: fixture.phonemeIdMap }),
        ),
      );
      all.forEach((ids, index) => expect(ids).toEqual(cases[index].ids));
      expect(spawn.mock.calls.filter(([command]) => command === 'espeak-ng')).toHaveLength(1);
    } finally {
      spawn.mockRestore();
    }
  });

  it('leaves a line it cannot read in one piece (over 999 bytes) to a process per clause', async () => {
    const spawn = jest.spyOn(childProcess, 'spawn');
    try {
      const long = Array.from({ length: 250 }, () => 'word').join(' ');
      const ids = await textToPhonemeIds(`Before. Then ${long}, and after`, {
        espeakVoice: fixture.espeakVoice,
        map: fixture.phonemeIdMap,
      });
      expect(ids).toHaveLength(2);
      expect(ids[1].length).toBeGreaterThan(250 * 6);
      // Three clauses, three processes (spawned through lib/process's run).
      expect(spawn.mock.calls.filter(([command]) => command === 'espeak-ng')).toHaveLength(3);
    } finally {
      spawn.mockRestore();
    }
  });
});
