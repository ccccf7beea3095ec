/**
 * Exact phoneme durations from a Piper (VITS) model. The model predicts each
 * input id's duration in frames and rounds it up (its `Ceil` node); the
 * decoder then makes exactly `sum(frames) x hop` samples. That tensor is an
 * intermediate value, which ONNX Runtime does not return, so the host loads
 * the model with it added as a second graph output: a small edit of the
 * ModelProto bytes (protobuf), done here with no ONNX library.
 *
 * ModelProto.graph is field 7; GraphProto.node is field 1 (NodeProto: output
 * field 2, op_type field 4); GraphProto.output is field 12 (ValueInfoProto:
 * name field 1). A graph output without a type is accepted: ORT infers it.
 */

import type { EngineWord } from '../types';
import type { SentencePhonemes } from './phonemes';

/** Samples per frame of the Piper VITS decoder (its upsampling product: 8 x 8 x 2 x 2). */
const PIPER_HOP_SAMPLES = 256;

interface Field {
  number: number;
  wire: number;
  /** Where the field's key starts, where its payload starts and ends. */
  start: number;
  dataStart: number;
  end: number;
}

function readVarint(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  let next = at;
  for (;;) {
    const byte = bytes[next++];
    if (byte === undefined) throw new RangeError('truncated varint');
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return { value, next };
    scale *= 128;
  }
}

function fields(bytes: Uint8Array, from = 0, to = bytes.length): Field[] {
  const out: Field[] = [];
  let at = from;
  while (at < to) {
    const start = at;
    const key = readVarint(bytes, at);
    const number = Math.floor(key.value / 8);
    const wire = key.value % 8;
    at = key.next;
    let dataStart = at;
    if (wire === 0) at = readVarint(bytes, at).next;
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = readVarint(bytes, at);
      dataStart = length.next;
      at = length.next + length.value;
    } else throw new RangeError(`unsupported protobuf wire type ${wire}`);
    out.push({ number, wire, start, dataStart, end: at });
  }
  return out;
}

function varint(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

const lengthDelimited = (number: number, payload: Uint8Array): Uint8Array =>
  Uint8Array.from([...varint(number * 8 + 2), ...varint(payload.length), ...payload]);
const text = (bytes: Uint8Array, field: Field) =>
  Buffer.from(bytes.buffer, bytes.byteOffset + field.dataStart, field.end - field.dataStart).toString('utf8');

/**
 * The model with the output of its (only) `Ceil` node added as a graph
 * output, and that output's name; null when the graph has no single Ceil
 * node (not a Piper VITS export).
 */
export function withDurationOutput(model: Uint8Array): { model: Uint8Array; output: string } | null {
  return withNodeOutput(model, 'Ceil');
}

/**
 * The model with the output of its only node of type `opType` added as a
 * graph output, and that output's name; null when the graph has none or
 * several (Kokoro's durations: its `Clip`, engines/kokoro/durations.ts).
 */
export function withNodeOutput(model: Uint8Array, opType: string): { model: Uint8Array; output: string } | null {
  const graph = fields(model).find((field) => field.number === 7 && field.wire === 2);
  if (!graph) return null;
  const graphFields = fields(model, graph.dataStart, graph.end);
  const found: string[] = [];
  for (const node of graphFields.filter((field) => field.number === 1 && field.wire === 2)) {
    const nodeFields = fields(model, node.dataStart, node.end);
    const type = nodeFields.find((field) => field.number === 4);
    if (type && text(model, type) === opType)
      found.push(...nodeFields.filter((field) => field.number === 2).map((field) => text(model, field)));
  }
  if (found.length !== 1) return null;
  const output = found[0];
  const added = lengthDelimited(12, lengthDelimited(1, Buffer.from(output, 'utf8')));
  const graphLength = graph.end - graph.dataStart + added.length;
  const header = Uint8Array.from([...varint(7 * 8 + 2), ...varint(graphLength)]);
  const edited = new Uint8Array(graph.start + header.length + graphLength + (model.length - graph.end));
  edited.set(model.subarray(0, graph.start), 0);
  edited.set(header, graph.start);
  edited.set(model.subarray(graph.dataStart, graph.end), graph.start + header.length);
  edited.set(added, graph.start + header.length + (graph.end - graph.dataStart));
  edited.set(model.subarray(graph.end), graph.start + header.length + graphLength);
  return { model: edited, output };
}

/** Phonemes that end a phonetic word: spaces and the clause punctuation Piper keeps. */
const WORD_BREAK = /^[\s.,;:!?¡¿"—…-]$/u;

/**
 * The phonetic words of one model call with their times: each phoneme lasts
 * its ids' frames and the pad after it (phonemeIds' layout: `^`, pad, then
 * each known phoneme's ids and a pad, `$`); a word runs from its first
 * phoneme to its last. `sentences` are the call's phonemes, `frames` what the
 * host returned for them; sentences follow each other with `pauseSamples`.
 */
export function piperWords(
  sentences: readonly SentencePhonemes[],
  frames: readonly (readonly number[])[],
  map: Readonly<Record<string, readonly number[]>>,
  sampleRate: number,
  pauseSamples: number,
): EngineWord[] {
  const words: EngineWord[] = [];
  const padLength = (map._ ?? [0]).length;
  let sentenceStart = 0;
  sentences.forEach(({ phonemes, clauses }, index) => {
    const durations = frames[index] ?? [];
    const seconds = (frame: number) => (sentenceStart + frame * PIPER_HOP_SAMPLES) / sampleRate;
    let id = (map['^'] ?? [1]).length + padLength;
    let frame = durations.slice(0, id).reduce((a, b) => a + b, 0);
    let word: EngineWord | null = null;
    for (const [k, phoneme] of phonemes.entries()) {
      const mapped = map[phoneme];
      if (!mapped) continue;
      const count = mapped.length + padLength;
      const length = durations.slice(id, id + count).reduce((a, b) => a + b, 0);
      if (WORD_BREAK.test(phoneme)) {
        if (word) words.push(word);
        word = null;
      } else if (word) {
        word.text += phoneme;
        word.end = seconds(frame + length);
        word.weight = (word.weight ?? 0) + 1;
      } else {
        word = { text: phoneme, start: seconds(frame), end: seconds(frame + length), weight: 1, clause: clauses[k] };
      }
      id += count;
      frame += length;
    }
    if (word) words.push(word);
    const total = durations.reduce((a, b) => a + b, 0);
    sentenceStart += total * PIPER_HOP_SAMPLES + pauseSamples;
  });
  // Stress marks are not sounds: they do not count toward a word's length.
  for (const word of words) word.weight = Math.max(1, [...word.text].filter((char) => !/[ˈˌː]/u.test(char)).length);
  return words;
}
