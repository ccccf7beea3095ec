import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { analyseAudio, type AudioAnalysis } from '../../audio/analysis';
import { availableVoices, PREMADE_VOICES, type PremadeVoice } from '../../engines/catalog';
import { createEngines } from '../../engines/registry';
import { sampleSentence } from '../../engines/samples';
import { type EngineName, EngineError } from '../../engines/types';
import { mapLimit } from '../../lib/concurrency';
import { defaultModelsDir } from '../../lib/config';

/**
 * The engine adapters against the real Debian programs: every catalog voice
 * renders speech, markup and shell syntax are spoken, temporary files go away.
 * Non-free engines (pico, RHVoice) are exercised only where installed
 * (ENABLE_NONFREE_ENGINES=true scripts/install.sh); their tests skip otherwise.
 * Piper's voice is in MODELS_DIR (scripts/install.sh puts it there).
 */

const modelsDir = process.env.MODELS_DIR ?? defaultModelsDir();
const engines = createEngines({ enableNonFree: true, modelsDir });
const freeOnly = createEngines({ modelsDir });
let work: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'openvox-engines-test-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function render(
  voice: PremadeVoice,
  text: string,
  name = voice.id,
): Promise<{ analysis: AudioAnalysis; wallSeconds: number }> {
  const outPath = path.join(work, `${name}.wav`);
  const started = process.hrtime.bigint();
  await engines.get(voice.engine)!.synthesize({ text, voice: voice.engineVoice, outPath });
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { analysis: await analyseAudio(outPath), wallSeconds };
}

const installed = async (name: EngineName): Promise<boolean> => (await engines.get(name)?.available()) ?? false;

function expectSpeech(analysis: AudioAnalysis, id: string): void {
  const label = `${id}: ${JSON.stringify(analysis)}`;
  expect([label, analysis.durationSeconds >= 0.8 && analysis.durationSeconds <= 8]).toEqual([label, true]);
  expect([label, analysis.activeRmsDb > -45]).toEqual([label, true]);
  expect([label, analysis.silenceRatio < 0.6]).toEqual([label, true]);
  expect([label, analysis.f0MedianHz !== null && analysis.voicedRatio > 0.05]).toEqual([label, true]);
}

// F0 decides gender here; the one child voice is a boy with a high voice.
function expectGender(voice: PremadeVoice, f0: number): void {
  const label = `${voice.id} (${voice.gender}) at ${f0.toFixed(0)} Hz`;
  if (voice.engineVoice === 'czech_krb') return;
  expect([label, voice.gender === 'female' ? f0 >= 150 : f0 < 150]).toEqual([label, true]);
}

