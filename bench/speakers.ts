import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeAudio } from '../audio/analysis';
import { analyseSpeakerSamples, type SpeakerProfile } from '../audio/cloning/speaker';
import { similarityScore } from '../audio/cloning/similarity';
import { concatAudio } from './cloning';

/**
 * Does the service's `similarity` tell speakers apart? Segments of ~6 s from
 * real recordings (asterisk prompts: Allison en, June fr, Carlo it;
 * pocketsphinx-testdata's LibriVox reader), scored pairwise: ROC AUC of
 * same-speaker pairs against different-speaker pairs (1 = every
 * same-speaker pair scores above every different-speaker pair, 0.5 = chance).
 */

const ASTERISK = '/usr/share/asterisk/sounds';
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const SEGMENTS = 5;
const PROMPTS_PER_SEGMENT = 4;

export async function speakerSegments(dir: string): Promise<Array<{ speaker: string; profile: SpeakerProfile }>> {
  const out: Array<{ speaker: string; profile: SpeakerProfile }> = [];
  const add = async (speaker: string, inputs: string[], format?: string) => {
    const wav = path.join(dir, `${speaker}-${out.length}.wav`);
    await concatAudio(inputs, wav, format);
    const decoded = await decodeAudio(wav);
    out.push({ speaker, profile: analyseSpeakerSamples(decoded.samples, decoded.sampleRate) });
  };
  for (const folder of ['en_US_f_Allison', 'fr_CA_f_June', 'it_IT_m_Carlo']) {
    const root = path.join(ASTERISK, folder);
    if (!existsSync(root)) continue;
    // Longer prompts first (vm-*, conf-*): sorted names, top-level only.
    const prompts = (await readdir(root)).filter((name) => /^(vm|conf|queue|pbx|privacy)-.*\.g722$/.test(name)).sort();
    for (let s = 0; s < SEGMENTS; s++) {
      const chosen = prompts
        .slice(s * PROMPTS_PER_SEGMENT, (s + 1) * PROMPTS_PER_SEGMENT)
        .map((name) => path.join(root, name));
      if (chosen.length === PROMPTS_PER_SEGMENT) await add(folder, chosen, 'g722');
    }
  }
  if (existsSync(LIBRIVOX)) {
    for (const file of (await readdir(LIBRIVOX)).filter((name) => name.endsWith('.wav')))
      await add('librivox', [path.join(LIBRIVOX, file)]);
  }
  return out;
}

/** ROC AUC: the probability that a random same-speaker pair scores above a random different-speaker pair (ties count half). */
export function rocAuc(same: readonly number[], different: readonly number[]): number {
  let wins = 0;
  for (const s of same) for (const d of different) wins += s > d ? 1 : s === d ? 0.5 : 0;
  return wins / (same.length * different.length);
}

export async function speakerTable(
  dir: string,
  score: (a: SpeakerProfile, b: SpeakerProfile) => number = similarityScore,
): Promise<string> {
  const segments = await speakerSegments(dir);
  if (new Set(segments.map((s) => s.speaker)).size < 2)
    return 'speaker AUC: needs asterisk-core-sounds-*-g722 / pocketsphinx-testdata installed';
  const same: number[] = [];
  const different: number[] = [];
  for (let i = 0; i < segments.length; i++) {
    for (let j = i + 1; j < segments.length; j++) {
      (segments[i].speaker === segments[j].speaker ? same : different).push(
        score(segments[i].profile, segments[j].profile),
      );
    }
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return (
    `similarity on real speech: ${segments.length} segments of ${new Set(segments.map((s) => s.speaker)).size} speakers; ` +
    `same-speaker pairs ${same.length} (mean ${mean(same).toFixed(3)}), different-speaker pairs ${different.length} (mean ${mean(different).toFixed(3)}); ROC AUC ${rocAuc(same, different).toFixed(3)}`
  );
}

if (require.main === module) {
  void import('node:fs/promises').then(async ({ mkdtemp, rm }) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-speakers-'));
    try {
      console.log(await speakerTable(dir));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}
