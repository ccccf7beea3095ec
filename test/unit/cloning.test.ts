import { decimateByTwo, Fft, resample } from '../../audio/cloning/dsp';
import { integratedLoudness } from '../../audio/loudness';
import {
  cloneFinishOptions,
  EQ_CUT_BAND_HZ,
  EQ_MAX_BOOST_DB,
  EQ_MAX_CUT_DB,
  eqCurve,
  eqLimits,
  refineEq,
} from '../../audio/cloning/profile';
import { profileDistances, similarityScore } from '../../audio/cloning/similarity';
import { analyseSpeakerSamples, cepstrum, LTAS_CENTERS_HZ, type SpeakerProfile } from '../../audio/cloning/speaker';
import { detectSpeech } from '../../audio/cloning/speech';

const RATE = 16_000;

/** A voice-like signal: harmonics of a (possibly moving) F0, switched on and off like syllables. */
function voiceLike(f0: (t: number) => number, seconds: number, syllablesPerSecond = 0): Float32Array {
  const samples = new Float32Array(Math.round(seconds * RATE));
  let phase = 0;
  for (let i = 0; i < samples.length; i++) {
    const t = i / RATE;
    phase += (2 * Math.PI * f0(t)) / RATE;
    let value = 0;
    for (let k = 1; k <= 10; k++) value += Math.sin(k * phase) / k;
    const gate = syllablesPerSecond ? Math.max(0, Math.sin(Math.PI * syllablesPerSecond * t)) ** 2 : 1;
    samples[i] = 0.2 * value * gate;
  }
  return samples;
}

function profile(overrides: Partial<SpeakerProfile> = {}): SpeakerProfile {
  return {
    version: 1,
    durationSeconds: 10,
    speechSeconds: 8,
    voicedSeconds: 5,
    f0MedianHz: 120,
    f0StdSemitones: 2,
    f0P10Hz: 100,
    f0P90Hz: 140,
    syllablesPerSecond: 4.5,
    ltas: { hz: [...LTAS_CENTERS_HZ], db: LTAS_CENTERS_HZ.map((hz) => -6 * Math.log2(hz / 500)) },
    mfcc: Array(12).fill(0),
    formantsHz: null,
    formantSpacingHz: null,
    integratedLufs: -20,
    activeRmsDb: -20,
    peakDb: -3,
    clippingRatio: 0,
    ...overrides,
  };
}

describe('Fft', () => {
  it('matches a direct DFT', () => {
    const n = 64;
    const input = Array.from({ length: n }, (_, i) => Math.sin(i * 0.7) + 0.3 * Math.cos(i * 2.1) + (i % 5) / 10);
    const re = Float64Array.from(input);
    const im = new Float64Array(n);
    new Fft(n).transform(re, im);
    for (const k of [0, 1, 7, 31, 32, 50]) {
      let sumRe = 0;
      let sumIm = 0;
      input.forEach((x, t) => {
        sumRe += x * Math.cos((-2 * Math.PI * k * t) / n);
        sumIm += x * Math.sin((-2 * Math.PI * k * t) / n);
      });
      expect(re[k]).toBeCloseTo(sumRe, 9);
      expect(im[k]).toBeCloseTo(sumIm, 9);
    }
  });

  it('refuses a length that is not a power of two', () => {
    expect(() => new Fft(100)).toThrow(RangeError);
  });
});

