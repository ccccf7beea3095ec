import { type HostRequestBase, runOnnxHost } from '../onnxHost';
import { withNodeOutput } from '../piper/durations';

/**
 * The Kokoro model in its own process (engines/onnxHost.ts has the process and its protocol; the pool,
 * engines/piper/pool.ts, starts it with this file's path).
 *
 * A request's `sentences` are token ids with the 0 pad at both ends, `styles` the 256 floats of each
 * sentence's style row, `speed` the model's own speed input. The reply's `frames` are each sentence's
 * predicted duration per token (the output of the graph's `Clip` node, exposed by a protobuf edit as for
 * Piper's `Ceil`): the sentence has `sum(frames) x KOKORO_HOP_SAMPLES` samples.
 */

export interface KokoroHostRequest extends HostRequestBase {
  styles: number[][];
  speed: number;
}

if (require.main === module) {
  runOnnxHost<KokoroHostRequest>({
    engine: 'kokoro',
    withDurations: (model) => withNodeOutput(model, 'Clip'),
    audioOutput: 'audio',
    feeds: (ort, _session, request, index) => {
      const ids = request.sentences[index];
      return {
        tokens: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
        style: new ort.Tensor('float32', Float32Array.from(request.styles[index]), [1, 256]),
        speed: new ort.Tensor('float32', Float32Array.from([request.speed]), [1]),
      };
    },
  });
}
