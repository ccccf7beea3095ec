import { createEspeakEngine } from './espeak';
import { createFestivalEngine } from './festival';
import { createFliteEngine } from './flite';
import { createPiperEngine } from './piper';
import { createPicoEngine } from './pico';
import { createRhvoiceEngine } from './rhvoice';
import { type Engine, EngineError, type EngineName } from './types';

export interface EngineOptions {
  /**
   * Operator opt-in (`ENABLE_NONFREE_ENGINES`) for the engines Debian ships in
   * non-free: SVOX Pico and RHVoice. Off by default.
   */
  enableNonFree?: boolean;
  /**
   * MODELS_DIR: the Piper voices (`*.onnx` + `*.onnx.json`) the piper engine
   * offers. Without it there is no piper engine (tests of the classic engines).
   */
  modelsDir?: string;
  /** Piper processes at once (SYNTHESIS_CONCURRENCY: one per render slot); default the cores. */
  piperMaxHosts?: number;
}

/** The engines this process may use, by name. Create one per process: adapters cache what they probe. */
export type EngineRegistry = ReadonlyMap<EngineName, Engine>;

export function createEngines(options: EngineOptions = {}): EngineRegistry {
  const engines: Engine[] = [createEspeakEngine(), createFliteEngine(), createFestivalEngine()];
  if (options.modelsDir) engines.push(createPiperEngine({ modelsDir: options.modelsDir, maxHosts: options.piperMaxHosts }));
  if (options.enableNonFree) engines.push(createPicoEngine(), createRhvoiceEngine());
  return new Map(engines.map((engine) => [engine.name, engine]));
}

/** The named engine, or an EngineError when it is not enabled in this registry. */
export function getEngine(engines: EngineRegistry, name: EngineName): Engine {
  const engine = engines.get(name);
  if (!engine) throw new EngineError(name, 'engine not enabled (non-free engines need ENABLE_NONFREE_ENGINES=true)');
  return engine;
}

const shared = new Map<string, EngineRegistry>();

/**
 * A process-wide registry per set of options, so voice lists and installation
 * checks are probed once and Piper's kept processes are shared.
 */
export function sharedEngines(options: EngineOptions = {}): EngineRegistry {
  const key = JSON.stringify([Boolean(options.enableNonFree), options.modelsDir ?? null, options.piperMaxHosts ?? null]);
  let engines = shared.get(key);
  if (!engines) {
    engines = createEngines(options);
    shared.set(key, engines);
  }
  return engines;
}