describe('resample and decimateByTwo', () => {
  const sine = (hz: number, rate: number, seconds = 0.5) =>
    Float32Array.from({ length: rate * seconds }, (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / rate));
  const maxError = (actual: Float32Array, expected: Float32Array) => {
    let error = 0;
    for (let i = 200; i < Math.min(actual.length, expected.length) - 200; i++)
      error = Math.max(error, Math.abs(actual[i] - expected[i]));
    return error;
  };

  it.each([
    [24_000, 16_000],
    [22_050, 16_000],
    [8_000, 16_000],
  ])('keeps a 1 kHz tone from %i to %i Hz', (from, to) => {
    const out = resample(sine(1000, from), from, to);
    expect(out.length).toBe(Math.floor((from * 0.5 * to) / from));
    expect(maxError(out, sine(1000, to))).toBeLessThan(1e-3);
  });

  it('removes what the lower rate cannot hold', () => {
    const out = resample(sine(10_000, 24_000), 24_000, 16_000);
    expect(Math.max(...out.slice(200, -200).map(Math.abs))).toBeLessThan(0.01);
    const halved = decimateByTwo(sine(6_000, 16_000));
    expect(Math.max(...halved.slice(50, -50).map(Math.abs))).toBeLessThan(0.03);
    expect(maxError(decimateByTwo(sine(500, 16_000)), sine(500, 8_000))).toBeLessThan(0.01);
  });
});

describe('integratedLoudness (BS.1770)', () => {
  it.each([16_000, 48_000])('puts a 997 Hz sine at -20 dBFS peak near -23 LUFS at %i Hz', (rate) => {
    const samples = Float32Array.from({ length: rate * 5 }, (_, i) => 0.1 * Math.sin((2 * Math.PI * 997 * i) / rate));
    expect(integratedLoudness(samples, rate)).toBeCloseTo(-23.0, 0);
  });

  it('gates silence to -70', () => {
    expect(integratedLoudness(new Float32Array(RATE * 2), RATE)).toBe(-70);
  });
});

describe('detectSpeech', () => {
  it('finds voiced frames, the median F0 and its spread', () => {
    const speech = detectSpeech(
      voiceLike((t) => 150 * 2 ** (Math.sin(2 * Math.PI * t) / 3), 3),
      RATE,
    );
    expect(speech.voicedSeconds).toBeGreaterThan(2.5);
    expect(speech.f0MedianHz).toBeGreaterThan(140);
    expect(speech.f0MedianHz).toBeLessThan(160);
    expect(speech.f0StdSemitones).toBeGreaterThan(1.5);
  });

  it('sees a steady tone as voiced but without pitch movement, and noise as unvoiced', () => {
    const tone = detectSpeech(
      voiceLike(() => 220, 3),
      RATE,
    );
    expect(tone.voicedSeconds).toBeGreaterThan(2.5);
    expect(tone.f0StdSemitones).toBeLessThan(0.1);
    let seed = 7;
    const noise = Float32Array.from({ length: RATE * 3 }, () => {
      seed = (seed * 16807) % 2147483647;
      return (seed / 2147483647 - 0.5) * 0.5;
    });
    expect(detectSpeech(noise, RATE).voicedSeconds).toBeLessThan(0.3);
  });

  it('counts clipped samples', () => {
    const clipped = voiceLike(() => 150, 1).map((x) => Math.max(-1, Math.min(1, x * 20)));
    expect(detectSpeech(clipped, RATE).clippingRatio).toBeGreaterThan(0.05);
    expect(
      detectSpeech(
        voiceLike(() => 150, 1),
        RATE,
      ).clippingRatio,
    ).toBe(0);
  });
});

describe('analyseSpeakerSamples', () => {
  it('measures pitch, a syllable-like rate and a 28-band LTAS, and survives JSON', () => {
    const measured = analyseSpeakerSamples(
      voiceLike((t) => 110 * 2 ** (Math.sin(3 * t) / 6), 6, 4),
      RATE,
    );
    expect(measured.f0MedianHz).toBeGreaterThan(100);
    expect(measured.f0MedianHz).toBeLessThan(120);
    expect(measured.syllablesPerSecond).toBeGreaterThan(3);
    expect(measured.syllablesPerSecond).toBeLessThan(6);
    expect(measured.ltas.db).toHaveLength(28);
    expect(measured.ltas.hz[0]).toBeGreaterThan(80);
    expect(measured.ltas.hz[27]).toBeLessThan(7500);
    expect(measured.mfcc).toHaveLength(12);
    expect(JSON.parse(JSON.stringify(measured))).toEqual(measured);
  });
});

