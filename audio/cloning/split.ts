import { ANALYSIS_RATE, decodeAudio } from '../analysis';
import { clamp } from './dsp';
import { analyseSpeakerSamples, type SpeakerProfile } from './speaker';
import { readPcm16Wav } from './speech';

/**
 * A sample split in two for held-out scoring: the base voice's adjustment is
 * fitted on one half, and every candidate is scored on the other, which the
 * fit never saw. The halves interleave: the sample is cut into blocks of an
 * eighth of its length (0.75-1.5 s), each cut moved to the quietest 10 ms
 * within a quarter block of it, and the blocks go alternately to the fit and
 * to the held-out half. Interleaved, and finely: a reader's median pitch
 * moves by 2-3 semitones between passages of a few seconds (the LibriVox
 * reader's two halves were 108 and 90 Hz with 4 s blocks), and a fit aimed
 * at one passage's intonation then scores low on the other for a reason
 * that is not the voice; with ~1 s blocks both halves hold every passage
 * and every take. Each block is faded in and out over 5 ms so that the
 * joins add no clicks.
 */

export interface SampleHalves {
  /** The whole sample (its median F0 gives the clone's gender). */
  whole: SpeakerProfile;
  /** What the pitch shift, EQ and tempo are fitted on. */
  fit: SpeakerProfile;
  /** What every candidate is scored on; the `whole` profile when the sample is too short to split (see `split`). */
  heldOut: SpeakerProfile;
  /** False when a half would hold under MIN_HALF_VOICED_SECONDS of voiced speech: then both are the whole sample. */
  split: boolean;
}

/** Each half needs this much voiced speech for its median F0 and spectrum to mean anything. */
export const MIN_HALF_VOICED_SECONDS = 0.5;

const FADE_SECONDS = 0.005;

/** Block boundaries (sample indices, first 0, last samples.length), each cut at the quietest 10 ms frame near its ideal place. */
export function blockBoundaries(samples: Float32Array, sampleRate: number): number[] {
  const seconds = samples.length / sampleRate;
  const block = clamp(seconds / 8, 0.75, 1.5);
  const count = Math.max(2, Math.round(seconds / block));
  const frame = Math.round(sampleRate * 0.01);
  const frameEnergy = (start: number) => {
    let energy = 0;
    for (let i = start; i < Math.min(start + frame, samples.length); i++) energy += samples[i] * samples[i];
    return energy;
  };
  const bounds = [0];
  for (let k = 1; k < count; k++) {
    const ideal = Math.round((k * samples.length) / count);
    const reach = Math.round((samples.length / count / 4 / frame) * frame);
    let best = ideal;
    let bestEnergy = Infinity;
    for (let start = Math.max(bounds[k - 1] + frame, ideal - reach); start <= ideal + reach; start += frame) {
      if (start + frame > samples.length) break;
      const energy = frameEnergy(start);
      if (energy < bestEnergy) [best, bestEnergy] = [start + Math.floor(frame / 2), energy];
    }
    bounds.push(best);
  }
  bounds.push(samples.length);
  return bounds;
}

/** The two interleaved halves of `samples`: even blocks to `fit`, odd blocks to `heldOut`. */
export function splitSamples(samples: Float32Array, sampleRate: number): { fit: Float32Array; heldOut: Float32Array } {
  const bounds = blockBoundaries(samples, sampleRate);
  const fade = Math.round(sampleRate * FADE_SECONDS);
  const halves: Float32Array[][] = [[], []];
  for (let b = 0; b + 1 < bounds.length; b++) {
    const piece = samples.slice(bounds[b], bounds[b + 1]);
    for (let i = 0; i < Math.min(fade, piece.length); i++) {
      piece[i] *= i / fade;
      piece[piece.length - 1 - i] *= i / fade;
    }
    halves[b % 2].push(piece);
  }
  const join = (pieces: Float32Array[]) => {
    const out = new Float32Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
    let offset = 0;
    for (const piece of pieces) {
      out.set(piece, offset);
      offset += piece.length;
    }
    return out;
  };
  return { fit: join(halves[0]), heldOut: join(halves[1]) };
}

/** The profiles of the whole sample and of its two halves (16 kHz mono WAV as intake writes it, or anything ffmpeg decodes). */
export async function analyseSampleHalves(wavPath: string, signal?: AbortSignal): Promise<SampleHalves> {
  const direct = await readPcm16Wav(wavPath);
  const { samples, sampleRate } =
    direct && direct.channels === 1 && direct.sampleRate === ANALYSIS_RATE
      ? direct
      : await decodeAudio(wavPath, { signal });
  return profileHalves(samples, sampleRate);
}

/** analyseSampleHalves on decoded samples (16 kHz expected). */
export function profileHalves(samples: Float32Array, sampleRate: number): SampleHalves {
  const whole = analyseSpeakerSamples(samples, sampleRate);
  const { fit, heldOut } = splitSamples(samples, sampleRate);
  const [fitProfile, heldOutProfile] = [
    analyseSpeakerSamples(fit, sampleRate),
    analyseSpeakerSamples(heldOut, sampleRate),
  ];
  const enough = (profile: SpeakerProfile) =>
    profile.voicedSeconds >= MIN_HALF_VOICED_SECONDS && profile.f0MedianHz !== null;
  if (!enough(fitProfile) || !enough(heldOutProfile)) return { whole, fit: whole, heldOut: whole, split: false };
  return { whole, fit: fitProfile, heldOut: heldOutProfile, split: true };
}
