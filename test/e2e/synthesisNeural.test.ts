import { useAccount, useStack } from '../helpers/stack';
import {
  fetchAndMeasure,
  itRendersEveryFormat,
  startJobs,
  SYNTHESIS_FAMILIES,
  synthesizeAndWait,
} from '../helpers/synthesis';

/**
 * The neural voice en-us-joe (Piper, its model in MODELS_DIR) through the
 * whole service: every output format in both path families, speed, pitch and
 * emotion. The service runs Piper with its sampling noise, so two renderings
 * of one text differ a little in timing: comparisons have room for that.
 */

const VOICE = 'en-us-joe';
const TEXT =
  'Speech synthesis turns written words into sound for every listener. The quick brown fox jumps over the lazy dog.';

const { deps, api } = useStack({ worker: true });
const owner = useAccount(deps, { credits: 100_000 });

describe.each(SYNTHESIS_FAMILIES)('en-us-joe in the %s family', (family, idKey) => {
  const jobs = new Map<string, Promise<{ id: string; done: any }>>();
  const job = (name: string) => jobs.get(name)!;
  const synthesize = (body: Record<string, unknown>) =>
    synthesizeAndWait(api.url, owner.access, { text: TEXT, voice_id: VOICE, ...body }, { family });

  beforeAll(() => {
    const bodies: Record<string, Record<string, unknown>> = {
      wav: { output_format: 'wav' },
      mp3: { output_format: 'mp3' },
      ogg: { output_format: 'ogg' },
      flac: { output_format: 'flac' },
      ...(family === '/api/v1' && {
        speed2: { speed: 2 },
        speedHalf: { speed: 0.5 },
        pitch12: { pitch: 12 },
        sad: { emotion: 'sad' },
      }),
    };
    startJobs(bodies, synthesize, jobs);
  });

  itRendersEveryFormat(
    'renders %s (%s, %s/%s): a male voice, plausible length, audible',
    { api, token: () => owner.access, job, idKey, seconds: [4, 12], fields: () => ({ credits_charged: TEXT.length }) },
    async (audio, { done }) => {
      expect(audio.analysis.f0MedianHz).toBeGreaterThan(60);
      expect(audio.analysis.f0MedianHz).toBeLessThan(150);
      const wav = (await job('wav')).done;
      expect(Math.abs(done.duration_seconds / wav.duration_seconds - 1)).toBeLessThan(0.1);
    },
  );

  if (family === '/api/v1') {
    it('speed 2.0 and 0.5 give about half and twice the duration, pitch +12 about doubles F0, sad is slower and quieter at the same pitch', async () => {
      const [normal, fast, slow, high, sad] = await Promise.all(
        ['wav', 'speed2', 'speedHalf', 'pitch12', 'sad'].map(async (name) => {
          const { done } = await job(name);
          expect(done.status).toBe('completed');
          return (await fetchAndMeasure(api.url, done.audio_url, owner.access)).analysis;
        }),
      );
      const fastRatio = fast.durationSeconds / normal.durationSeconds;
      const slowRatio = slow.durationSeconds / normal.durationSeconds;
      expect(fastRatio).toBeGreaterThan(0.45);
      expect(fastRatio).toBeLessThan(0.56);
      expect(slowRatio).toBeGreaterThan(1.8);
      expect(slowRatio).toBeLessThan(2.2);
      // Speed is the model's own timing (length_scale), not a pitch change: a change of speed by
      // resampling would move F0 by 12 semitones here. Fast speech from the model is higher, by an amount
      // its sampling noise sets: of 60 renders in process, 50 had a median F0 0.0 to 1.3 semitones above
      // the normal reading's and 10 had 2.1 to 4.4 above it; CI once measured 6.2.
      expect(Math.abs(12 * Math.log2(fast.f0MedianHz! / normal.f0MedianHz!))).toBeLessThan(8);
      const pitchRatio = high.f0MedianHz! / normal.f0MedianHz!;
      expect(pitchRatio).toBeGreaterThanOrEqual(1.8);
      expect(pitchRatio).toBeLessThanOrEqual(2.2);
      expect(sad.durationSeconds / normal.durationSeconds).toBeGreaterThan(1.1);
      // Piper sets no intonation of its own, so an emotion's pitch is left out there (the shifter cost more
      // words than the emotion gained): rate, loudness and tone carry sad.
      expect(Math.abs(12 * Math.log2(sad.f0MedianHz! / normal.f0MedianHz!))).toBeLessThan(1);
      expect(sad.integratedLufs).toBeLessThan(normal.integratedLufs - 2);
    }, 180_000);
  }
});