describe('similarityScore', () => {
  it('is 1 for identical profiles and symmetric', () => {
    const a = profile();
    const b = profile({ f0MedianHz: 180, syllablesPerSecond: 3.5 });
    expect(similarityScore(a, a)).toBe(1);
    expect(similarityScore(a, b)).toBe(similarityScore(b, a));
  });

  it('falls monotonically as pitch, spectrum or rate move away', () => {
    const base = profile();
    const scores = [0, 1, 3, 6, 12].map((semitones) =>
      similarityScore(base, profile({ f0MedianHz: 120 * 2 ** (semitones / 12) })),
    );
    scores.slice(1).forEach((score, i) => expect(score).toBeLessThan(scores[i]));
    const tilted = (db: number) =>
      profile({ ltas: { hz: base.ltas.hz, db: base.ltas.db.map((value, i) => value + (db * i) / 27) } });
    expect(similarityScore(base, tilted(6))).toBeLessThan(similarityScore(base, tilted(2)));
    expect(similarityScore(base, profile({ syllablesPerSecond: 6 }))).toBeLessThan(
      similarityScore(base, profile({ syllablesPerSecond: 5 })),
    );
  });

  it('ignores the overall level of the spectrum', () => {
    const base = profile();
    const louder = profile({ ltas: { hz: base.ltas.hz, db: base.ltas.db.map((db) => db + 10) } });
    expect(profileDistances(base, louder).ltasDb).toBeCloseTo(0, 9);
  });

  it("compares only the bands the sample's channel carried: a phone-band copy is the voice it copies", () => {
    const mel = Array.from({ length: 26 }, (_, m) => -8 - 0.1 * m);
    const wideband = profile({ melLogPower: mel, mfcc: cepstrum(mel, 12) });
    // 4-8 kHz ~75 dB down, as through a phone line's 8 kHz; the rest as the wideband voice.
    const phoneLtas = wideband.ltas.db.map((db, i) => (wideband.ltas.hz[i] > 4000 ? db - 75 : db));
    const phoneMel = mel.map((nepers, m) => (m >= 20 ? nepers - 17 : nepers));
    const phone = profile({
      ltas: { hz: wideband.ltas.hz, db: phoneLtas },
      melLogPower: phoneMel,
      mfcc: cepstrum(phoneMel, 12),
    });
    expect(profileDistances(phone, wideband).ltasDb).toBeCloseTo(0, 6);
    expect(profileDistances(phone, wideband).mfccFine).toBeCloseTo(0, 6);
    expect(similarityScore(phone, wideband)).toBe(1);
    // A sample that carries those bands counts them: the phone-band copy is far from it.
    expect(profileDistances(wideband, phone).ltasDb).toBeGreaterThan(10);
    expect(similarityScore(wideband, phone)).toBeLessThan(0.5);
    // Within the band, a difference still counts.
    const tilted = profile({
      ltas: { hz: wideband.ltas.hz, db: wideband.ltas.db.map((db, i) => db + i / 3) },
      melLogPower: mel.map((nepers, m) => nepers + m / 10),
    });
    expect(similarityScore(phone, tilted)).toBeLessThan(similarityScore(phone, wideband) - 0.1);
  });

  it('puts a missing F0 at the far end', () => {
    expect(profileDistances(profile(), profile({ f0MedianHz: null })).f0Semitones).toBe(12);
  });
});

