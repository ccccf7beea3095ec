import { PREMADE_VOICES } from './builtInVoices';
import { describedEngine, ENGINES, type EngineOptions, type EngineRegistry, sharedEngines } from './registry';
import type { EngineName, License, QualityTier } from './types';

export { PREMADE_VOICES } from './builtInVoices';

/**
 * The premade voice catalog: every voice the service offers without cloning.
 * Pure data (the database seed imports it); `availableVoices()` narrows it to
 * what this machine can render. The built-in voices are engines/builtInVoices.ts;
 * engines whose voices are files an operator installs (MODELS_DIR) add theirs
 * (their description's `discoverVoices`). The served catalog (`premadeVoices`)
 * goes by the engines' quality tier, best first: every neural voice, the
 * operator's installed ones too, before the classic ones. Nothing here names
 * an engine: what differs between engines is in their descriptions
 * (engines/registry.ts).
 */

export interface PremadeVoice {
  /** Stable, readable, lower case: `<language>-<region>-<engine>-<voice>`; never reused. */
  id: string;
  name: string;
  /** BCP 47, e.g. `en-US`. */
  language: string;
  /** `unknown` only for an operator's voice whose sidecar does not say. */
  gender: 'female' | 'male' | 'unknown';
  description: string;
  engine: EngineName;
  /** The engine's own voice name. */
  engineVoice: string;
  /** Whether the operator must opt in (non-free engines, ENABLE_NONFREE_ENGINES). */
  license: License;
  /**
   * `neural` (a trained model: its engine's tier is `neural` or `high`) or
   * `classic` (formant, diphone, unit selection, HMM). Every catalog entry
   * has it and `licence`; a voice read back for rendering needs neither.
   */
  quality?: 'neural' | 'classic';
  /** The licence facts of the engine and the voice's data, as shown to clients. */
  licence?: string;
}

/** The recommended English voice: neural, when its model is installed. */
export const RECOMMENDED_VOICE_ID = 'en-us-joe';
/** The English voice that always exists: its engine and voice are Debian packages the install always brings. */
export const FALLBACK_VOICE_ID = 'en-us-slt';

const byId = new Map(PREMADE_VOICES.map((entry) => [entry.id, entry]));

/** The premade voice with this id, or undefined. */
export function findPremadeVoice(id: string): PremadeVoice | undefined {
  return byId.get(id);
}

/**
 * As the built-in catalog: American English, other English, then by language tag; within a language by the
 * model's file name (a multi-speaker model's speakers keep their order: the sidecar's, or by id).
 */
const languageRank = (language: string) => (language === 'en-US' ? 0 : language.startsWith('en') ? 1 : 2);
const modelOf = (voice: PremadeVoice) => voice.engineVoice.split('#')[0];
const byLanguageThenName = (a: PremadeVoice, b: PremadeVoice) =>
  languageRank(a.language) - languageRank(b.language) ||
  a.language.localeCompare(b.language) ||
  modelOf(a).localeCompare(modelOf(b));

/** Quality tiers, best first: the served catalog's order. */
const TIERS: readonly QualityTier[] = ['high', 'neural', 'classic'];

/**
 * The whole catalog of this server, best quality tier first (a newcomer's
 * first pick, and the first voice of each language, is neural where one is
 * installed): per tier, the built-in voices in catalog order, then the voices
 * its engines find in `modelsDir` (English first, then by language tag).
 */
export async function premadeVoices(modelsDir?: string): Promise<PremadeVoice[]> {
  const ids = new Set(PREMADE_VOICES.map((entry) => entry.id));
  const discovered = new Map<QualityTier, PremadeVoice[]>();
  if (modelsDir) {
    for (const description of ENGINES) {
      if (!description.discoverVoices) continue;
      const engineVoices = new Set(
        PREMADE_VOICES.filter((entry) => entry.engine === description.name).map((entry) => entry.engineVoice),
      );
      const found = await description.discoverVoices(modelsDir, { ids, engineVoices });
      discovered.set(description.tier, [...(discovered.get(description.tier) ?? []), ...found]);
    }
  }
  const tierOf = (engine: EngineName) => describedEngine(engine).tier;
  return TIERS.flatMap((tier) => [
    ...PREMADE_VOICES.filter((entry) => tierOf(entry.engine) === tier),
    ...(discovered.get(tier) ?? []).sort(byLanguageThenName),
  ]);
}

/**
 * The catalog voices this process can render: their engine is enabled
 * (non-free ones only with `enableNonFree`), installed, and has the voice.
 * Catalog order is kept; the operator's voices in `modelsDir` are included.
 */
export async function availableVoices(
  options: EngineOptions & { engines?: EngineRegistry } = {},
): Promise<PremadeVoice[]> {
  const engines = options.engines ?? sharedEngines(options);
  const catalog = await premadeVoices(options.modelsDir);
  const usable = await Promise.all(
    catalog.map(async (entry) => {
      const engine = engines.get(entry.engine);
      return Boolean(engine && (await engine.available()) && (await engine.hasVoice(entry.engineVoice)));
    }),
  );
  return catalog.filter((_, index) => usable[index]);
}
