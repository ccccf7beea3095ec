import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { intakeSample } from '../audio/cloning/intake';
import { buildVoiceProfile, type ClonedVoiceProfile, STAGED_CANDIDATES } from '../audio/cloning/profile';
import { similarityScore } from '../audio/cloning/similarity';
import { analyseSpeaker } from '../audio/cloning/speaker';
import { findPremadeVoice } from '../engines/catalog';
import { createEngines, type EngineRegistry } from '../engines/registry';
import { cpuSeconds, realReferences, speak } from './cloning';

/**
 * What the stage-by-stage fit costs: each real reference is cloned twice in
 * the same run, every base voice tried stage by stage (the service before)
 * and only the leading STAGED_CANDIDATES after the single-stage score
 * (the service now). Per reference: wall and CPU seconds, the chosen base
 * voice, the stored similarity and the similarity to held-out recordings of
 * the speaker (the clone reading a text nobody fitted on). The two fits take
 * turns going first.
 */
export async function cloneCostRows(dir: string, engines: EngineRegistry): Promise<{ rows: string[][]; clones: Map<string, ClonedVoiceProfile> }> {
  const rows: string[][] = [];
  const clones = new Map<string, ClonedVoiceProfile>();
  const totals = { before: [0, 0], after: [0, 0] };
  for (const [index, reference] of (await realReferences(dir)).entries()) {
    const normalized = path.join(dir, `${path.basename(reference.clonePath, '.wav')}-cost.wav`);
    const intake = await intakeSample(reference.clonePath, normalized);
    if (!intake.ok) continue;
    const [sample, heldOut] = [await analyseSpeaker(normalized), await analyseSpeaker(reference.heldOutPath)];
    const fits = [
      ['before: all staged', Infinity],
      [`after: top ${STAGED_CANDIDATES} staged`, STAGED_CANDIDATES],
    ] as const;
    // Alternating which fit goes first, so warm engine processes and caches favour neither.
    for (const [label, stagedCandidates] of index % 2 ? [...fits].reverse() : fits) {
      const [started, cpu] = [Date.now(), cpuSeconds()];
      const clone = await buildVoiceProfile({ sample, language: reference.language, engines, stagedCandidates });
      const [wall, cpuUsed] = [(Date.now() - started) / 1000, cpuSeconds() - cpu];
      if (stagedCandidates === STAGED_CANDIDATES) clones.set(reference.name, clone);
      const total = totals[label.startsWith('before') ? 'before' : 'after'];
      total[0] += wall;
      total[1] += cpuUsed;
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
  rows.push([
    'all',
    'before / after',
    `${totals.before[0].toFixed(1)} / ${totals.after[0].toFixed(1)} s (${(totals.after[0] / totals.before[0]).toFixed(2)}x)`,
    `${totals.before[1].toFixed(1)} / ${totals.after[1].toFixed(1)} s (${(totals.after[1] / totals.before[1]).toFixed(2)}x)`,
    '',
    '',
    '',
  ]);
  return { rows, clones };
}

export const CLONE_COST_HEADER = ['reference', 'fit', 'wall', 'CPU', 'clone', 'similarity (stored)', 'similarity to held-out'];

if (require.main === module) {
  (async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-clone-cost-'));
    try {
      const { table } = await import('./quality');
      console.log(table(CLONE_COST_HEADER, (await cloneCostRows(dir, createEngines())).rows));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
