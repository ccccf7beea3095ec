import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { renderChunk } from '../../audio/render';
import { findPremadeVoice } from '../../engines/catalog';
import type { EngineRegistry } from '../../engines/registry';
import type { Engine } from '../../engines/types';
import { pcmBytes, wavHeader } from '../../lib/wavFormat';

/** An engine that records what it was asked to say and answers with a tone, one word's worth per word. */
function recordingEngine(name: 'festival' | 'piper') {
  const said: string[] = [];
  const engine: Engine = {
    name,
    license: 'free',
    capabilities: { rate: { min: 0.5, max: 2 } },
    available: async () => true,
    voices: async () => [],
    hasVoice: async () => true,
    async synthesize({ text, outPath }: Parameters<Engine['synthesize']>[0]) {
      said.push(text);
      const samples = new Int16Array(16_000 * 0.3 * text.split(' ').length).map((_, i) =>
        Math.round(8000 * Math.sin(i / 5)),
      );
      await writeFile(outPath, Buffer.concat([wavHeader(samples.length, 16_000), pcmBytes(samples)]));
    },
  };
  return { engines: new Map([[name, engine]]) as EngineRegistry, said };
}

describe('rendering reads written forms as words', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'openvox-render-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    [
      'auto',
      'It costs $5m. Call Dr. Smith on 3/4/2026.',
      'It costs five million dollars. Call Doctor Smith on March fourth, twenty twenty-six.',
    ],
    ['on', 'Henry VIII had 6 wives.', 'Henry the eighth had six wives.'],
    ['off', 'It costs $5m.', 'It costs $5m.'],
  ] as const)('text_normalization %s: the engine is given the spoken form', async (mode, text, expected) => {
    const { engines, said } = recordingEngine('festival');
    await renderChunk({
      voice: findPremadeVoice('en-us-slt')!,
      text,
      emotion: 'neutral',
      outPath: path.join(dir, `${mode}.wav`),
      engines,
      textNormalization: mode,
    });
    expect(said).toEqual([expected]);
  });

  it('in the voice’s language: a numeric date is day first for a British voice', async () => {
    const { engines, said } = recordingEngine('festival');
    const britishVoice = { ...findPremadeVoice('en-us-slt')!, language: 'en-GB' };
    await renderChunk({
      voice: britishVoice,
      text: 'See you on 3/4/2026.',
      emotion: 'neutral',
      outPath: path.join(dir, 'gb.wav'),
      engines,
      textNormalization: 'auto',
    });
    expect(said[0]).toMatch(/the third of April|3rd April|third of April/i);
  });
});
