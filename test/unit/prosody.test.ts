import { finishFilters } from '../../audio/finish';
import { assertProsody, EMOTION_PRESETS, EMOTIONS, planEmotionRate } from '../../audio/prosody';

describe('planEmotionRate', () => {
  const espeak = { rate: { min: 80 / 175, max: 450 / 175 } };

  it('gives the emotion rate to an engine that has a rate control', () => {
    expect(planEmotionRate(espeak, 'neutral')).toEqual({ engineRate: 1, tempo: 1 });
    expect(planEmotionRate(espeak, 'excited')).toEqual({ engineRate: EMOTION_PRESETS.excited.rate, tempo: 1 });
  });

  it('stretches time for what lies outside the engine range', () => {
    const plan = planEmotionRate({ rate: { min: 0.9, max: 1.1 } }, 'sad');
    expect(plan.engineRate).toBe(0.9);
    expect(plan.engineRate * plan.tempo).toBeCloseTo(EMOTION_PRESETS.sad.rate);
  });

  it('stretches everything for an engine without rate control', () => {
    expect(planEmotionRate({ rate: null }, 'calm')).toEqual({ engineRate: 1, tempo: EMOTION_PRESETS.calm.rate });
  });
});

describe('emotion presets', () => {
  it('differ from neutral in rate, pitch and loudness', () => {
    for (const emotion of EMOTIONS.filter((name) => name !== 'neutral')) {
      const preset = EMOTION_PRESETS[emotion];
      expect(Math.abs(preset.rate - 1)).toBeGreaterThanOrEqual(0.08);
      expect(Math.abs(preset.semitones)).toBeGreaterThanOrEqual(1.5);
      expect(preset.loudnessLufs).not.toBe(EMOTION_PRESETS.neutral.loudnessLufs);
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

describe('finishFilters', () => {
  it('is loudness normalization and resampling alone for a neutral request', () => {
    expect(finishFilters({ speed: 1, pitch: 0, emotion: 'neutral' }, 10)).toBe(
      'loudnorm=I=-16.0:TP=-1.5:LRA=11,aresample=24000:resampler=soxr',
    );
  });

  it('shifts pitch with formants preserved at full quality, adding the emotion and the profile', () => {
    const filters = finishFilters({ speed: 1, pitch: 12, emotion: 'happy', profile: { semitones: -2 } }, 10);
    expect(filters).toMatch(/^rubberband=pitch=2\.000000:pitchq=quality:formant=preserved,treble=g=2\.0:f=3000,/);
  });

  it('changes tempo and pitch in one rubberband pass', () => {
    expect(finishFilters({ speed: 2, pitch: -12, emotion: 'neutral' }, 10)).toMatch(
      /^rubberband=tempo=2\.000000:pitch=0\.500000:pitchq=quality:formant=preserved,loudnorm/,
    );
    expect(finishFilters({ speed: 0.5, pitch: 0, emotion: 'neutral' }, 10)).toMatch(/^rubberband=tempo=0\.500000,loudnorm/);
  });

  it('loops a short output for loudnorm and keeps the first pass', () => {
    expect(finishFilters({ speed: 1, pitch: 0, emotion: 'neutral' }, 1.5)).toBe(
      'aloop=loop=3:size=60000,loudnorm=I=-16.0:TP=-1.5:LRA=11,aresample=24000:resampler=soxr,atrim=duration=1.5000',
    );
    // 5 s of chunks at double speed is 2.5 s of output.
    expect(finishFilters({ speed: 2, pitch: 0, emotion: 'neutral' }, 5)).toContain('atrim=duration=2.5000');
  });

  it('turns a profile EQ curve into a sorted firequalizer gain list', () => {
    const filters = finishFilters({ speed: 1, pitch: 0, emotion: 'neutral', profile: { eq: [{ hz: 1000, gainDb: 3 }, { hz: 141, gainDb: -9.4 }] } }, 10);
    expect(filters).toContain("firequalizer=gain_entry='entry(141.0,-9.40);entry(1000.0,3.00)':scale=linlog:zero_phase=on:accuracy=1");
  });

  it('refuses non-finite numbers instead of writing them into a filter graph', () => {
    expect(() => finishFilters({ speed: 1, pitch: Number.NaN, emotion: 'neutral' }, 10)).toThrow(RangeError);
  });
});
