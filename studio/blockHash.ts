import { createHash } from 'node:crypto';

/**
 * What a rendered block's audio depends on, hashed: a block whose hash is
 * unchanged since its last render keeps its audio; any change (its text,
 * a voice, the speed, the normalization, the dictionary, the engine's model)
 * renders it again. The JSON is canonical (keys sorted, fixed field set),
 * so the same inputs hash the same on every machine and in every order of
 * writing.
 */
export interface BlockRenderInputs {
  text: string;
  /** The voice id of each segment, in order (one for a block read by one voice). */
  voices: readonly string[];
  speed: number;
  textNormalization: string;
  /** The pronunciation dictionary's version or content hash; null without one. */
  dictionaryVersion: string | null;
  /** The engine and model that render the voice (e.g. `piper:en_US-joe-medium@1.0.0`). */
  engineModel: string;
}

export function blockContentHash(inputs: BlockRenderInputs): string {
  const canonical = canonicalJson({
    dictionaryVersion: inputs.dictionaryVersion,
    engineModel: inputs.engineModel,
    speed: inputs.speed,
    text: inputs.text.normalize('NFC'),
    textNormalization: inputs.textNormalization,
    voices: [...inputs.voices],
  });
  return createHash('sha256').update(canonical).digest('hex');
}

/** JSON with object keys sorted at every depth. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
