import { access, readdir, readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { which } from '../../lib/process';
import { splitText } from '../text';
import { describeEngine, type Engine, EngineError, type EngineWord, heavyRenderSlots } from '../types';
import { type SentencePhonemes, textToPhonemes } from '../piper/phonemes';
import { PiperExit, PiperPool, type PiperPoolOptions, type PiperResult } from '../piper/pool';
import { kokoroCatalogVoices } from './catalogVoices';
import { kokoroSymbols } from './phonemes';
import { readNpyStyle, styleRow } from './styles';

/**
 * Kokoro-82M (Apache-2.0; the int8 ONNX export of kokoro-onnx, MIT), the `high` quality tier: a
 * StyleTTS 2 model that sounds more natural than Piper at ~10× its CPU per audio second. Files in
 * MODELS_DIR/kokoro/ (scripts/install.sh assembles them from PyPI, engines/kokoro/install.ts adds
 * voices): `kokoro-v1.0.int8.onnx`, `vocab.json` (phoneme symbol -> token id) and `voices/<name>.npy`
 * (each voice's style, engines/kokoro/styles.ts). Phonemes come from espeak-ng, as Piper's do, mapped
 * to Kokoro's symbols (engines/kokoro/phonemes.ts); inference runs in kept child processes
 * (engines/kokoro/host.ts in Piper's host pool, engines/piper/pool.ts).
 */

export const KOKORO_DIR = 'kokoro';
export const KOKORO_MODEL = 'kokoro-v1.0.int8.onnx';
export const KOKORO_SAMPLE_RATE = 24_000;
/** Samples per predicted duration frame (the decoder's 40 frames a second at 24 kHz). */
export const KOKORO_HOP_SAMPLES = 600;
/** The model's limit: tokens per call, without the two pads. */
export const KOKORO_MAX_TOKENS = 510;
/** Characters per phonemized piece: a sentence this long stays well under the token limit. */
const MAX_PIECE_CHARS = 250;

/**
 * The espeak-ng voice and BCP 47 language of a Kokoro voice, from its name's first letter (Kokoro's
 * convention: `af_heart` is American English, female). Only English is offered: espeak-ng's Japanese
 * reads kana but speaks each kanji as the English words "Chinese letter", and misaki's own Japanese
 * front end (pyopenjtalk) has no espeak-ng equivalent here; the other languages are not judged yet.
 */
type KokoroLanguage = { language: string; espeak: string; enabled: boolean };
/** By a voice's first letter: null prototype, as every table looked up by a name. */
export const KOKORO_LANGUAGES: Readonly<Record<string, KokoroLanguage>> = Object.assign(
  Object.create(null) as Record<string, KokoroLanguage>,
  {
    a: { language: 'en-US', espeak: 'en-us', enabled: true },
    b: { language: 'en-GB', espeak: 'en-gb', enabled: true },
    j: { language: 'ja-JP', espeak: 'ja', enabled: false },
    z: { language: 'zh-CN', espeak: 'cmn', enabled: false },
    e: { language: 'es-ES', espeak: 'es', enabled: false },
    f: { language: 'fr-FR', espeak: 'fr-fr', enabled: false },
    h: { language: 'hi-IN', espeak: 'hi', enabled: false },
    i: { language: 'it-IT', espeak: 'it', enabled: false },
    p: { language: 'pt-BR', espeak: 'pt-br', enabled: false },
  },
);

export const kokoroLanguage = (voice: string) => KOKORO_LANGUAGES[voice[0]] ?? null;

export interface KokoroEngineOptions extends Omit<PiperPoolOptions, 'host'> {
  modelsDir: string;
  /** Silence between sentences within one call, seconds. */
  sentencePauseSeconds?: number;
}

export interface KokoroEngine extends Engine {
  readonly pool: PiperPool;
  refresh(): void;
}

interface KokoroFiles {
  modelPath: string;
  vocab: Record<string, number>;
  voices: Map<string, string>;
}

async function findFiles(modelsDir: string): Promise<KokoroFiles | null> {
  const dir = path.join(modelsDir, KOKORO_DIR);
  try {
    const vocab = (
      JSON.parse(await readFile(path.join(dir, 'vocab.json'), 'utf8')) as { vocab: Record<string, number> }
    ).vocab;
    await access(path.join(dir, KOKORO_MODEL));
    const names = await readdir(path.join(dir, 'voices')).catch(() => [] as string[]);
    const voices = new Map(
      names
        .filter((name) => /^[a-z]{2}_[a-z0-9_]+\.npy$/.test(name))
        .map((name) => [name.slice(0, -4), path.join(dir, 'voices', name)]),
    );
    return { modelPath: path.join(dir, KOKORO_MODEL), vocab, voices };
  } catch {
    return null;
  }
}

/** The phoneme words of one call with their times, from each token's predicted frames (the pads included). */
export function kokoroWords(
  sentences: ReadonlyArray<{ symbols: string[]; clauses: Array<{ start: number; end: number }> }>,
  frames: readonly (readonly number[])[],
  pauseSamples: number,
): EngineWord[] {
  const words: EngineWord[] = [];
  let sentenceStart = 0;
  sentences.forEach(({ symbols, clauses }, index) => {
    const durations = frames[index] ?? [];
    const seconds = (frame: number) => (sentenceStart + frame * KOKORO_HOP_SAMPLES) / KOKORO_SAMPLE_RATE;
    let frame = durations[0] ?? 0;
    let word: EngineWord | null = null;
    symbols.forEach((symbol, k) => {
      const length = durations[k + 1] ?? 0;
      if (/^[\s.,;:!?¡¿"“”()—…-]$/u.test(symbol)) {
        if (word) words.push(word);
        word = null;
      } else if (word) {
        word.text += symbol;
        word.end = seconds(frame + length);
      } else {
        word = { text: symbol, start: seconds(frame), end: seconds(frame + length), clause: clauses[k] };
      }
      frame += length;
    });
    if (word) words.push(word);
    sentenceStart += durations.reduce((a, b) => a + b, 0) * KOKORO_HOP_SAMPLES + pauseSamples;
  });
  for (const word of words) word.weight = Math.max(1, [...word.text].filter((char) => !/[ˈˌ]/u.test(char)).length);
  return words;
}

export function createKokoroEngine(options: KokoroEngineOptions): KokoroEngine {
  const pool = new PiperPool({
    // The model holds ~0.5 GiB loaded; a host that kept much more after a long sentence is replaced.
    maxRssBytes: 1200 * 1024 * 1024,
    maxIdle: 1,
    ...options,
    host: { path: path.join(__dirname, 'host'), engine: 'kokoro' },
  });
  let found: Promise<KokoroFiles | null> | undefined;
  const files = () => (found ??= findFiles(options.modelsDir));
  const styles = new Map<string, Promise<Float32Array>>();
  const style = (file: string) => {
    let loaded = styles.get(file);
    if (!loaded) {
      loaded = readFile(file).then(readNpyStyle);
      loaded.catch(() => styles.delete(file));
      styles.set(file, loaded);
    }
    return loaded;
  };
  const speakable = (voice: string) => kokoroLanguage(voice)?.enabled === true;

  return {
    name: kokoroEngine.name,
    license: kokoroEngine.license,
    // Speed is the model's own input (durations scale by 1/speed).
    capabilities: { rate: { min: 0.5, max: 2 } },
    pool,
    refresh() {
      found = undefined;
      styles.clear();
    },
    async available() {
      return (await which('espeak-ng')) !== null && (await files()) !== null;
    },
    async voices() {
      if (!(await which('espeak-ng'))) return [];
      return [...((await files())?.voices.keys() ?? [])].filter(speakable);
    },
    async hasVoice(voice) {
      return (await this.voices()).includes(voice);
    },
    async synthesize({ text, voice, rate = 1, outPath, signal }) {
      const found = await files();
      const file = found?.voices.get(voice);
      const language = kokoroLanguage(voice);
      if (!found || !file || !language?.enabled)
        throw new EngineError('kokoro', `voice ${JSON.stringify(voice)} is not installed`);
      if (!(rate > 0 && Number.isFinite(rate))) throw new EngineError('kokoro', `invalid rate ${rate}`);
      const voiceStyle = await style(file);
      const sentences: Array<{ symbols: string[]; clauses: Array<{ start: number; end: number }>; ids: number[] }> = [];
      let cursor = 0;
      for (const piece of splitText(text, MAX_PIECE_CHARS)) {
        const base = Math.max(cursor, text.indexOf(piece, cursor));
        cursor = base + piece.length;
        let phonemes: SentencePhonemes[];
        try {
          phonemes = await textToPhonemes(piece, { espeakVoice: language.espeak, signal });
        } catch (error) {
          throw new EngineError('kokoro', `phonemes: ${(error as Error).message}`);
        }
        for (const sentence of phonemes) {
          const { symbols, source } = kokoroSymbols(sentence.phonemes, found.vocab);
          // Under the token limit: a sentence longer than it (no punctuation in 250 characters) is cut.
          const kept = symbols.slice(0, KOKORO_MAX_TOKENS);
          if (!kept.some((symbol) => /[\p{L}]/u.test(symbol))) continue;
          sentences.push({
            symbols: kept,
            clauses: kept.map((_, index) => {
              const clause = sentence.clauses[source[index]];
              return { start: base + clause.start, end: base + clause.end };
            }),
            ids: [0, ...kept.map((symbol) => found.vocab[symbol]), 0],
          });
        }
      }
      if (sentences.length === 0) throw new EngineError('kokoro', 'nothing in the text to pronounce');
      const pauseSamples = Math.round((options.sentencePauseSeconds ?? 0) * KOKORO_SAMPLE_RATE);
      const request = {
        sentences: sentences.map(({ ids }) => ids),
        styles: sentences.map(({ symbols }) => styleRow(voiceStyle, symbols.length)),
        speed: rate,
        sampleRate: KOKORO_SAMPLE_RATE,
        outPath,
        pauseSamples,
      };
      let result: PiperResult;
      try {
        result = await pool.with(found.modelPath, (host) => host.synthesize(request, { signal }), signal);
      } catch (error) {
        if (signal?.aborted) throw new EngineError('kokoro', 'aborted');
        if (error instanceof PiperExit) throw new EngineError('kokoro', error.message);
        throw error;
      }
      if (!result.frames) return undefined;
      return { words: kokoroWords(sentences, result.frames, pauseSamples) };
    },
  };
}

export const kokoroEngine = describeEngine({
  name: 'kokoro',
  license: 'free',
  tier: 'high',
  wordTiming: true,
  licence:
    'Kokoro-82M (hexgrad, Apache-2.0), int8 ONNX export by kokoro-onnx (MIT). Runs with ONNX Runtime (MIT); phonemes by eSpeak NG (GPL-3.0-or-later).',
  discoverVoices: kokoroCatalogVoices,
  voiceFiles: { folder: path.join(KOKORO_DIR, 'voices'), file: /\.npy$/ },
  // As many hosts as the heavy queue has slots (half the render slots, engines/registry.ts): Kokoro renders
  // (~10x Piper's CPU per audio second) wait for a slot of that queue, never for one Piper and the classic
  // engines render in.
  create: ({ modelsDir, maxHosts, niceness, idleMs }) =>
    modelsDir
      ? createKokoroEngine({
          modelsDir,
          maxHosts: heavyRenderSlots(maxHosts ?? availableParallelism()),
          niceness,
          idleMs,
        })
      : null,
});
