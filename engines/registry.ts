import { espeakEngine } from './espeak';
import { festivalEngine } from './festival';
import { fliteEngine } from './flite';
import { kokoroEngine } from './kokoro';
import { piperEngine } from './piper';
import { picoEngine } from './pico';
import { rhvoiceEngine } from './rhvoice';
import { type Engine, EngineError } from './types';

/**
 * Every engine this service knows, one line each (its folder or file exports
 * its description, engines/types.ts `EngineDescription`). The catalog reads
 * their licence, quality tier and voice discovery from here.
 */
export const ENGINES = [
  espeakEngine,
  fliteEngine,
  festivalEngine,
  piperEngine,
  kokoroEngine,
  picoEngine,
  rhvoiceEngine,
] as const;

export type EngineName = (typeof ENGINES)[number]['name'];

/** The engines that report when each word is spoken: only their voices' syntheses have word timestamps. */
export const WORD_TIMING_ENGINES: ReadonlySet<string> = new Set(
  ENGINES.filter((description) => 'wordTiming' in description && description.wordTiming).map(
    (description) => description.name,
  ),
);

/**
 * The `high`-tier engines (Kokoro): their renders run on a task queue of their own with fewer slots
 * (synthesis/contracts.ts `heavyTaskQueue`, worker/create.ts), so they never hold Piper's and the classic engines'.
 */
export const HEAVY_ENGINES: ReadonlySet<string> = new Set(
  ENGINES.filter((description) => description.tier === 'high').map((description) => description.name),
);

export interface EngineOptions {
  /**
   * Operator opt-in (`ENABLE_NONFREE_ENGINES`) for the engines Debian ships in
   * non-free: SVOX Pico and RHVoice. Off by default.
   */
  enableNonFree?: boolean;
  /**
   * MODELS_DIR: the model files of the neural engines (Piper's `*.onnx` +
   * `*.onnx.json`). Without it there is no neural engine (tests of the classic engines).
   */
  modelsDir?: string;
  /** Kept processes at once per pooled engine (SYNTHESIS_CONCURRENCY: one per render slot); default the cores. */
  maxHosts?: number;
  /**
   * The `nice` value of every process the engines start: a registry for background work (a book's renders,
   * worker/main.ts) runs below the service's requests. Such a registry keeps processes of its own.
   */
  niceness?: number;
  /**
   * How long the last idle model process of a pooled engine (Piper, Kokoro) stays warm for the next request
   * (default 5 minutes): a registry for background work lets its ~330 MiB processes go sooner.
   */
  idleMs?: number;
}

/** The engines this process may use, by name. Create one per process: adapters cache what they probe. */
export type EngineRegistry = ReadonlyMap<EngineName, Engine>;

export function createEngines(options: EngineOptions = {}): EngineRegistry {
  const engines = new Map<EngineName, Engine>();
  for (const description of ENGINES) {
    if (description.license === 'non-free' && !options.enableNonFree) continue;
    const engine = description.create(options);
    if (engine) engines.set(description.name, engine);
  }
  return engines;
}

/** The description of the named engine (its licence, quality tier, voice discovery). */
export function describedEngine(name: EngineName): (typeof ENGINES)[number] {
  return ENGINES.find((description) => description.name === name)!;
}

/** The named engine, or an EngineError when it is not enabled in this registry. */
export function getEngine(engines: EngineRegistry, name: EngineName): Engine {
  const engine = engines.get(name);
  if (!engine) throw new EngineError(name, 'engine not enabled (non-free engines need ENABLE_NONFREE_ENGINES=true)');
  return engine;
}

const shared = new Map<string, EngineRegistry>();

/** The options that tell registries apart: the set ones, by name (absent and false are the default). */
const optionsKey = (options: EngineOptions) =>
  JSON.stringify(
    Object.entries(options)
      .filter(([, value]) => value !== undefined && value !== null && value !== false)
      .sort(([a], [b]) => a.localeCompare(b)),
  );

/**
 * A process-wide registry per set of options, so voice lists and installation
 * checks are probed once and the kept processes are shared.
 */
export function sharedEngines(options: EngineOptions = {}): EngineRegistry {
  const key = optionsKey(options);
  let engines = shared.get(key);
  if (!engines) {
    engines = createEngines(options);
    shared.set(key, engines);
  }
  return engines;
}
