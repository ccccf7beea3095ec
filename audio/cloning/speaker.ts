import { ANALYSIS_RATE, decodeAudio } from '../analysis';
import { decimateByTwo, Fft, median, PowerSpectrum, resample, smooth, toDb } from './dsp';
import { integratedLoudness } from '../loudness';
import { detectSpeech, FRAME_SECONDS, pitchTrack, readPcm16Wav, type SpeechActivity } from './speech';

/** What detectSpeech measured, kept as it measured it (the two levels rounded to 0.01 dB). */
type SpeechMeasures = Pick<
  SpeechActivity,
  | 'speechSeconds'
  | 'voicedSeconds'
  | 'f0MedianHz'
  | 'f0StdSemitones'
  | 'f0P10Hz'
  | 'f0P90Hz'
  | 'activeRmsDb'
  | 'peakDb'
  | 'clippingRatio'
>;

/**
 * A speaker's acoustic profile, measured from a sample (or from a render, to
 * compare): pitch, speaking rate, long-term spectrum, cepstrum, formants,
 * level. JSON-serializable: stored on the voice.
 */
export interface SpeakerProfile extends SpeechMeasures {
  version: 1;
  durationSeconds: number;
  /** Articulation rate: syllable nuclei (voiced envelope peaks) per second of speech, pauses excluded. */
  syllablesPerSecond: number | null;
  /** Long-term average spectrum of the speech frames: band centres (Hz) and power density (dB) relative to the median band. */
  ltas: { hz: number[]; db: number[] };
  /** Mean MFCC c1..c12 of the speech frames (26 mel bands, 80-7600 Hz, DCT-II). */
  mfcc: number[];
  /**
   * Mean natural-log power of those 26 mel bands (the MFCCs are its DCT): the cepstrum can be taken again over the
   * bands a band-limited sample has (similarity.ts). Absent from profiles stored before it was measured.
   */
  melLogPower?: number[];
  /** Median F1-F3 of voiced frames by LPC (order 10 at 8 kHz), Hz; null when too little is voiced. */
  formantsHz: number[] | null;
  /** Mean formant spacing ΔF from F1-F3 (Reby & McComb): larger for a shorter vocal tract. */
  formantSpacingHz: number | null;
  /** BS.1770 integrated loudness, LUFS. */
  integratedLufs: number;
}

const FFT_SIZE = 512;
const LTAS_BANDS = 28;
const LTAS_LOW_HZ = 80;
const LTAS_HIGH_HZ = 7500;

/** Band edges of the LTAS, log-spaced (about a third of an octave each). */
const LTAS_EDGES_HZ: readonly number[] = Array.from(
  { length: LTAS_BANDS + 1 },
  (_, i) => LTAS_LOW_HZ * (LTAS_HIGH_HZ / LTAS_LOW_HZ) ** (i / LTAS_BANDS),
);
export const LTAS_CENTERS_HZ: readonly number[] = LTAS_EDGES_HZ.slice(0, -1).map((low, i) =>
  Math.sqrt(low * LTAS_EDGES_HZ[i + 1]),
);

/** Profiles an audio file at 16 kHz: mono 16-bit WAVs (intake's, renderings) are read directly, anything else is decoded by ffmpeg. */
export async function analyseSpeaker(wavPath: string, signal?: AbortSignal): Promise<SpeakerProfile> {
  const direct = await readPcm16Wav(wavPath);
  if (direct && direct.channels === 1 && direct.sampleRate >= 16_000)
    return analyseSpeakerSamples(resample(direct.samples, direct.sampleRate, ANALYSIS_RATE), ANALYSIS_RATE);
  const decoded = await decodeAudio(wavPath, { signal });
  return analyseSpeakerSamples(decoded.samples, decoded.sampleRate);
}

