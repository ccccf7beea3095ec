import { voicingFilters } from '../../audio/finish';
import { applyGain, LoudnessMeter, normalizeLoudness } from '../../audio/loudness';
import { assertProsody, EMOTION_PRESETS, EMOTIONS, planEmotionRate, residualTempo } from '../../audio/prosody';

describe('planEmotionRate', () => {
  const espeak = { rate: { min: 80 / 175, max: 450 / 175 } };

  it('gives the speed and the emotion rate to an engine that has a rate control, measuring the residual when it is not calibrated', () => {
    expect(planEmotionRate(espeak, 'neutral', 1.5)).toEqual({ engineRate: 1.5, tempo: 1, measure: true });
    expect(planEmotionRate(espeak, 'excited')).toEqual({
      engineRate: EMOTION_PRESETS.excited.rate,
      tempo: 1,
      measure: false,
    });
  });

  it('stretches time for what lies outside the engine range', () => {
    const plan = planEmotionRate({ rate: { min: 0.9, max: 1.1 } }, 'sad');
    expect(plan.engineRate).toBe(0.9);
    expect(plan.engineRate * plan.tempo).toBeCloseTo(EMOTION_PRESETS.sad.rate);
  });

  it('stretches everything for an engine without rate control', () => {
    expect(planEmotionRate({ rate: null }, 'calm', 2)).toEqual({
      engineRate: 1,
      tempo: EMOTION_PRESETS.calm.rate * 2,
      measure: false,
    });
  });

  it('trusts an engine with a calibrated rate, stretching only what lies outside its range', () => {
    const piper = { rate: { min: 0.5, max: 1.6 }, exactRate: true };
    expect(planEmotionRate(piper, 'neutral', 1.5)).toEqual({ engineRate: 1.5, tempo: 1, measure: false });
    const fast = planEmotionRate(piper, 'excited', 2);
    expect(fast.engineRate).toBe(1.6);
    expect(fast.engineRate * fast.tempo).toBeCloseTo(EMOTION_PRESETS.excited.rate * 2);
    expect(planEmotionRate(piper, 'sad', 0.5).engineRate).toBe(0.5);
  });
});

describe('residualTempo', () => {
  const reference = { engineRate: 1, tempo: 1 };

  it('stretches by what the engine missed so the duration is 1/speed of the reference', () => {
    // 2x asked, the engine gave 0.55 of the reference: a further 1.1x.
    expect(residualTempo({ engineRate: 2, tempo: 1 }, 5.5, reference, 10, 2)).toBeCloseTo(1.1);
    // Beyond the engine range: the planned stretch corrected by the measurement.
    expect(residualTempo({ engineRate: 1.5, tempo: 4 / 3 }, 6.9, reference, 10, 2)).toBeCloseTo(1.38);
  });

  it('keeps the plan when the engine is within the tolerance, or when nothing was measured', () => {
    expect(residualTempo({ engineRate: 2, tempo: 1 }, 5.05, reference, 10, 2)).toBe(1);
    expect(residualTempo({ engineRate: 2, tempo: 1 }, 0, reference, 10, 2)).toBe(1);
  });
});

describe('emotion presets', () => {
  it('differ from neutral in at least two of rate, pitch, loudness and tone', () => {
    for (const emotion of EMOTIONS.filter((name) => name !== 'neutral')) {
      const preset = EMOTION_PRESETS[emotion];
      const differences = [
        Math.abs(preset.rate - 1) >= 0.05,
        Math.abs(preset.semitones) >= 0.5,
        Math.abs(preset.loudnessLufs - EMOTION_PRESETS.neutral.loudnessLufs) >= 2,
        Math.abs(preset.brightnessDb) >= 1.5,
      ].filter(Boolean).length;
      expect([emotion, differences >= 2]).toEqual([emotion, true]);
    }
  });
});

describe('assertProsody', () => {
  it('accepts the API ranges and rejects the rest with the field name', () => {
    expect(() => assertProsody({ speed: 0.5, pitch: -12, emotion: 'calm' })).not.toThrow();
    expect(() => assertProsody({ speed: 2.01, pitch: 0, emotion: 'neutral' })).toThrow(/^speed/);
    expect(() => assertProsody({ speed: 1, pitch: 13, emotion: 'neutral' })).toThrow(/^pitch/);
    expect(() => assertProsody({ speed: 1, pitch: 0, emotion: 'bored' })).toThrow(/^emotion/);
    expect(() => assertProsody({ speed: Number.NaN, pitch: 0, emotion: 'neutral' })).toThrow(/^speed/);
  });
});

