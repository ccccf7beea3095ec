import {
  ADJUSTMENT_MARGIN,
  type Adjustment,
  buildVoiceProfile,
  chooseCandidate,
  NEURAL_FLOOR,
  rankCandidates,
} from '../../audio/cloning/profile';
import { similarityScore } from '../../audio/cloning/similarity';
import { LTAS_CENTERS_HZ, type SpeakerProfile } from '../../audio/cloning/speaker';
import { blockBoundaries, profileHalves, splitSamples } from '../../audio/cloning/split';
import { calibrationText, similarityText } from '../../audio/cloning/texts';
import { findPremadeVoice, type PremadeVoice } from '../../engines/catalog';

/**
 * Choosing on held-out speech, with the rendering, finishing and analysis mocked: a voice "renders" to a profile,
 * an adjustment moves that profile (pitch to F0, EQ to the LTAS, tempo to the rate), and the analysis reads it back.
 */

const RATE = 16_000;

function profile(f0: number, tiltDb = 0, rate = 4.5): SpeakerProfile {
  return {
    version: 1,
    durationSeconds: 6,
    speechSeconds: 5,
    voicedSeconds: 3,
    f0MedianHz: f0,
    f0StdSemitones: 2,
    f0P10Hz: f0 * 0.8,
    f0P90Hz: f0 * 1.2,
    syllablesPerSecond: rate,
    ltas: { hz: [...LTAS_CENTERS_HZ], db: LTAS_CENTERS_HZ.map((hz) => tiltDb * Math.log2(hz / 500)) },
    mfcc: Array(12).fill(0),
    formantsHz: null,
    formantSpacingHz: null,
    integratedLufs: -20,
    activeRmsDb: -20,
    peakDb: -3,
    clippingRatio: 0,
  };
}

/** A fake engine and DSP: what each file "holds", and which texts each voice was asked to read. */
function world(voices: Record<string, SpeakerProfile | 'broken'>) {
  const files = new Map<string, SpeakerProfile>();
  const readings: Array<{ voiceId: string; text: string }> = [];
  return {
    readings,
    render: async ({ voice, text, outPath }: { voice: PremadeVoice; text: string; outPath: string }) => {
      readings.push({ voiceId: voice.id, text });
      const plain = voices[voice.id];
      if (plain === undefined || plain === 'broken') throw new Error(`${voice.id} does not render`);
      files.set(outPath, plain);
    },
    finish: async (chunkPath: string, adjustment: Adjustment, outPath: string) => {
      const from = files.get(chunkPath)!;
      files.set(outPath, {
        ...from,
        f0MedianHz: from.f0MedianHz! * 2 ** (adjustment.semitones / 12),
        syllablesPerSecond: from.syllablesPerSecond! * adjustment.rate,
        ltas: { hz: from.ltas.hz, db: from.ltas.db.map((db, i) => db + (adjustment.eq[i]?.gainDb ?? 0)) },
      });
    },
    analyse: async (wavPath: string) => {
      const found = files.get(wavPath);
      if (!found) throw new Error(`nothing at ${wavPath}`);
      return found;
    },
  };
}

const voice = (id: string) => findPremadeVoice(id)!;
const asNeural = (id: string): PremadeVoice => ({ ...voice(id), quality: 'neural' });

describe('splitting a sample in two halves', () => {
  /** Blocks of one tone each, with 0.2 s of silence around every block boundary. */
  function blocks(frequencies: number[], seconds: number): Float32Array {
    const samples = new Float32Array(frequencies.length * seconds * RATE);
    for (let i = 0; i < samples.length; i++) {
      const t = i / RATE;
      const block = Math.floor(t / seconds);
      const intoBlock = t - block * seconds;
      const quiet = intoBlock < 0.1 || intoBlock > seconds - 0.1;
      samples[i] = quiet ? 0 : 0.3 * Math.sin(2 * Math.PI * frequencies[block] * t);
    }
    return samples;
  }

  it('cuts in the quiet near each block boundary and interleaves the blocks, so both halves span the sample', () => {
    // 12 s: eight blocks of 1.5 s.
    const samples = blocks([150, 300, 150, 300, 150, 300, 150, 300], 1.5);
    const bounds = blockBoundaries(samples, RATE);
    expect(bounds).toHaveLength(9);
    expect(bounds[0]).toBe(0);
    expect(bounds[8]).toBe(samples.length);
    for (const [k, bound] of bounds.slice(1, -1).entries()) {
      // Within the 0.2 s of silence around k × 1.5 s.
      expect(Math.abs(bound / RATE - (k + 1) * 1.5)).toBeLessThanOrEqual(0.1);
      expect(samples[bound]).toBe(0);
    }
    const { fit, heldOut } = splitSamples(samples, RATE);
    expect(fit.length + heldOut.length).toBe(samples.length);
    // The even blocks (150 Hz) to the fit half, the odd ones (300 Hz) to the held-out half.
    const zeroCrossingsPerSecond = (x: Float32Array) => {
      let crossings = 0;
      for (let i = 1; i < x.length; i++) if (x[i - 1] < 0 !== x[i] < 0 && x[i] !== 0 && x[i - 1] !== 0) crossings++;
      return crossings / (x.length / RATE);
    };
    expect(zeroCrossingsPerSecond(heldOut)).toBeGreaterThan(1.6 * zeroCrossingsPerSecond(fit));
  });

  it('gives two different halves of a long sample, and the whole sample twice when a half would hold too little speech', () => {
    const speech = (seconds: number) => {
      const x = new Float32Array(seconds * RATE);
      let phase = 0;
      for (let i = 0; i < x.length; i++) {
        const t = i / RATE;
        phase += (2 * Math.PI * 120 * 2 ** (Math.sin(3 * t) / 6)) / RATE;
        let value = 0;
        for (let k = 1; k <= 10; k++) value += Math.sin(k * phase) / k;
        x[i] = 0.2 * value * Math.max(0, Math.sin(Math.PI * 4 * t)) ** 2;
      }
      return x;
    };
    const long = profileHalves(speech(8), RATE);
    expect(long.split).toBe(true);
    expect(long.fit).not.toEqual(long.heldOut);
    expect(long.whole.durationSeconds).toBe(8);

    const short = speech(1);
    short.fill(0, RATE / 2); // 0.5 s of sound: no half has enough voiced speech
    const halves = profileHalves(short, RATE);
    expect(halves.split).toBe(false);
    expect(halves.fit).toBe(halves.whole);
    expect(halves.heldOut).toBe(halves.whole);
  });
});