describe('engines', () => {
  it('has the free engines installed and enabled by default, the non-free ones only on opt-in', async () => {
    for (const name of ['espeak-ng', 'flite', 'festival', 'piper'] as const)
      expect(await freeOnly.get(name)!.available()).toBe(true);
    expect(freeOnly.has('pico')).toBe(false);
    expect(freeOnly.has('rhvoice')).toBe(false);
    expect(engines.get('pico')!.license).toBe('non-free');
    expect(engines.get('rhvoice')!.license).toBe('non-free');
  });

  it('lists every free catalog voice as available, non-free ones only when enabled and installed', async () => {
    const free = await availableVoices({ engines: freeOnly });
    expect(free.map((voice) => voice.id)).toEqual(
      PREMADE_VOICES.filter((voice) => voice.license === 'free').map((voice) => voice.id),
    );
    expect(free.slice(0, 2).map((voice) => voice.id)).toEqual(['en-us-joe', 'en-us-slt']);
    const all = await availableVoices({ engines });
    const expectedNonFree = PREMADE_VOICES.filter((voice) => voice.license === 'non-free').length;
    const nonFreeInstalled = (await installed('pico')) && (await installed('rhvoice'));
    if (nonFreeInstalled) expect(all.length).toBe(free.length + expectedNonFree);
    else expect(all.length).toBeLessThan(free.length + expectedNonFree);
  });

  it('without the Piper model, hides en-us-joe and en-us-slt leads the list', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'openvox-no-models-'));
    try {
      const voices = await availableVoices({ engines: createEngines({ modelsDir: empty }) });
      expect(voices.map((voice) => voice.id)).not.toContain('en-us-joe');
      expect(voices[0].id).toBe('en-us-slt');
      expect(voices.length).toBe(PREMADE_VOICES.filter((voice) => voice.license === 'free').length - 1);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('renders every free catalog voice in its language, with a voice of its gender', async () => {
    const voices = PREMADE_VOICES.filter((voice) => voice.license === 'free');
    const results = await mapLimit(voices, 2, async (voice) => ({
      voice,
      ...(await render(voice, sampleSentence(voice.language))),
    }));
    for (const { voice, analysis } of results) {
      expectSpeech(analysis, voice.id);
      expectGender(voice, analysis.f0MedianHz!);
    }
    // eSpeak's female variant is really higher than its male voice in every language.
    const f0 = new Map(results.map(({ voice, analysis }) => [voice.id, analysis.f0MedianHz!]));
    for (const voice of voices.filter((entry) => entry.id.endsWith('-espeak-f'))) {
      const male = f0.get(voice.id.replace(/-f$/, '-m'))!;
      expect([voice.id, f0.get(voice.id)! / male > 1.4]).toEqual([voice.id, true]);
    }
  }, 600_000); // Every free voice rendered and analysed: minutes on a loaded 2-core machine.

  it('renders every non-free catalog voice where pico and RHVoice are installed', async () => {
    const voices = PREMADE_VOICES.filter((voice) => voice.license === 'non-free');
    const usable = await availableVoices({ engines });
    const present = voices.filter((voice) => usable.includes(voice));
    if (present.length === 0) {
      console.warn('non-free engines not installed (ENABLE_NONFREE_ENGINES=true scripts/install.sh): skipped');
      return;
    }
    const results = await mapLimit(present, 2, async (voice) => ({
      voice,
      ...(await render(voice, sampleSentence(voice.language))),
    }));
    for (const { voice, analysis } of results) {
      expectSpeech(analysis, voice.id);
      expectGender(voice, analysis.f0MedianHz!);
    }
  }, 60_000);

  describe('text that looks like markup, options or shell syntax is spoken, never interpreted', () => {
    const sentinel = path.join(os.tmpdir(), `openvox-pwned-${process.pid}`);
    const hostile = [
      `<speak>hello</speak> <break time="5s"/> $(touch ${sentinel}) ; touch ${sentinel} ; echo \`touch ${sentinel}\` && rm -rf /nonexistent`,
      '(voice_kal_diphone) (quit) [[h@loU]] &amp; & <pitch level="200">up</pitch>',
    ];
    const oneVoicePerEngine = [
      'en-us-espeak-m',
      'en-us-flite-slt',
      'en-us-slt',
      'en-us-joe',
      'en-us-pico',
      'en-us-rhvoice-bdl',
    ];

    it.each(oneVoicePerEngine)(
      '%s',
      async (id) => {
        const voice = PREMADE_VOICES.find((entry) => entry.id === id)!;
        if (!(await installed(voice.engine))) {
          console.warn(`${voice.engine} not installed: skipped`);
          return;
        }
        const plain = await render(voice, 'hello', `${id}-plain`);
        for (const [index, text] of hostile.entries()) {
          const spoken = await render(voice, text, `${id}-hostile-${index}`);
          // Every tag, bracket and command is read out: far longer than "hello", and no 5 s break was obeyed.
          expect(spoken.analysis.durationSeconds).toBeGreaterThan(plain.analysis.durationSeconds * 3);
          expect(spoken.analysis.silenceRatio).toBeLessThan(0.6);
        }
        for (const text of ['-v', '--help', '-w /tmp/x.wav', '--version -f /etc/passwd']) {
          const option = await render(voice, text, `${id}-option`);
          expect([text, option.analysis.durationSeconds > 0.15]).toEqual([text, true]);
        }
        expect(existsSync(sentinel)).toBe(false);
      },
      30_000,
    );
  });

  it('fails with an EngineError for an unknown voice, and leaves no temporary files', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'openvox-tmpdir-'));
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const outPath = path.join(work, 'unknown.wav');
      await expect(
        engines.get('espeak-ng')!.synthesize({ text: 'hello', voice: 'xx-nope', outPath }),
      ).rejects.toBeInstanceOf(EngineError);
      await expect(
        engines.get('festival')!.synthesize({ text: 'hello', voice: 'no_such_voice', outPath }),
      ).rejects.toThrow(/festival: no_such_voice produced no audio \(voice not installed\)/);
      await expect(
        engines.get('festival')!.synthesize({ text: 'hello', voice: 'x) (system "id")', outPath }),
      ).rejects.toThrow(/invalid voice name/);
      await expect(engines.get('flite')!.synthesize({ text: 'hello', voice: 'nope', outPath })).rejects.toBeInstanceOf(
        EngineError,
      );
      await expect(engines.get('piper')!.synthesize({ text: 'hello', voice: 'nope', outPath })).rejects.toThrow(
        /piper: voice "nope" is not in the models directory/,
      );
      await engines.get('espeak-ng')!.synthesize({ text: 'hello', voice: 'en-us', outPath });
      await engines.get('flite')!.synthesize({ text: 'hello', voice: 'slt', outPath });
      await engines.get('piper')!.synthesize({ text: 'hello', voice: 'en_US-joe-medium', outPath });
      expect(await readdir(tmp)).toEqual([]);
    } finally {
      process.env.TMPDIR = previous;
      await rm(tmp, { recursive: true, force: true });
    }
  }, 30_000);

  it('transliterates what a Festival voice cannot say instead of failing', async () => {
    for (const id of [
      'cs-cz-festival-dita',
      'it-it-festival-lp',
      'en-us-slt',
      'en-us-festival-kal',
      'ru-ru-festival-nsh',
    ]) {
      const voice = PREMADE_VOICES.find((entry) => entry.id === id)!;
      for (const text of [
        'Ñandú «Łódź» “quoted” — 日本 ёлка 3.5 € naïve',
        'ok!!! ??? ... 100% at 12:30, x@y.com http://a.b/c?d=1&e=2',
      ]) {
        const { analysis } = await render(voice, text, `${id}-mixed`);
        expect(analysis.durationSeconds).toBeGreaterThan(1);
      }
    }
  }, 30_000);

  it('measures real-time factor and spawn cost per engine', async () => {
    const text = 'The quick brown fox jumps over the lazy dog, and then it runs back home again.';
    const rows: string[] = [];
    for (const id of [
      'en-us-espeak-m',
      'en-us-flite-slt',
      'en-us-flite-rms',
      'en-us-slt',
      'en-us-festival-kal',
      'en-us-joe',
      'en-us-pico',
      'en-us-rhvoice-slt',
    ]) {
      const voice = PREMADE_VOICES.find((entry) => entry.id === id)!;
      if (!(await installed(voice.engine))) continue;
      await render(voice, 'warm up', `${id}-warm`);
      const spawn = await render(voice, 'a', `${id}-spawn`);
      const runs = [await render(voice, text, `${id}-rtf`), await render(voice, text, `${id}-rtf`)];
      const wall = Math.min(...runs.map((run) => run.wallSeconds));
      const audio = runs[0].analysis.durationSeconds;
      rows.push(
        `${id.padEnd(20)} audio ${audio.toFixed(2)} s  wall ${(wall * 1000).toFixed(0)} ms  RTF ${(audio / wall).toFixed(1)}x  spawn+"a" ${(spawn.wallSeconds * 1000).toFixed(0)} ms`,
      );
      expect(audio / wall).toBeGreaterThan(2);
    }
    console.log(`engine speed (audio seconds / wall seconds, process start included):\n${rows.join('\n')}`);
  }, 60_000);
});
