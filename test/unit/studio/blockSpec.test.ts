import {
  BlockVoiceMissingError,
  blockSpec,
  dictionariesContentHash,
  type BlockRow,
  type ProjectSettings,
} from '../../../studio/blockSpec';

const project: ProjectSettings = {
  default_voice_id: 'narrator',
  heading_voice_id: null,
  dialogue_voice_id: null,
  speakers: {},
  speed: 1,
  text_normalization: 'auto',
  language: 'en-US',
};
const paragraph: BlockRow = {
  id: 'b1',
  kind: 'paragraph',
  text: 'She said "come in" and left.',
  voice_id: null,
  segments: null,
  characters: 28,
};
const context = { dictionariesHash: null, engineModelOf: (voiceId: string) => `piper:${voiceId}` };

describe('blockSpec', () => {
  it('reads a paragraph in the default voice', () => {
    const spec = blockSpec(project, paragraph, context);
    expect(spec.segments).toEqual([{ voiceId: 'narrator', text: paragraph.text }]);
    expect(spec).toMatchObject({ speed: 1, textNormalization: 'auto', characters: 28 });
    expect(spec.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("prefers the block's voice, and the heading voice for headings", () => {
    expect(blockSpec(project, { ...paragraph, voice_id: 'other' }, context).segments[0].voiceId).toBe('other');
    const heading: BlockRow = { ...paragraph, kind: 'heading', text: 'Chapter One', voice_id: 'other' };
    expect(blockSpec(project, heading, context).segments[0].voiceId).toBe('other');
    expect(blockSpec({ ...project, heading_voice_id: 'title' }, heading, context).segments).toEqual([
      { voiceId: 'title', text: 'Chapter One' },
    ]);
  });

  it('reads quoted dialogue in the dialogue voice', () => {
    const spec = blockSpec({ ...project, dialogue_voice_id: 'dialogue' }, paragraph, context);
    expect(spec.segments).toEqual([
      { voiceId: 'narrator', text: 'She said ' },
      { voiceId: 'dialogue', text: '"come in"' },
      { voiceId: 'narrator', text: ' and left.' },
    ]);
  });

  it("gives a script line's speakers their voices, merging neighbours of one voice", () => {
    const line: BlockRow = {
      ...paragraph,
      text: 'Hi. Hello. Bye.',
      segments: [
        { speaker: 'ALICE', text: 'Hi. ' },
        { speaker: 'BOB', text: 'Hello. ' },
        { speaker: 'CAROL', text: 'Bye.' },
      ],
    };
    const spec = blockSpec({ ...project, speakers: { ALICE: 'alice', BOB: 'narrator' } }, line, context);
    expect(spec.segments).toEqual([
      { voiceId: 'alice', text: 'Hi. ' },
      { voiceId: 'narrator', text: 'Hello. Bye.' },
    ]);
  });

  it('throws a clear error when no voice applies', () => {
    expect(() => blockSpec({ ...project, default_voice_id: null }, paragraph, context)).toThrow(BlockVoiceMissingError);
    expect(() => blockSpec({ ...project, default_voice_id: null }, paragraph, context)).toThrow(/default_voice_id/);
  });

  it('hashes every input the audio depends on', () => {
    const base = blockSpec(project, paragraph, context).hash;
    expect(blockSpec(project, paragraph, context).hash).toBe(base);
    const variants = [
      blockSpec(project, { ...paragraph, text: 'Other.' }, context),
      blockSpec(project, { ...paragraph, voice_id: 'other' }, context),
      blockSpec({ ...project, speed: 1.2 }, paragraph, context),
      blockSpec({ ...project, text_normalization: 'off' }, paragraph, context),
      blockSpec(project, paragraph, { ...context, dictionariesHash: 'abc' }),
      blockSpec(project, paragraph, { ...context, engineModelOf: (voiceId) => `kokoro:${voiceId}` }),
    ].map((spec) => spec.hash);
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });
});

describe('dictionariesContentHash', () => {
  it('is null without entries and follows the entries and their order', () => {
    expect(dictionariesContentHash([])).toBeNull();
    const a = { graphemes: ['Dr.'], alias: 'Doctor' };
    const b = { graphemes: ['NASA'], phoneme: 'ˈnæsə', caseSensitive: true };
    const hash = dictionariesContentHash([a, b]);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(dictionariesContentHash([{ alias: 'Doctor', graphemes: ['Dr.'] }, b])).toBe(hash);
    expect(dictionariesContentHash([b, a])).not.toBe(hash);
    expect(dictionariesContentHash([a, { ...b, caseSensitive: false }])).not.toBe(hash);
  });
});