describe('choosing the voice on the held-out half', () => {
  it('keeps an unmodified premade voice when it is closest to the held-out half, and says so', async () => {
    // The fit half is off (say, a noisy stretch): adjusting toward it moves every voice away from the speaker.
    const speaker = profile(200, -3);
    const fake = world({
      'en-us-slt': profile(200, -3),
      'en-us-espeak-f': profile(240, 2),
      'en-us-joe': profile(100, -6),
    });
    const clone = await buildVoiceProfile({
      sample: profile(150, 4, 6),
      heldOut: speaker,
      language: 'en-US',
      candidates: [asNeural('en-us-joe'), voice('en-us-slt'), voice('en-us-espeak-f')],
      ...fake,
    });
    expect(clone.baseVoiceId).toBe('en-us-slt');
    expect(clone.closestPremade).toBe('en-us-slt');
    expect([clone.semitones, clone.eq, clone.rate]).toEqual([0, [], 1]);
    expect(clone.similarity).toBe(1);
    expect(clone.bestPremade).toEqual({ voiceId: 'en-us-slt', similarity: 1 });
  });

  it('ships an adjusted voice only when it beats every plain one on the held-out half, and stores that score', async () => {
    const speaker = profile(180, -2, 4);
    const fake = world({ 'en-us-slt': profile(210, 1, 5), 'en-us-espeak-f': profile(260, 4, 5.5) });
    const clone = await buildVoiceProfile({
      sample: speaker,
      heldOut: profile(182, -2.2, 4.1),
      language: 'en-US',
      candidates: [voice('en-us-slt'), voice('en-us-espeak-f')],
      ...fake,
    });
    expect(clone.closestPremade).toBeNull();
    expect(clone.semitones).not.toBe(0);
    expect(clone.similarity).toBeGreaterThan(clone.bestPremade.similarity);
    // The stored figure is the held-out score of the chosen candidate, the best of all, plain ones included.
    expect(clone.similarity).toBe(Math.max(...clone.tried.map((entry) => entry.similarity)));
    expect(clone.similarity - clone.bestPremade.similarity).toBeGreaterThanOrEqual(ADJUSTMENT_MARGIN);
    expect(
      clone.tried
        .filter((entry) => entry.stage === 'plain')
        .map((entry) => entry.voiceId)
        .sort(),
    ).toEqual(['en-us-espeak-f', 'en-us-slt']);
  });

  it('fits on the fit half only: the pitch shift aims at its F0, not at the held-out one', async () => {
    const fake = world({ 'en-us-espeak-m': profile(100) });
    const clone = await buildVoiceProfile({
      sample: profile(120),
      heldOut: profile(127),
      language: 'en-US',
      candidates: [voice('en-us-espeak-m')],
      ...fake,
    });
    const full = clone.tried.find((entry) => entry.stage === 'full')!;
    expect(full.semitones).toBeCloseTo(12 * Math.log2(120 / 100), 1);
    expect(full.similarity).toBeCloseTo(similarityScore(profile(127), profile(120)), 3);
  });

  it('tries the EQ without the pitch: a shift the fit half asked for but the held-out half does not want is left out', async () => {
    // The fit half reads 3 st above the voice (a passage's intonation), the held-out half at the voice's own F0.
    const fake = world({ 'en-us-espeak-m': profile(100, 2) });
    const clone = await buildVoiceProfile({
      sample: profile(119, -3),
      heldOut: profile(100, -3),
      language: 'en-US',
      candidates: [voice('en-us-espeak-m')],
      ...fake,
    });
    expect(clone.tried[0].stage).toBe('eq only');
    expect(clone.semitones).toBe(0);
    expect(clone.eq.some(({ gainDb }) => gainDb !== 0)).toBe(true);
    const shifted = clone.tried.filter((entry) => entry.semitones !== 0);
    expect(shifted.length).toBeGreaterThan(0);
    shifted.forEach((entry) => expect(entry.similarity).toBeLessThan(clone.similarity));
  });

  it('scores every candidate on a text the fit never read, and reads the calibration text only for the fitted voices', async () => {
    const fake = world({
      'en-us-espeak-m': profile(100),
      'en-us-flite-rms': profile(95),
      'en-us-festival-kal': profile(90),
    });
    const clone = await buildVoiceProfile({
      sample: profile(110),
      language: 'en-US',
      candidates: [voice('en-us-espeak-m'), voice('en-us-flite-rms'), voice('en-us-festival-kal')],
      maxCandidates: 2,
      ...fake,
    });
    expect(similarityText('en-US')).not.toBe(calibrationText('en-US'));
    const read = (text: string) => fake.readings.filter((r) => r.text === text).map((r) => r.voiceId);
    expect(read(similarityText('en-US')).sort()).toEqual(['en-us-espeak-m', 'en-us-festival-kal', 'en-us-flite-rms']);
    // The two closest to the fit half when read plain are fitted.
    expect(read(calibrationText('en-US')).sort()).toEqual(['en-us-espeak-m', 'en-us-flite-rms']);
    expect(clone.tried.filter((entry) => entry.stage === 'plain')).toHaveLength(3);
  });

  it('keeps the classic voices in the race read plain while a neural fit is above the floor, and fits them under it', async () => {
    const speaker = profile(110, -2);
    const voices = {
      'en-us-joe': profile(105, -2.5),
      'en-us-festival-kal': profile(120, -2),
      'en-us-espeak-m': profile(130, 3),
    };
    const candidates = [asNeural('en-us-joe'), voice('en-us-festival-kal'), voice('en-us-espeak-m')];
    const calibrated = (readings: Array<{ voiceId: string; text: string }>) =>
      readings.filter((r) => r.text === calibrationText('en-US')).map((r) => r.voiceId);

    const above = world(voices);
    const kept = await buildVoiceProfile({ sample: speaker, language: 'en-US', candidates, ...above });
    expect(kept.similarity).toBeGreaterThanOrEqual(NEURAL_FLOOR);
    expect(calibrated(above.readings)).toEqual(['en-us-joe']);
    expect(kept.tried.map((entry) => `${entry.voiceId} ${entry.stage}`)).toContain('en-us-festival-kal plain');

    const under = world(voices);
    const refitted = await buildVoiceProfile({
      sample: speaker,
      language: 'en-US',
      candidates,
      neuralFloor: Infinity,
      ...under,
    });
    expect(calibrated(under.readings).sort()).toEqual(['en-us-espeak-m', 'en-us-festival-kal', 'en-us-joe']);
    expect(refitted.similarity).toBeGreaterThanOrEqual(kept.similarity);
  });

  it('leaves out a voice that does not render, and fails only when none does', async () => {
    const fake = world({ 'en-us-espeak-m': 'broken', 'en-us-flite-rms': profile(100) });
    const clone = await buildVoiceProfile({
      sample: profile(100),
      language: 'en-US',
      candidates: [voice('en-us-espeak-m'), voice('en-us-flite-rms')],
      ...fake,
    });
    expect(new Set(clone.tried.map((entry) => entry.voiceId))).toEqual(new Set(['en-us-flite-rms']));
    await expect(
      buildVoiceProfile({
        sample: profile(100),
        language: 'en-US',
        candidates: [voice('en-us-espeak-m')],
        ...world({ 'en-us-espeak-m': 'broken' }),
      }),
    ).rejects.toThrow(/no base voice/);
  });

  it('ships the closest plain voice when an adjustment beats it by less than the margin', () => {
    const ranked = rankCandidates([
      { similarity: 0.62, stage: 'no tempo' as const, id: 'slt with pitch and EQ' },
      { similarity: 0.6, stage: 'plain' as const, id: 'slt' },
      { similarity: 0.5, stage: 'plain' as const, id: 'kal' },
    ]);
    expect(chooseCandidate(ranked).id).toBe('slt');
    expect(chooseCandidate([{ ...ranked[0], similarity: 0.6 + ADJUSTMENT_MARGIN }, ...ranked.slice(1)]).id).toBe(
      'slt with pitch and EQ',
    );
  });

  it('ranks by held-out score, a plain voice first on a tie', () => {
    const ranked = rankCandidates([
      { similarity: 0.6, stage: 'full' as const, id: 'a' },
      { similarity: 0.6, stage: 'plain' as const, id: 'b' },
      { similarity: 0.7, stage: 'pitch only' as const, id: 'c' },
    ]);
    expect(ranked.map((entry) => entry.id)).toEqual(['c', 'b', 'a']);
  });
});