describe('eqCurve', () => {
  const base = profile();
  const shaped = (gainAt: (hz: number, i: number) => number) =>
    profile({ ltas: { hz: base.ltas.hz, db: base.ltas.db.map((db, i) => db + gainAt(base.ltas.hz[i], i)) } });

  it('is the smoothed difference relative to the median band, boosts within +12 dB, cuts within -24 dB in the telephone band', () => {
    const target = shaped((hz, i) => (i < 4 ? 40 : i > 24 ? 30 : hz > 900 && hz < 1300 ? -60 : 3));
    const eq = eqCurve(target, base);
    expect(eq).toHaveLength(28);
    expect(eq.map((point) => point.hz)).toEqual(base.ltas.hz);
    expect(eq[20].gainDb).toBeCloseTo(0, 5);
    expect(eq[0].gainDb).toBe(12);
    expect(eq[27].gainDb).toBe(12);
    expect(Math.min(...eq.map((point) => point.gainDb))).toBe(EQ_MAX_CUT_DB);
    expect(eqCurve(base, base).every((point) => point.gainDb === 0)).toBe(true);
  });

  it("does not copy a band limit: a phone-band sample's steep cuts below 300 Hz and above 3.4 kHz are left out", () => {
    // A telephone's 300-3400 Hz: 10-60 dB down outside it, a formant-like bump inside.
    const phone = shaped((hz) =>
      hz < 300 ? -10 - (300 - hz) / 10 : hz > 3400 ? -20 - (hz - 3400) / 50 : hz > 2000 ? 6 : 0,
    );
    const eq = eqCurve(phone, base);
    const outside = eq.filter(({ hz }) => hz < EQ_CUT_BAND_HZ.min || hz > EQ_CUT_BAND_HZ.max);
    expect(outside.length).toBeGreaterThan(8);
    expect(outside.every(({ gainDb }) => gainDb === 0)).toBe(true);
    // Inside the band the shape is kept: the bump above 2 kHz, boosted.
    expect(eq.find(({ hz }) => hz > 2500 && hz < 3000)!.gainDb).toBeGreaterThan(4);
    // A cut inside the band stays a cut.
    const dip = eqCurve(
      shaped((hz) => (hz > 900 && hz < 1300 ? -10 : 0)),
      base,
    );
    expect(dip.find(({ hz }) => hz > 1000 && hz < 1200)!.gainDb).toBeLessThan(-5);
  });

  it('gives each band its limits: boosts to +12 dB everywhere, cuts to -24 dB in 300-3400 Hz and none outside', () => {
    expect(eqLimits(100)).toEqual({ cutDb: 0, boostDb: EQ_MAX_BOOST_DB });
    expect(eqLimits(1000)).toEqual({ cutDb: EQ_MAX_CUT_DB, boostDb: EQ_MAX_BOOST_DB });
    expect(eqLimits(5000)).toEqual({ cutDb: 0, boostDb: EQ_MAX_BOOST_DB });
  });

  it('refines within the same limits', () => {
    const eq = [
      { hz: 100, gainDb: 11 },
      { hz: 200, gainDb: 1 },
      { hz: 400, gainDb: -23 },
      { hz: 800, gainDb: 1 },
      { hz: 5000, gainDb: 2 },
    ];
    const residual = [
      { hz: 100, gainDb: 3 },
      { hz: 200, gainDb: -3 },
      { hz: 400, gainDb: -3 },
      { hz: 800, gainDb: -0.5 },
      { hz: 5000, gainDb: -10 },
    ];
    expect(refineEq(eq, residual)).toEqual([
      { hz: 100, gainDb: 12 },
      { hz: 200, gainDb: 0 },
      { hz: 400, gainDb: -24 },
      { hz: 800, gainDb: 0.5 },
      { hz: 5000, gainDb: 0 },
    ]);
  });
});

describe('cloneFinishOptions', () => {
  it("multiplies the request's speed by the clone's rate within 0.5-2", () => {
    const clone = { semitones: -3, eq: [{ hz: 100, gainDb: 2 }], rate: 1.3 };
    expect(cloneFinishOptions(clone, 1)).toEqual({ speed: 1.3, profile: { semitones: -3, eq: clone.eq } });
    expect(cloneFinishOptions(clone, 2).speed).toBe(2);
    expect(cloneFinishOptions({ ...clone, rate: 0.7 }, 0.5).speed).toBe(0.5);
  });
});
