import { type HostRequestBase, runOnnxHost } from '../onnxHost';
import { withDurationOutput } from './durations';

/**
 * One Piper voice in its own process (engines/onnxHost.ts has the process and its protocol; engines/piper/pool.ts
 * starts it). A request's `sentences` are Piper's phoneme ids, `scales` its [noise, length, noise_w]. The reply's
 * `frames` (when the model exposes them, engines/piper/durations.ts) are each sentence's frames per input id.
 */

export interface HostRequest extends HostRequestBase {
  scales: [number, number, number];
  /**
   * A multi-speaker model's speaker (its `sid` input, from the config's
   * `speaker_id_map`); 0, Piper's default, when absent. Fed only to a model
   * whose graph has a `sid` input.
   */
  speakerId?: number;
}

if (require.main === module) {
  runOnnxHost<HostRequest>({
    engine: 'piper',
    // The phoneme durations as a second output (word timestamps).
    withDurations: withDurationOutput,
    feeds: (ort, session, request, index) => {
      const ids = request.sentences[index];
      return {
        input: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
        input_lengths: new ort.Tensor('int64', BigInt64Array.from([BigInt(ids.length)]), [1]),
        scales: new ort.Tensor('float32', Float32Array.from(request.scales), [3]),
        // Multi-speaker exports take the speaker as int64 `sid` of shape [1], as piper-tts feeds it.
        ...(session.inputNames.includes('sid')
          ? { sid: new ort.Tensor('int64', BigInt64Array.from([BigInt(request.speakerId ?? 0)]), [1]) }
          : {}),
      };
    },
  });
}
