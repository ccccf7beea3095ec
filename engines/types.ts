/**
 * The contract every speech engine adapter fulfils. An adapter is a thin
 * wrapper around one Debian command-line synthesizer (Piper: kept ONNX
 * Runtime processes, engines/piper/): it spawns the program
 * with an argument array (never a shell string), hands it the text through a
 * temporary file or stdin (never as an argument, which could start with `-`),
 * and writes a WAV file to `outPath`.
 */

import type { PremadeVoice } from './catalog';
import type { EngineOptions } from './registry';

export type { EngineName } from './registry';

export type License = 'free' | 'non-free';

/**
 * How good an engine's voices sound, best last: `classic` (formant, diphone,
 * unit selection, HMM), `neural` (a trained model, Piper), `high` (a larger
 * neural model, Kokoro). The catalog puts higher tiers first; clients see
 * `neural` for both neural tiers.
 */
export type QualityTier = 'classic' | 'neural' | 'high';

/**
 * Render slots for the `high` tier (the heavy task queue's worker, and Kokoro's hosts): half of the render slots
 * (SYNTHESIS_CONCURRENCY, or the cores), at least one.
 */
export const heavyRenderSlots = (renderSlots: number) => Math.max(1, Math.floor(renderSlots / 2));

/**
 * What an engine says about itself, without running anything: the catalog
 * (pure data, the database seed imports it) and the registry read it. Adding
 * an engine is its folder, exporting one of these, plus its line in
 * engines/registry.ts.
 */
export interface EngineDescription<Name extends string = string> {
  readonly name: Name;
  /** `non-free`: only created when the operator enables non-free engines (ENABLE_NONFREE_ENGINES). */
  readonly license: License;
  readonly tier: QualityTier;
  /** The licence facts of the engine and its voice data, as shown to clients for its catalog voices. */
  readonly licence: string;
  /** Its synthesize() answers EngineTiming, so its voices' syntheses have word timestamps (the voice object's `word_timestamps`). */
  readonly wordTiming?: boolean;
  /**
   * The voices an operator installed for it (MODELS_DIR), as catalog entries, for
   * engines whose voices are files rather than a package. `known`: ids and engine
   * voice names the catalog already has (skip those; add the ids you take).
   */
  discoverVoices?(
    modelsDir: string,
    known: { ids: Set<string>; engineVoices: ReadonlySet<string> },
  ): Promise<PremadeVoice[]>;
  /**
   * Where in MODELS_DIR its voices' files are (`folder` relative to it, `.` for MODELS_DIR itself) and
   * which files they are: the worker watches them, so voices installed while it runs join the catalog.
   */
  voiceFiles?: { folder: string; file: RegExp };
  /** The engine for these options, or null when they do not enable it (e.g. no MODELS_DIR). */
  create(options: EngineOptions): Engine | null;
}

/** Keeps a description's name a literal type (the registry derives `EngineName` from them). */
export function describeEngine<const Name extends string>(
  description: EngineDescription<Name>,
): EngineDescription<Name> {
  return description;
}

/** Prosody controls the engine has natively; the rest is done by ffmpeg afterwards. */
export interface EngineCapabilities {
  /**
   * Speaking-rate factors (1 = the voice's normal rate) the engine renders
   * natively, or null when it has no rate control. Engine-native rate sounds
   * better than a time stretch, so callers use it within these limits.
   */
  rate: { min: number; max: number } | null;
  /**
   * The rate control is calibrated: rate r gives 1/r of the duration (within
   * 1-2 %: Piper's length_scale through engines/piper/speed.ts, Flite's
   * duration_stretch). Without it renderChunk measures what the engine gave
   * and stretches the residual.
   */
  exactRate?: boolean;
  /**
   * Pitch shifts in semitones the engine renders natively (its own intonation
   * model moved, no signal processing), or absent. Measured to be within
   * about 1 semitone of the request; the rest is a formant-preserving shift.
   */
  pitch?: { min: number; max: number; /** Only these voices (all when absent). */ voices?: readonly string[] };
}

/** The native pitch range of `voice`, or null when the engine cannot shift it. */
export function enginePitchRange(capabilities: EngineCapabilities, voice: string): { min: number; max: number } | null {
  const range = capabilities.pitch;
  if (!range || (range.voices && !range.voices.includes(voice))) return null;
  return range;
}

interface SynthesisRequest {
  /** Plain text to speak; the adapter escapes whatever its engine would interpret. */
  text: string;
  /** The engine's own voice name, e.g. `en-us+f3` or `cmu_us_slt_arctic_hts`. */
  voice: string;
  /** Speaking-rate factor within `capabilities.rate`; 1 when omitted. */
  rate?: number;
  /** Pitch shift in semitones within `capabilities.pitch`; 0 when omitted. */
  pitch?: number;
  /** Absolute path of the WAV file to write (the engine's native sample rate). */
  outPath: string;
  /**
   * Stretches of `text` (UTF-16 offsets, end exclusive) to say as the given
   * IPA (validated by text/ipa): engines that take phonemes (Piper, eSpeak)
   * say them so; the others read the text of the stretch.
   */
  pronunciations?: ReadonlyArray<{ ipa: string; start: number; end: number }>;
  /** Aborts the engine process (e.g. a canceled activity). */
  signal?: AbortSignal;
}

export interface Engine {
  /** Its description's name (engines/registry.ts keys the engines by that). */
  readonly name: string;
  readonly license: License;
  readonly capabilities: EngineCapabilities;
  /** True when the engine's program is installed (cached after the first call). */
  available(): Promise<boolean>;
  /** The engine voice names installed on this machine (cached after the first call). */
  voices(): Promise<string[]>;
  /** Whether `voice` (an engine voice name as the catalog spells it) can render here. */
  hasVoice(voice: string): Promise<boolean>;
  /**
   * Forgets what it found on disk, so the next `voices()` looks again: engines
   * whose voices an operator adds or removes while the service runs (Piper's
   * MODELS_DIR). Engines whose voices come with their package have none.
   */
  refresh?(): void;
  /** Writes the WAV; engines that know their timing also say when each word is spoken. */
  synthesize(request: SynthesisRequest): Promise<EngineTiming | void>;
}

/**
 * A word as the engine spoke it, with its time in the WAV it wrote (seconds
 * from the file's start). `text` is the engine's own word (Festival's word,
 * Piper's phonetic word); `weight` its length in the engine's units when that
 * is not its letter count (phonemes), for aligning it to the text's words.
 */
export interface EngineWord {
  text: string;
  start: number;
  end: number;
  weight?: number;
  /** The engine's token this word was said for (Festival: "42" says "forty" "two"): words of one token align as one. */
  token?: { index: number; text: string };
  /** Where in the request's text the clause this word belongs to lies (UTF-16 offsets): alignment stays within it. */
  clause?: { start: number; end: number };
}

export interface EngineTiming {
  words: EngineWord[];
}

/** An engine failed to produce audio. The message names the engine, never the text. */
export class EngineError extends Error {
  override name = 'EngineError';
  constructor(
    readonly engine: string,
    message: string,
  ) {
    super(`${engine}: ${message}`);
  }
}
