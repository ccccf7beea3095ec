import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { PremadeVoice } from '../catalog';
import { KOKORO_DIR, kokoroLanguage } from './index';

/** The catalog id a Kokoro voice style gets once installed (`af_heart` → `en-us-kokoro-heart`); null for an unknown language letter. */
export function kokoroVoiceId(engineVoice: string): string | null {
  const language = kokoroLanguage(engineVoice);
  if (!language) return null;
  return `${language.language.toLowerCase()}-kokoro-${engineVoice.slice(3).replace(/_/g, '-')}`.slice(0, 64);
}

/**
 * The Kokoro voices in MODELS_DIR/kokoro/voices as catalog entries (the kokoro engine's
 * `discoverVoices`): `af_heart.npy` is `en-us-kokoro-heart`, "Heart (Kokoro)", American English,
 * female (Kokoro's naming: language letter, gender letter, name). Voices of a language the engine
 * does not speak yet (kokoro/index.ts `KOKORO_LANGUAGES`) are listed too; the engine does not offer
 * them, so they stay hidden (the shipped Japanese styles).
 */
export async function kokoroCatalogVoices(
  modelsDir: string,
  known: { ids: Set<string>; engineVoices: ReadonlySet<string> },
): Promise<PremadeVoice[]> {
  const names = (await readdir(path.join(modelsDir, KOKORO_DIR, 'voices')).catch(() => [] as string[]))
    .filter((file) => /^[a-z][fm]_[a-z0-9_]+\.npy$/.test(file))
    .map((file) => file.slice(0, -4))
    .sort();
  const voices: PremadeVoice[] = [];
  for (const engineVoice of names) {
    const language = kokoroLanguage(engineVoice);
    if (!language || known.engineVoices.has(engineVoice)) continue;
    const rest = engineVoice.slice(3);
    const id = kokoroVoiceId(engineVoice)!;
    if (known.ids.has(id)) continue;
    known.ids.add(id);
    const display = rest.replace(/_/g, ' ').replace(/\b\w/g, (letter) => letter.toUpperCase());
    const gender = engineVoice[1] === 'f' ? 'female' : 'male';
    voices.push({
      id,
      name: `${display} (Kokoro)`,
      language: language.language,
      gender,
      description: `${language.language} ${gender} voice "${rest}" of Kokoro-82M, a StyleTTS 2 neural model: the most natural-sounding voices here, at about ten times Piper's CPU per second of audio.${language.enabled ? '' : ' Not offered yet: its language is not phonemized well enough here.'}`,
      engine: 'kokoro',
      engineVoice,
      license: 'free',
      quality: 'neural',
      licence:
        'Kokoro-82M (hexgrad, Apache-2.0) and its voice styles; int8 ONNX export by kokoro-onnx (MIT). Runs with ONNX Runtime (MIT); phonemes by eSpeak NG (GPL-3.0-or-later).',
    });
  }
  return voices;
}
