import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { intakeSample } from '../audio/cloning/intake';
import {
  baseVoiceCandidates,
  buildVoiceProfile,
  type BuildVoiceProfileInput,
  type ClonedVoiceProfile,
  NEURAL_FLOOR,
} from '../audio/cloning/profile';
import { similarityScore } from '../audio/cloning/similarity';
import { analyseSpeaker } from '../audio/cloning/speaker';
import { findPremadeVoice } from '../engines/catalog';
import { createEngines, type EngineRegistry } from '../engines/registry';
import { defaultModelsDir } from '../lib/config';
import { cpuSeconds, realReferences, speak } from './cloning';

/**
 * What the choice of base voices costs and gives: each real reference is
 * cloned three ways in the same run: on the classic voices only (the clones
 * before neural voices came first), neural voices first (the service: the
 * classic voices only under NEURAL_FLOOR) and every voice competing on merit
 * (neuralFloor Infinity). Per reference: wall and CPU seconds, the chosen
 * base voice, the stored similarity and the similarity to held-out
 * recordings of the speaker (the clone reading a text nobody fitted on). The
 * fits take turns going first. `engines` needs the Piper voices (MODELS_DIR)
 * for the neural ones to take part.
 */
export async function cloneCostRows(
  dir: string,
  engines: EngineRegistry,
): Promise<{ rows: string[][]; clones: Map<string, ClonedVoiceProfile> }> {
  const rows: string[][] = [];
  const clones = new Map<string, ClonedVoiceProfile>();
  const fits: ReadonlyArray<[string, (pool: BuildVoiceProfileInput['candidates']) => Partial<BuildVoiceProfileInput>]> =
    [
      ['classic voices only (before)', (pool) => ({ candidates: pool?.filter((voice) => voice.quality !== 'neural') })],
      [`neural first, classic under ${NEURAL_FLOOR} (service)`, () => ({})],
      ['every voice competes', () => ({ neuralFloor: Infinity })],
    ];
  const totals = fits.map(() => [0, 0]);
  for (const [index, reference] of (await realReferences(dir)).entries()) {
    const normalized = path.join(dir, `${path.basename(reference.clonePath, '.wav')}-cost.wav`);
    const intake = await intakeSample(reference.clonePath, normalized);
    if (!intake.ok) continue;
    const [sample, heldOut] = [await analyseSpeaker(normalized), await analyseSpeaker(reference.heldOutPath)];
    const pool = await baseVoiceCandidates({ engines, language: reference.language });
    // Rotating which fit goes first, so warm engine processes and caches favour none.
    const order = fits.map((_, i) => (i + index) % fits.length);
    for (const fit of order) {
      const [label, options] = fits[fit];
      const [started, cpu] = [Date.now(), cpuSeconds()];
      const clone = await buildVoiceProfile({ sample, language: reference.language, engines, ...options(pool) });
      const [wall, cpuUsed] = [(Date.now() - started) / 1000, cpuSeconds() - cpu];
      if (fit === 1) clones.set(reference.name, clone);
      totals[fit][0] += wall;
      totals[fit][1] += cpuUsed;
      const spoken = await speak(findPremadeVoice(clone.baseVoiceId)!, reference.heldOutText, dir, clone, engines);
      rows.push([
        reference.name,
        label,
        `${wall.toFixed(1)} s`,
        `${cpuUsed.toFixed(1)} s`,
        `${clone.baseVoiceId} ${clone.semitones.toFixed(1)} st x${clone.rate}${clone.eq.length ? ' EQ' : ''}`,
        clone.similarity.toFixed(3),
        similarityScore(heldOut, spoken).toFixed(3),
      ]);
      process.stderr.write('c');
    }
  }
  for (const [fit, [label]] of fits.entries()) {
    const [wall, cpu] = totals[fit];
    const ratio = (value: number, before: number) => (before > 0 ? ` (${(value / before).toFixed(2)}x)` : '');
    rows.push([
      'all',
      label,
      `${wall.toFixed(1)} s${ratio(wall, totals[0][0])}`,
      `${cpu.toFixed(1)} s${ratio(cpu, totals[0][1])}`,
      '',
      '',
      '',
    ]);
  }
  return { rows, clones };
}

export const CLONE_COST_HEADER = [
  'reference',
  'fit',
  'wall',
  'CPU',
  'clone',
  'similarity (stored)',
  'similarity to held-out',
];

if (require.main === module) {
  (async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-clone-cost-'));
    try {
      const { table } = await import('./quality');
      const engines = createEngines({ modelsDir: process.env.MODELS_DIR ?? defaultModelsDir() });
      console.log(table(CLONE_COST_HEADER, (await cloneCostRows(dir, engines)).rows));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
