import { PowerSpectrum } from './dsp';
import { melFilterbank } from './speaker';
import { detectSpeech, FRAME_SECONDS } from './speech';

/**
 * MFCC frames of the speech in a recording (32 ms Hann frames every 10 ms,
 * 26 mel bands 80-7600 Hz (more leave the lowest bands without an FFT bin),
 * natural-log amplitudes, orthonormal DCT-II,
 * c1..c`count`; c0, the level, left out). Frames the energy VAD calls
 * silence are skipped. Shared by the speaker embedding (similarity.ts) and
 * the quality measure of bench/quality.ts.
 */
export function mfccFrames(samples: Float32Array, sampleRate: number, count = 13): Float64Array[] {
  const size = sampleRate >= 32_000 ? 1024 : 512;
  const spectrum = new PowerSpectrum(size);
  const power = new Float64Array(spectrum.bins);
  const binHz = sampleRate / size;
  const mel = melFilterbank(26, 80, Math.min(7600, sampleRate / 2 - binHz), binHz, spectrum.bins);
  const dct = Float64Array.from({ length: count * mel.length }, (_, i) => {
    const [c, m] = [Math.floor(i / mel.length) + 1, i % mel.length];
    return Math.sqrt(2 / mel.length) * Math.cos((Math.PI * c * (m + 0.5)) / mel.length);
  });
  const speech = detectSpeech(samples, sampleRate);
  const hop = Math.round(sampleRate * 0.01);
  const melLog = new Float64Array(mel.length);
  const frames: Float64Array[] = [];
  for (let start = 0; start + size <= samples.length; start += hop) {
    const centre = Math.floor((start + size / 2) / (sampleRate * FRAME_SECONDS));
    if (speech.active[centre] !== 1) continue;
    spectrum.frame(samples, start, power);
    for (let m = 0; m < mel.length; m++) {
      let sum = 0;
      for (const [k, weight] of mel[m]) sum += power[k] * weight;
      // Log amplitude (half the log power), floored at -90 dBFS: the cepstral distortion formula expects amplitude cepstra.
      melLog[m] = 0.5 * Math.log(Math.max(sum, 1e-9));
    }
    const frame = new Float64Array(count);
    for (let c = 0; c < count; c++) {
      let sum = 0;
      for (let m = 0; m < mel.length; m++) sum += melLog[m] * dct[c * mel.length + m];
      frame[c] = sum;
    }
    frames.push(frame);
  }
  return frames;
}