describe('voicingFilters', () => {
  it('is nothing at all for a neutral request', () => {
    expect(voicingFilters({ speed: 1, pitch: 0, emotion: 'neutral' })).toEqual([]);
  });

  it('shifts pitch with formants preserved at full quality, adding the emotion and the profile', () => {
    const filters = voicingFilters({ speed: 1, pitch: 12, emotion: 'happy', profile: { semitones: -2 } }).join(',');
    // 12 + happy's 1 - 2 = 11 semitones.
    expect(filters).toMatch(
      /^rubberband=pitch=1\.887749:pitchq=quality:formant=preserved:channels=536870912,treble=g=2\.0:f=3000$/,
    );
  });

  it('changes tempo and pitch in one rubberband pass, with the emotion tempo the engine could not set', () => {
    expect(voicingFilters({ speed: 2, pitch: -12, emotion: 'neutral' })).toEqual([
      'rubberband=tempo=2.000000:pitch=0.500000:pitchq=quality:formant=preserved:channels=536870912',
    ]);
    expect(voicingFilters({ speed: 0.5, pitch: 0, emotion: 'neutral' })).toEqual([
      'rubberband=tempo=0.500000:channels=536870912',
    ]);
    expect(voicingFilters({ speed: 1.5, pitch: 0, emotion: 'neutral' }, 0.8)).toEqual([
      'rubberband=tempo=1.200000:channels=536870912',
    ]);
  });

  it('turns a profile EQ curve into a sorted firequalizer gain list', () => {
    const filters = voicingFilters({
      speed: 1,
      pitch: 0,
      emotion: 'neutral',
      profile: {
        eq: [
          { hz: 1000, gainDb: 3 },
          { hz: 141, gainDb: -9.4 },
        ],
      },
    });
    expect(filters).toContain(
      "firequalizer=gain_entry='entry(141.0,-9.40);entry(1000.0,3.00)':scale=linlog:zero_phase=on:accuracy=1",
    );
  });

  it('refuses non-finite numbers instead of writing them into a filter graph', () => {
    expect(() => voicingFilters({ speed: 1, pitch: Number.NaN, emotion: 'neutral' })).toThrow(RangeError);
  });
});

describe('loudness normalization', () => {
  const tone = (seconds: number, amplitude: number) =>
    Int16Array.from({ length: seconds * 24_000 }, (_, i) =>
      Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * 1000 * i) / 24_000)),
    );
  const loudness = (samples: Int16Array) => {
    const meter = new LoudnessMeter(24_000);
    meter.push(samples);
    return meter.integrated();
  };
  const peakDb = (samples: Int16Array) =>
    20 * Math.log10(samples.reduce((peak, sample) => Math.max(peak, Math.abs(sample)), 0) / 32768);

  it('brings a steady tone to the target loudness', () => {
    const [out] = normalizeLoudness([tone(3, 0.05)], 24_000, -16, -1.5);
    expect(loudness(out)).toBeCloseTo(-16, 1);
  });

  it('limits peaks to the ceiling instead of clipping, and still reaches the target', () => {
    // Speech-like: a steady level with short bursts that would pass the ceiling at the target gain.
    const signal = tone(3, 0.1);
    for (const start of [12_000, 36_000, 60_000])
      for (let i = start; i < start + 240; i++)
        signal[i] = Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 1000 * i) / 24_000));
    const plainGainDb = -12 - loudness(signal);
    expect(20 * Math.log10(0.3) + plainGainDb).toBeGreaterThan(0);
    const [out] = normalizeLoudness([signal], 24_000, -12, -1.5);
    expect(peakDb(out)).toBeLessThanOrEqual(-1.45);
    expect(Math.abs(loudness(out) - -12)).toBeLessThan(0.3);
  });

  it('applies a plain gain where no peak comes near the ceiling', () => {
    const quiet = tone(1, 0.01);
    const { samples, energyRemoved } = applyGain(quiet, 2, -1.5, 24_000);
    expect(energyRemoved).toBe(0);
    expect(samples.every((sample, i) => sample === Math.round(quiet[i] * 2))).toBe(true);
  });

  it('limits the same with true peaks kept from an earlier call on the same samples', () => {
    const signal = tone(3, 0.1);
    for (let i = 12_000; i < 12_480; i++)
      signal[i] = Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 1000 * i) / 24_000));
    const kept = new Float64Array(signal.length).fill(Number.NaN);
    for (const gain of [4, 8, 16]) {
      const fresh = applyGain(signal, gain, -1.5, 24_000);
      const reused = applyGain(signal, gain, -1.5, 24_000, kept);
      expect(fresh.energyRemoved).toBeGreaterThan(0);
      expect(reused).toEqual(fresh);
    }
    // The first call filled it where the limiter looked: the later ones read it.
    expect(kept.some((peak) => !Number.isNaN(peak))).toBe(true);
  });

  it('leaves silence alone', () => {
    const silence = new Int16Array(24_000);
    expect(normalizeLoudness([silence], 24_000, -16, -1.5)).toEqual([silence]);
  });
});
