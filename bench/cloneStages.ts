import path from 'node:path';
import { buildVoiceProfile, cloneFinishOptions, type ClonedVoiceProfile } from '../audio/cloning/profile';
import { intakeSample } from '../audio/cloning/intake';
import { analyseSpeaker } from '../audio/cloning/speaker';
import { similarityScore } from '../audio/cloning/similarity';
import { finishAudio, type VoiceProfileAdjustment } from '../audio/finish';
import { renderChunk } from '../audio/render';
import { findPremadeVoice } from '../engines/catalog';
import type { EngineRegistry } from '../engines/registry';
import { realReferences } from './cloning';
import { hear, melCepstralDistortion, wordErrors } from './measures';

/**
 * Clones measured stage by stage: each real reference is cloned (intake →
 * profile → buildVoiceProfile), then its base voice reads the held-out text
 * plain, with the pitch shift, with pitch and EQ, and with everything (the
 * tempo too). Per stage: similarity to held-out recordings of the speaker,
 * F0 error against them, MCD against the plain base rendering (what the
 * stage costs in sound) and pocketsphinx WER (English only).
 */
export async function cloneStageRows(
  dir: string,
  engines: EngineRegistry,
  clones?: ReadonlyMap<string, ClonedVoiceProfile>,
): Promise<string[][]> {
  const rows: string[][] = [];
  for (const reference of await realReferences(dir)) {
    const normalized = path.join(dir, `${path.basename(reference.clonePath, '.wav')}-intake.wav`);
    const intake = await intakeSample(reference.clonePath, normalized);
    if (!intake.ok) continue;
    const sample = await analyseSpeaker(normalized);
    // The service's clone of this reference when the caller made it already (bench:quality's cost section).
    const clone =
      clones?.get(reference.name) ?? (await buildVoiceProfile({ sample, language: reference.language, engines }));
    const heldOut = await analyseSpeaker(reference.heldOutPath);
    const voice = findPremadeVoice(clone.baseVoiceId)!;
    const full = cloneFinishOptions(clone);
    const stages: Array<[string, number, VoiceProfileAdjustment | undefined]> = [
      ['base voice', 1, undefined],
      ['+ pitch', 1, { semitones: clone.semitones }],
      ['+ pitch + EQ', 1, { semitones: clone.semitones, eq: clone.eq }],
      ['+ pitch + EQ + tempo (service)', full.speed, full.profile],
    ];
    let basePath = '';
    for (const [stage, speed, profile] of stages) {
      const chunk = path.join(dir, `stage-${rows.length}.wav`);
      const outPath = path.join(dir, `stage-${rows.length}-out.wav`);
      await renderChunk({
        voice,
        text: reference.heldOutText,
        speed,
        emotion: 'neutral',
        profile,
        outPath: chunk,
        engines,
      });
      await finishAudio({ chunks: [chunk], speed, pitch: 0, emotion: 'neutral', profile, format: 'wav', outPath });
      if (!basePath) basePath = outPath;
      const measured = await analyseSpeaker(outPath);
      const f0Error = measured.f0MedianHz && heldOut.f0MedianHz ? measured.f0MedianHz / heldOut.f0MedianHz - 1 : NaN;
      let wer = '-';
      if (reference.language.startsWith('en')) {
        const heard = await hear(outPath);
        if (heard !== null) {
          const errors = wordErrors(reference.heldOutText, heard);
          wer = `${((100 * errors.errors) / errors.words).toFixed(1)} %`;
        }
      }
      rows.push([
        reference.name,
        `${stage}${stage === 'base voice' ? ` (${clone.baseVoiceId})` : ''}`,
        similarityScore(heldOut, measured).toFixed(3),
        `${(100 * f0Error).toFixed(1)} %`,
        (await melCepstralDistortion(basePath, outPath)).toFixed(2),
        wer,
      ]);
      process.stderr.write('+');
    }
  }
  return rows;
}
