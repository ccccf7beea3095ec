import { blockContentHash, type BlockRenderInputs } from '../../../studio/blockHash';

const base: BlockRenderInputs = {
  text: 'The gate was shut.',
  voices: ['voice-a'],
  speed: 1,
  textNormalization: 'auto',
  dictionaryVersion: 'dict-3',
  engineModel: 'piper:en_US-joe-medium',
};

describe('blockContentHash', () => {
  it('is a stable sha256 of the inputs, whatever the order they are written in', () => {
    const reordered: BlockRenderInputs = {
      engineModel: base.engineModel,
      dictionaryVersion: base.dictionaryVersion,
      textNormalization: base.textNormalization,
      speed: base.speed,
      voices: base.voices,
      text: base.text,
    };
    expect(blockContentHash(base)).toMatch(/^[0-9a-f]{64}$/);
    expect(blockContentHash(reordered)).toBe(blockContentHash(base));
  });

  it.each<[string, Partial<BlockRenderInputs>]>([
    ['text', { text: 'The gate was open.' }],
    ['voices', { voices: ['voice-b'] }],
    ['voices order', { voices: ['voice-a', 'voice-b'] }],
    ['speed', { speed: 1.1 }],
    ['text normalization', { textNormalization: 'off' }],
    ['dictionary', { dictionaryVersion: 'dict-4' }],
    ['no dictionary', { dictionaryVersion: null }],
    ['engine model', { engineModel: 'kokoro:af_heart' }],
  ])('changes with the %s', (_name, change) => {
    expect(blockContentHash({ ...base, ...change })).not.toBe(blockContentHash(base));
  });

  it('treats the voices of segments in order', () => {
    const twoVoices = { ...base, voices: ['voice-a', 'voice-b'] };
    expect(blockContentHash(twoVoices)).not.toBe(blockContentHash({ ...base, voices: ['voice-b', 'voice-a'] }));
  });
});
