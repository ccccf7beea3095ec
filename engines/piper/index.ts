import { splitText } from '../text';
import { which } from '../../lib/process';
import { describeEngine, type Engine, EngineError } from '../types';
import { piperCatalogVoices } from './catalogVoices';
import { findPiperModels, type PiperModel, voiceNamesOf } from './models';
import { phonemeIds, type SentencePhonemes, textToPhonemes } from './phonemes';
import { piperWords } from './durations';
import { PiperExit, PiperPool, type PiperPoolOptions, type PiperResult } from './pool';
import { lengthScaleForRate, PIPER_RATE_RANGE } from './speed';

/**
 * Piper (VITS voices exported to ONNX, run by onnxruntime-node, MIT): neural
 * voices that sound far more natural than the classic engines, ~0.06 CPU
 * seconds per audio second on one thread. Voices are the Piper models in
 * MODELS_DIR (engines/piper/models.ts); phonemes come from the espeak-ng CLI
 * (engines/piper/phonemes.ts); inference runs in kept child processes
 * (engines/piper/pool.ts).
 */

/** Characters per model call: memory grows with the longest call (~33 MB per audio second) and ONNX Runtime keeps it. */
export const PIPER_MAX_CALL_CHARS = 250;

export interface PiperEngineOptions extends PiperPoolOptions {
  /** Where the voices are (MODELS_DIR). */
  modelsDir: string;
  /**
   * Piper's sampling noise (noise_scale, noise_w from each voice's config):
   * on by default; off, the output is identical run to run (tests, calibration).
   */
  noise?: boolean;
  /** Silence between sentences within one call, seconds (Piper's own default is none). */
  sentencePauseSeconds?: number;
}

export interface PiperEngine extends Engine {
  /** The voices found in the models directory (cached after the first call, until `refresh()`). */
  models(): Promise<PiperModel[]>;
  refresh(): void;
  readonly pool: PiperPool;
}

/**
 * The model and speaker of an engine voice name: a single-speaker model's
 * name, or `<model name>#<speaker>` for a speaker of a multi-speaker model
 * (its `sid`); null for anything else (a multi-speaker model's bare name too).
 */
function findVoice(models: Map<string, PiperModel>, voice: string): { model: PiperModel; speakerId?: number } | null {
  const whole = models.get(voice);
  if (whole) return Object.keys(whole.speakers).length === 0 ? { model: whole } : null;
  const mark = voice.indexOf('#');
  const model = mark > 0 ? models.get(voice.slice(0, mark)) : undefined;
  const speakerId =
    model && Object.hasOwn(model.speakers, voice.slice(mark + 1)) ? model.speakers[voice.slice(mark + 1)] : undefined;
  return model && speakerId !== undefined ? { model, speakerId } : null;
}

export function createPiperEngine(options: PiperEngineOptions): PiperEngine {
  const pool = new PiperPool(options);
  let found: Promise<Map<string, PiperModel>> | undefined;
  const byName = () => {
    found ??= findPiperModels(options.modelsDir).then((models) => new Map(models.map((model) => [model.name, model])));
    return found;
  };
  const noise = options.noise ?? true;

  return {
    name: piperEngine.name,
    license: piperEngine.license,
    // Speed goes to the model's length_scale through a measured curve (engines/piper/speed.ts), exact enough to replace the time stretch.
    capabilities: { rate: PIPER_RATE_RANGE, exactRate: true },
    pool,
    async models() {
      return [...(await byName()).values()];
    },
    refresh() {
      found = undefined;
    },
    async available() {
      return (await which('espeak-ng')) !== null && (await byName()).size > 0;
    },
    async voices() {
      if (!(await which('espeak-ng'))) return [];
      return [...(await byName()).values()].flatMap(voiceNamesOf);
    },
    async hasVoice(voice) {
      return Boolean(await which('espeak-ng')) && findVoice(await byName(), voice) !== null;
    },
    async synthesize({ text, voice, rate = 1, outPath, signal, pronunciations = [] }) {
      const target = findVoice(await byName(), voice);
      if (!target) throw new EngineError('piper', `voice ${JSON.stringify(voice)} is not in the models directory`);
      if (!(rate > 0 && Number.isFinite(rate))) throw new EngineError('piper', `invalid rate ${rate}`);
      const { model, speakerId } = target;
      const phonemes: SentencePhonemes[] = [];
      let cursor = 0;
      for (const piece of splitText(text, PIPER_MAX_CALL_CHARS)) {
        // Clause offsets in the piece become offsets in the text.
        const base = Math.max(cursor, text.indexOf(piece, cursor));
        cursor = base + piece.length;
        // Given pronunciations in the piece, in its offsets.
        const given = pronunciations
          .filter((p) => p.start >= base && p.end <= base + piece.length)
          .map((p) => ({ ipa: p.ipa, start: p.start - base, end: p.end - base }));
        try {
          const sentences = await textToPhonemes(piece, {
            espeakVoice: model.espeakVoice,
            signal,
            pronunciations: given,
          });
          phonemes.push(
            ...sentences.map(({ phonemes, clauses }) => ({
              phonemes,
              clauses: clauses.map((clause) => ({ start: base + clause.start, end: base + clause.end })),
            })),
          );
        } catch (error) {
          throw new EngineError('piper', `phonemes: ${(error as Error).message}`);
        }
      }
      const speaking = phonemes
        .map((sentence) => ({ sentence, ids: phonemeIds(sentence.phonemes, model.phonemeIdMap) }))
        .filter(({ ids }) => ids.length > 3);
      if (speaking.length === 0) throw new EngineError('piper', 'nothing in the text to pronounce');
      const scales: [number, number, number] = [
        noise ? model.noiseScale : 0,
        model.lengthScale * lengthScaleForRate(rate),
        noise ? model.noiseW : 0,
      ];
      const request = {
        sentences: speaking.map(({ ids }) => ids),
        scales,
        sampleRate: model.sampleRate,
        outPath,
        pauseSamples: Math.round((options.sentencePauseSeconds ?? 0) * model.sampleRate),
        speakerId,
      };
      let result: PiperResult;
      try {
        result = await pool.with(model.modelPath, (host) => host.synthesize(request, { signal }), signal);
      } catch (error) {
        if (signal?.aborted) throw new EngineError('piper', 'aborted');
        if (error instanceof PiperExit) throw new EngineError('piper', error.message);
        throw error;
      }
      if (!result.frames) return undefined;
      return {
        words: piperWords(
          speaking.map(({ sentence }) => sentence),
          result.frames,
          model.phonemeIdMap,
          model.sampleRate,
          request.pauseSamples,
        ),
      };
    },
  };
}

export const piperEngine = describeEngine({
  name: 'piper',
  license: 'free',
  wordTiming: true,
  tier: 'neural',
  licence:
    'Piper voice: see its model card for the licence of its data. Runs with ONNX Runtime (MIT); phonemes by eSpeak NG (GPL-3.0-or-later).',
  discoverVoices: piperCatalogVoices,
  // A model, its config and the sidecar of what the config lacks (engines/piper/models.ts).
  voiceFiles: { folder: '.', file: /\.(onnx|onnx\.json|voice\.json)$/ },
  create: ({ modelsDir, maxHosts, niceness, idleMs }) =>
    modelsDir ? createPiperEngine({ modelsDir, maxHosts, niceness, idleMs }) : null,
});