/** The profile of mono float samples (16 kHz expected: the LTAS reaches 7.5 kHz). */
export function analyseSpeakerSamples(samples: Float32Array, sampleRate: number): SpeakerProfile {
  const speech = detectSpeech(samples, sampleRate);
  const spectra = spectralFeatures(samples, sampleRate, speech);
  const formants = estimateFormants(samples, sampleRate, speech);
  return {
    version: 1,
    durationSeconds: samples.length / sampleRate,
    speechSeconds: speech.speechSeconds,
    voicedSeconds: speech.voicedSeconds,
    f0MedianHz: speech.f0MedianHz,
    f0StdSemitones: speech.f0StdSemitones,
    f0P10Hz: speech.f0P10Hz,
    f0P90Hz: speech.f0P90Hz,
    syllablesPerSecond: speakingRate(samples, sampleRate, speech),
    ltas: { hz: LTAS_CENTERS_HZ.map((hz) => round(hz, 1)), db: spectra.ltasDb.map((db) => round(db, 2)) },
    mfcc: spectra.mfcc.map((value) => round(value, 3)),
    melLogPower: spectra.melLogPower.map((value) => round(value, 3)),
    formantsHz: formants?.formantsHz.map((hz) => round(hz, 1)) ?? null,
    formantSpacingHz: formants ? round(formants.spacingHz, 1) : null,
    integratedLufs: round(integratedLoudness(samples, sampleRate), 2),
    activeRmsDb: round(speech.activeRmsDb, 2),
    peakDb: round(speech.peakDb, 2),
    clippingRatio: speech.clippingRatio,
  };
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

interface SpectralFeatures {
  ltasDb: number[];
  mfcc: number[];
  melLogPower: number[];
}

/**
 * One pass of 32 ms Hann frames every 20 ms over the speech: the long-term
 * average spectrum and the mean MFCCs.
 */
function spectralFeatures(samples: Float32Array, sampleRate: number, speech: SpeechActivity): SpectralFeatures {
  const spectrum = new PowerSpectrum(FFT_SIZE);
  const power = new Float64Array(spectrum.bins);
  const binHz = sampleRate / FFT_SIZE;
  const hop = Math.round(sampleRate * 0.02);
  const mel = melFilterbank(26, 80, Math.min(7600, sampleRate / 2 - binHz), binHz, spectrum.bins);
  const ltasPower = new Float64Array(spectrum.bins);
  const melLogSum = new Float64Array(mel.length);
  let speechFrames = 0;

  for (let start = 0; start + FFT_SIZE <= samples.length; start += hop) {
    // The 10 ms VAD frames under this frame's centre.
    const centre = Math.floor((start + FFT_SIZE / 2) / (sampleRate * FRAME_SECONDS));
    if (speech.active[centre] !== 1 && speech.active[centre - 1] !== 1) continue;
    spectrum.frame(samples, start, power);
    speechFrames++;
    for (let k = 0; k < spectrum.bins; k++) ltasPower[k] += power[k];
    for (let m = 0; m < mel.length; m++) {
      let sum = 0;
      for (const [k, weight] of mel[m]) sum += power[k] * weight;
      melLogSum[m] += Math.log(Math.max(sum, 1e-10));
    }
  }

  const bandDb = LTAS_EDGES_HZ.slice(0, -1).map((low, i) =>
    toDb(bandDensity(ltasPower, binHz, low, LTAS_EDGES_HZ[i + 1]) / Math.max(1, speechFrames)),
  );
  const reference = median(bandDb);
  // The DCT is linear: the mean of the frames' cepstra is the cepstrum of their mean log-mel powers.
  const melLogPower = Array.from(melLogSum, (sum) => (speechFrames ? sum / speechFrames : 0));
  return {
    ltasDb: bandDb.map((db) => db - reference),
    mfcc: speechFrames ? cepstrum(melLogPower, 12) : Array(12).fill(0),
    melLogPower,
  };
}

/** c1..c`count` of log-mel powers: DCT-II with orthonormal scaling (c0, the level, left out). */
export function cepstrum(melLog: readonly number[], count: number): number[] {
  const bands = melLog.length;
  return Array.from({ length: count }, (_, i) => {
    let sum = 0;
    for (let m = 0; m < bands; m++) sum += melLog[m] * Math.cos((Math.PI * (i + 1) * (m + 0.5)) / bands);
    return Math.sqrt(2 / bands) * sum;
  });
}

/** Mean power per bin of the bins whose centre lies in [low, high), or the interpolated power at the band centre when none does. */
function bandDensity(power: Float64Array, binHz: number, low: number, high: number): number {
  const first = Math.ceil(low / binHz);
  const last = Math.ceil(high / binHz) - 1;
  if (last >= first) {
    let sum = 0;
    for (let k = first; k <= Math.min(last, power.length - 1); k++) sum += power[k];
    return sum / (Math.min(last, power.length - 1) - first + 1);
  }
  const position = Math.sqrt(low * high) / binHz;
  const below = Math.floor(position);
  const fraction = position - below;
  return power[below] * (1 - fraction) + power[Math.min(below + 1, power.length - 1)] * fraction;
}

/** Triangular mel filters as sparse [bin, weight] lists. */
export function melFilterbank(
  count: number,
  lowHz: number,
  highHz: number,
  binHz: number,
  bins: number,
): Array<Array<[number, number]>> {
  const toMel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const toHz = (mel: number) => 700 * (10 ** (mel / 2595) - 1);
  const points = Array.from({ length: count + 2 }, (_, i) =>
    toHz(toMel(lowHz) + ((toMel(highHz) - toMel(lowHz)) * i) / (count + 1)),
  );
  return Array.from({ length: count }, (_, m) => {
    const [left, centre, right] = [points[m], points[m + 1], points[m + 2]];
    const weights: Array<[number, number]> = [];
    for (let k = 0; k < bins; k++) {
      const hz = k * binHz;
      const weight =
        hz <= left || hz >= right ? 0 : hz <= centre ? (hz - left) / (centre - left) : (right - hz) / (right - centre);
      if (weight > 0) weights.push([k, weight]);
    }
    return weights;
  });
}

/**
 * Articulation rate: syllable nuclei after de Jong & Wempe (2009) per second
 * of speech. Nuclei are peaks of the 300-2500 Hz energy envelope (10 ms
 * frames, 50 ms smoothing) in active frames, within 30 ms of a voiced frame,
 * each separated from the previous one by a dip of at least 2 dB (a smaller
 * dip merges them, keeping the higher). Voicing here uses a lenient YIN
 * threshold (0.3): the strict track misses much of buzzy or processed speech,
 * and a missed vowel would be a missed syllable. Counted within ~5 % of the
 * true syllable count on eSpeak NG, Flite and Festival renderings.
 */
function speakingRate(samples: Float32Array, sampleRate: number, speech: SpeechActivity): number | null {
  if (speech.speechSeconds < 0.5) return null;
  const band = bandPass(samples, sampleRate, 300, 2500);
  const frame = Math.round(sampleRate * FRAME_SECONDS);
  const raw: number[] = [];
  for (let start = 0; start + frame <= band.length; start += frame) {
    let energy = 0;
    for (let i = start; i < start + frame; i++) energy += band[i] * band[i];
    raw.push(toDb(energy / frame));
  }
  const envelope = smooth(raw, 2);
  // Every 20 ms is enough to tell whether a peak sits in a voiced stretch, at half the cost.
  const lenient = pitchTrack(samples, sampleRate, speech.thresholdDb - 3, 0.3, 0.02);
  const voicedNear = (i: number) => {
    for (let j = Math.floor(i / 2) - 1; j <= Math.floor(i / 2) + 2; j++) if (lenient[j] != null) return true;
    return false;
  };
  const peaks: number[] = [];
  for (let i = 1; i + 1 < envelope.length; i++) {
    if (speech.active[i] !== 1 || envelope[i] < envelope[i - 1] || envelope[i] <= envelope[i + 1] || !voicedNear(i))
      continue;
    const last = peaks.at(-1);
    if (last === undefined) {
      peaks.push(i);
      continue;
    }
    let dip = Infinity;
    for (let j = last; j <= i; j++) dip = Math.min(dip, envelope[j]);
    if (dip <= Math.min(envelope[last], envelope[i]) - 2) peaks.push(i);
    else if (envelope[i] > envelope[last]) peaks[peaks.length - 1] = i;
  }
  return peaks.length / speech.speechSeconds;
}

/** A 300-2500 Hz style band pass: second-order high pass then low pass (RBJ biquads, Q 0.707). */
function bandPass(samples: Float32Array, sampleRate: number, lowHz: number, highHz: number): Float64Array {
  const design = (hz: number, highPass: boolean) => {
    const w = (2 * Math.PI * hz) / sampleRate;
    const [cos, alpha] = [Math.cos(w), Math.sin(w) / (2 * Math.SQRT1_2)];
    const a0 = 1 + alpha;
    const b = highPass ? [(1 + cos) / 2, -(1 + cos), (1 + cos) / 2] : [(1 - cos) / 2, 1 - cos, (1 - cos) / 2];
    return { b: b.map((v) => v / a0), a: [(-2 * cos) / a0, (1 - alpha) / a0] };
  };
  let signal: ArrayLike<number> = samples;
  let out = new Float64Array(samples.length);
  for (const { b, a } of [design(lowHz, true), design(highHz, false)]) {
    out = new Float64Array(samples.length);
    let [x1, x2, y1, y2] = [0, 0, 0, 0];
    for (let i = 0; i < samples.length; i++) {
      const x = signal[i];
      const y = b[0] * x + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2;
      [x2, x1, y2, y1] = [x1, x, y1, y];
      out[i] = y;
    }
    signal = out;
  }
  return out;
}

const LPC_ORDER = 10;

/**
 * F1-F3 by LPC on the 8 kHz signal (order 10, 25 ms Hamming frames,
 * pre-emphasis), peaks of the LPC envelope, medians over voiced frames;
 * and the formant spacing ΔF that best fits Fi = (2i-1)·ΔF/2.
 */
function estimateFormants(
  samples: Float32Array,
  sampleRate: number,
  speech: SpeechActivity,
): { formantsHz: number[]; spacingHz: number } | null {
  if (sampleRate < 16_000) return null;
  const signal = decimateByTwo(samples);
  const rate = sampleRate / 2;
  const length = Math.round(rate * 0.025);
  const hamming = Float64Array.from({ length }, (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (length - 1)));
  const frameStep = Math.round(rate * FRAME_SECONDS);
  const size = 512;
  const fft = new Fft(size);
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  const tracks: number[][] = [[], [], []];
  const frame = new Float64Array(length);
  // Every third voiced frame is plenty for a median and keeps long samples cheap.
  for (let f = 0; f < speech.pitch.length; f += 3) {
    if (speech.pitch[f] == null) continue;
    const start = f * frameStep;
    if (start + length + 1 > signal.length) break;
    for (let i = 0; i < length; i++) frame[i] = (signal[start + i + 1] - 0.97 * signal[start + i]) * hamming[i];
    const a = levinson(frame, LPC_ORDER);
    if (!a) continue;
    re.fill(0);
    im.fill(0);
    for (let i = 0; i <= LPC_ORDER; i++) re[i] = a[i];
    fft.transform(re, im);
    const found: number[] = [];
    const envelope = (k: number) => -Math.log(re[k] * re[k] + im[k] * im[k] + 1e-12);
    for (let k = 2; k < size / 2 - 1 && found.length < 3; k++) {
      const hz = (k * rate) / size;
      if (hz < 200) continue;
      if (envelope(k) > envelope(k - 1) && envelope(k) >= envelope(k + 1)) found.push(hz);
    }
    if (found.length === 3) found.forEach((hz, i) => tracks[i].push(hz));
  }
  if (tracks[0].length < 10) return null;
  const formantsHz = tracks.map(median);
  const weights = [0.5, 1.5, 2.5];
  const spacingHz =
    formantsHz.reduce((sum, hz, i) => sum + hz * weights[i], 0) / weights.reduce((sum, w) => sum + w * w, 0);
  return { formantsHz, spacingHz };
}

/** LPC coefficients [1, a1..ap] by autocorrelation and Levinson-Durbin, or null for a silent frame. */
function levinson(frame: Float64Array, order: number): Float64Array | null {
  const r = new Float64Array(order + 1);
  for (let lag = 0; lag <= order; lag++) {
    let sum = 0;
    for (let i = lag; i < frame.length; i++) sum += frame[i] * frame[i - lag];
    r[lag] = sum;
  }
  if (r[0] <= 1e-10) return null;
  r[0] *= 1 + 1e-9;
  let a = new Float64Array(order + 1);
  a[0] = 1;
  let error = r[0];
  for (let i = 1; i <= order; i++) {
    let acc = r[i];
    for (let j = 1; j < i; j++) acc += a[j] * r[i - j];
    const k = -acc / error;
    const next = a.slice();
    for (let j = 1; j < i; j++) next[j] = a[j] + k * a[i - j];
    next[i] = k;
    a = next;
    error *= 1 - k * k;
    if (error <= 0) return null;
  }
  return a;
}
