import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { similarityScore } from '../audio/cloning/similarity';
import { analyseSpeaker, type SpeakerProfile } from '../audio/cloning/speaker';
import { type ClonedVoiceProfile, cloneFinishOptions, cloneSample } from '../audio/cloning/profile';
import { analyseSampleHalves } from '../audio/cloning/split';
import { intakeSample } from '../audio/cloning/intake';
import { ffmpeg, fileUrl } from '../audio/ffmpeg';
import { finishAudio } from '../audio/finish';
import { renderChunk } from '../audio/render';
import { availableVoices, findPremadeVoice, type PremadeVoice } from '../engines/catalog';
import { run } from '../lib/process';
import type { EngineRegistry } from '../engines/registry';
import { createEngines } from '../engines/registry';
import { defaultModelsDir } from '../lib/config';
import { filterToWav, hear, wordErrors } from './measures';

/**
 * Cloning evaluated on held-out speech. Each sample speaker is cloned from
 * ~10-30 s of audio (intake → cloneSample, as the worker does), then, on a
 * text none of the cloning saw, measured against *other* recordings of the
 * speaker (never the audio cloned from):
 *
 * - the clone (its base voice with its pitch, EQ and tempo);
 * - the best unmodified premade voice: every voice of the language reads the
 *   text plain, the closest one counts (what a clone must not fall below);
 * - the clone of another speaker of the same sex and language (built from a
 *   different source voice or person): what an impostor scores;
 * - the stored `similarity` beside it (is the figure a guide?), the
 *   same-speaker scale (the two halves the service splits the sample into,
 *   scored against each other) and intelligibility kept (pocketsphinx WER of
 *   the clone against its base voice read plain, English).
 *
 *   npx tsx bench/cloning.ts          (CLONING_ONLY=Allison,joe: the samples whose names contain either)
 *
 * Samples: real speech from Debian main (asterisk-core-sounds-{en,fr,it}-g722,
 * pocketsphinx-testdata) when installed, and generated speakers that are not
 * premade voices as they are: eSpeak NG, Flite, Festival and Piper voices
 * pitch- and formant-shifted by rubberband (another vocal-tract size), through
 * a cheap microphone's band or a phone's (300-3400 Hz at 8 kHz), and
 * phone-band copies of real speech. Nothing here is tuned to these speakers.
 */

export interface Reference {
  name: string;
  kind: 'real' | 'engine';
  language: string;
  /** The audio to clone from (16 kHz mono WAV). */
  clonePath: string;
  /** Other recordings of the same speaker, for the held-out comparison. */
  heldOutPath: string;
  /** The text the clone and the premade voices read. */
  heldOutText: string;
  /** What the held-out recordings say, when known (generated speakers): their own WER, the speaker's quality. */
  heldOutTranscript?: string;
  /** The person or premade voice the sample was made from: a clone of another speaker comes from a different source. */
  source?: string;
}

const ASTERISK = '/usr/share/asterisk/sounds';
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const CLONE_PROMPTS = ['vm-options', 'vm-intro', 'tt-weasels'];
const HELD_OUT_PROMPTS = ['vm-instructions', 'pbx-invalid', 'conf-onlyperson', 'privacy-prompt'];

export const HELD_OUT_TEXT: Readonly<Record<string, string>> = {
  en: 'The boy was there when the sun rose. A rod is used to catch pink salmon. The source of the huge river is the clear spring.',
  fr: "Le garçon était là quand le soleil s'est levé. La source du grand fleuve est une eau claire.",
  it: 'Il ragazzo era lì quando è sorto il sole. La sorgente del grande fiume è una fonte limpida.',
};

const ENGINE_CLONE_TEXT =
  "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It's easy to tell the depth of a well. " +
  'These days a chicken leg is a rare dish. Rice is often served in round bowls. The juice of lemons makes fine punch. ' +
  'The box was thrown beside the parked truck. The hogs were fed chopped corn and garbage. Four hours of steady work faced us.';
const ENGINE_HELD_OUT_TEXT =
  'A large size in stockings is hard to sell. The wide road shimmered in the hot sun. Help the woman get back to her feet.';

/** Concatenates audio files to one 16 kHz mono WAV (`inputFormat` e.g. `g722` for headerless input). */
export async function concatAudio(inputs: readonly string[], outPath: string, inputFormat?: string): Promise<void> {
  const args = inputs.flatMap((input) => [...(inputFormat ? ['-f', inputFormat] : []), '-i', fileUrl(input)]);
  const labels = inputs.map((_, i) => `[${i}:a]`).join('');
  await ffmpeg([
    ...args,
    '-filter_complex',
    `${labels}concat=n=${inputs.length}:v=0:a=1,aformat=channel_layouts=mono`,
    '-ar',
    '16000',
    '-c:a',
    'pcm_s16le',
    fileUrl(outPath),
  ]);
}

/** The real-speech references installed on this machine (each needs its Debian package). */
export async function realReferences(dir: string): Promise<Reference[]> {
  const references: Reference[] = [];
  const librivox = ['0870', '0890', '0920', '0880', '0930'].map((n) =>
    path.join(LIBRIVOX, `sense_and_sensibility_01_austen_64kb-${n}.wav`),
  );
  if (librivox.every(existsSync)) {
    const clonePath = path.join(dir, 'librivox-clone.wav');
    const heldOutPath = path.join(dir, 'librivox-heldout.wav');
    await concatAudio(librivox.slice(0, 3), clonePath);
    await concatAudio(librivox.slice(3), heldOutPath);
    references.push({
      name: 'LibriVox reader (M, pocketsphinx-testdata)',
      kind: 'real',
      language: 'en-US',
      clonePath,
      heldOutPath,
      heldOutText: HELD_OUT_TEXT.en,
      source: 'librivox',
    });
  }
  const speakers: Array<[string, string, string]> = [
    ['en_US_f_Allison', 'en-US', 'Allison (F, asterisk en)'],
    ['fr_CA_f_June', 'fr-CA', 'June (F, asterisk fr)'],
    ['it_IT_m_Carlo', 'it-IT', 'Carlo (M, asterisk it)'],
  ];
  for (const [folder, language, name] of speakers) {
    const prompt = (id: string) => path.join(ASTERISK, folder, `${id}.g722`);
    if (![...CLONE_PROMPTS, ...HELD_OUT_PROMPTS].every((id) => existsSync(prompt(id)))) continue;
    const clonePath = path.join(dir, `${folder}-clone.wav`);
    const heldOutPath = path.join(dir, `${folder}-heldout.wav`);
    await concatAudio(CLONE_PROMPTS.map(prompt), clonePath, 'g722');
    await concatAudio(HELD_OUT_PROMPTS.map(prompt), heldOutPath, 'g722');
    references.push({
      name,
      kind: 'real',
      language,
      clonePath,
      heldOutPath,
      heldOutText: HELD_OUT_TEXT[language.split('-')[0]],
      source: folder,
    });
  }
  return references;
}

export interface EngineSpeaker {
  name: string;
  /** espeak-ng voice, `flite:<voice>` or `premade:<catalog id>` (rendered by the service's own engines). */
  voice: string;
  /** rubberband pitch ratio with formants shifted along (a different vocal-tract size), and tempo; 1 and 1: untouched. */
  pitch: number;
  tempo: number;
  /** An ffmpeg filter after that: a microphone's or a phone's band. */
  filter?: string;
}

/** A phone line: 300-3400 Hz, through 8 kHz. */
export const PHONE_BAND = 'highpass=f=300:poles=2,lowpass=f=3400:poles=2,aresample=8000,aresample=16000';
/** A cheap microphone: thin lows, dull highs, a presence bump. */
const CHEAP_MIC = 'highpass=f=180:poles=2,lowpass=f=5000:poles=2,equalizer=f=2500:t=q:w=1:g=5';

export const ENGINE_SPEAKERS: readonly EngineSpeaker[] = [
  { name: 'eSpeak m3, -3 st, formants shifted', voice: 'en-us+m3', pitch: 0.84, tempo: 0.9 },
  { name: 'eSpeak f4, +2 st, formants shifted', voice: 'en-us+f4', pitch: 1.12, tempo: 1.1 },
  { name: 'Flite kal16, +4 st, formants shifted', voice: 'flite:kal16', pitch: 1.26, tempo: 1 },
  {
    name: 'Festival kal, +3 st, formants shifted, cheap mic',
    voice: 'premade:en-us-festival-kal',
    pitch: 1.19,
    tempo: 1,
    filter: CHEAP_MIC,
  },
  { name: 'Festival slt (HTS), phone band', voice: 'premade:en-us-slt', pitch: 1, tempo: 1, filter: PHONE_BAND },
  { name: 'Piper joe, -2 st, formants shifted', voice: 'premade:en-us-joe', pitch: 0.89, tempo: 1.05 },
  { name: 'Piper joe, phone band', voice: 'premade:en-us-joe', pitch: 1, tempo: 1, filter: PHONE_BAND },
];

async function renderEngineSpeaker(
  speaker: EngineSpeaker,
  text: string,
  outPath: string,
  engines?: EngineRegistry,
): Promise<void> {
  const raw = `${outPath}.raw.wav`;
  if (speaker.voice.startsWith('flite:')) await run('flite', ['-voice', speaker.voice.slice(6), '-t', text, '-o', raw]);
  else if (speaker.voice.startsWith('premade:')) {
    const voice = findPremadeVoice(speaker.voice.slice(8));
    if (!voice) throw new Error(`unknown voice ${speaker.voice}`);
    await renderChunk({ voice, text, emotion: 'neutral', outPath: raw, engines });
  } else await run('espeak-ng', ['-v', speaker.voice, '-w', raw, text]);
  const filters = [
    ...(speaker.pitch !== 1 || speaker.tempo !== 1
      ? [`rubberband=pitch=${speaker.pitch}:tempo=${speaker.tempo}:formant=shifted:pitchq=quality`]
      : []),
    ...(speaker.filter ? [speaker.filter] : []),
    'aformat=channel_layouts=mono',
  ];
  await filterToWav(raw, filters.join(','), outPath, 16_000);
  await rm(raw, { force: true });
}

/** Synthetic speakers that are not premade voices as they are: engine variants with their vocal-tract scale or channel moved. */
export async function engineReferences(
  dir: string,
  speakers: readonly EngineSpeaker[] = ENGINE_SPEAKERS,
  engines?: EngineRegistry,
): Promise<Reference[]> {
  const references: Reference[] = [];
  // One at a time: a Piper or Festival speaker is a full synthesis.
  for (const [i, speaker] of speakers.entries()) {
    const clonePath = path.join(dir, `engine-${i}-clone.wav`);
    const heldOutPath = path.join(dir, `engine-${i}-heldout.wav`);
    await renderEngineSpeaker(speaker, ENGINE_CLONE_TEXT, clonePath, engines);
    await renderEngineSpeaker(speaker, ENGINE_HELD_OUT_TEXT, heldOutPath, engines);
    references.push({
      name: speaker.name,
      kind: 'engine',
      language: 'en-US',
      clonePath,
      heldOutPath,
      heldOutText: HELD_OUT_TEXT.en,
      heldOutTranscript: ENGINE_HELD_OUT_TEXT,
      source: speaker.voice.replace(/^(premade|flite):/, ''),
    });
  }
  return references;
}

/** Phone-band copies of real references (both the audio cloned from and the held-out recordings). */
export async function phoneBandCopies(references: readonly Reference[], dir: string): Promise<Reference[]> {
  return Promise.all(
    references.map(async (reference, i) => {
      const clonePath = path.join(dir, `phone-${i}-clone.wav`);
      const heldOutPath = path.join(dir, `phone-${i}-heldout.wav`);
      await filterToWav(reference.clonePath, PHONE_BAND, clonePath, 16_000);
      await filterToWav(reference.heldOutPath, PHONE_BAND, heldOutPath, 16_000);
      return { ...reference, name: `${reference.name}, phone band`, clonePath, heldOutPath };
    }),
  );
}

/**
 * CPU seconds used so far by this process and the children it waited for
 * (ffmpeg, the engines): on a shared machine wall time says more about the
 * neighbours than about cloning.
 */
export function cpuSeconds(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    // /proc/self/stat fields 16-17 (after the parenthesized command name): cutime, cstime in clock ticks.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    // not Linux: own time only
  }
  return (own.user + own.system) / 1e6 + children;
}

export interface Evaluation {
  reference: Reference;
  clone: ClonedVoiceProfile;
  cloneSeconds: number;
  buildSeconds: number;
  buildCpuSeconds: number;
  /** The other recordings of the speaker. */
  heldOut: SpeakerProfile;
  /** The clone reading the held-out text. */
  cloned: SpeakerProfile;
  /** What the clone's WAV is, for the WER. */
  clonedPath: string;
  /** The two halves of the sample scored against each other (the same-speaker scale). */
  halves: { fit: SpeakerProfile; heldOut: SpeakerProfile; split: boolean };
}

/** Renders `text` with a premade voice, optionally adjusted by a clone, to a finished WAV; its path. */
export async function speakTo(
  voice: PremadeVoice,
  text: string,
  dir: string,
  clone: Pick<ClonedVoiceProfile, 'semitones' | 'eq' | 'rate'> | null,
  engines?: EngineRegistry,
): Promise<string> {
  const chunkPath = path.join(dir, `${voice.id}-${Math.random().toString(36).slice(2)}.wav`);
  const outPath = `${chunkPath}.out.wav`;
  const voicing = {
    pitch: 0,
    emotion: 'neutral' as const,
    ...(clone ? cloneFinishOptions(clone) : { speed: 1, profile: undefined }),
  };
  await renderChunk({ voice, text, ...voicing, outPath: chunkPath, engines });
  await finishAudio({ chunks: [chunkPath], format: 'wav', outPath, ...voicing });
  return outPath;
}

/** Renders `text` with a premade voice, optionally adjusted by a clone, and profiles the result. */
export async function speak(
  voice: PremadeVoice,
  text: string,
  dir: string,
  clone: Pick<ClonedVoiceProfile, 'semitones' | 'eq' | 'rate'> | null,
  engines?: EngineRegistry,
): Promise<SpeakerProfile> {
  return analyseSpeaker(await speakTo(voice, text, dir, clone, engines));
}

/** Clones one reference as the worker does and renders the clone on the held-out text. */
export async function evaluateReference(
  reference: Reference,
  dir: string,
  engines: EngineRegistry,
): Promise<Evaluation> {
  const normalized = path.join(dir, `${path.basename(reference.clonePath, '.wav')}-intake.wav`);
  const intake = await intakeSample(reference.clonePath, normalized);
  if (!intake.ok) throw new Error(`${reference.name}: intake rejected it (${intake.code}: ${intake.message})`);
  const started = Date.now();
  const cpuBefore = cpuSeconds();
  const clone = await cloneSample({ samplePath: normalized, language: reference.language, engines });
  const buildSeconds = (Date.now() - started) / 1000;
  const buildCpuSeconds = cpuSeconds() - cpuBefore;
  const clonedPath = await speakTo(findPremadeVoice(clone.baseVoiceId)!, reference.heldOutText, dir, clone, engines);
  return {
    reference,
    clone,
    cloneSeconds: intake.seconds,
    buildSeconds,
    buildCpuSeconds,
    heldOut: await analyseSpeaker(reference.heldOutPath),
    cloned: await analyseSpeaker(clonedPath),
    clonedPath,
    halves: await analyseSampleHalves(normalized),
  };
}

/** Every premade voice of `language` reading `text` plain, profiled (and the WAV kept, for the WER), once per language. */
async function premadeReadings(
  language: string,
  text: string,
  dir: string,
  engines: EngineRegistry,
): Promise<Array<{ voice: PremadeVoice; path: string; profile: SpeakerProfile }>> {
  const primary = (tag: string) => tag.split('-')[0].toLowerCase();
  const voices = (await availableVoices({ engines })).filter((voice) => primary(voice.language) === primary(language));
  const readings = [];
  for (const voice of voices) {
    try {
      const wav = await speakTo(voice, text, dir, null, engines);
      readings.push({ voice, path: wav, profile: await analyseSpeaker(wav) });
    } catch {
      // a voice that does not render here is no candidate either
    }
  }
  return readings;
}

const isLow = (profile: SpeakerProfile) => (profile.f0MedianHz ?? 0) < 165;
const fixed = (value: number | undefined | null, digits = 2) =>
  value === undefined || value === null || Number.isNaN(value) ? '—' : value.toFixed(digits);

interface Row {
  cells: string[];
  clone: number;
  bestPlain: number;
  other: number | null;
  stored: number;
  halves: number | null;
}

async function werOf(wav: string, text: string): Promise<number | null> {
  const heard = await hear(wav);
  if (heard === null) return null;
  const { errors, words } = wordErrors(text, heard);
  return errors / words;
}

async function rows(
  evaluations: readonly Evaluation[],
  dir: string,
  engines: EngineRegistry,
): Promise<{ table: Row[]; differentHalves: number[] }> {
  const readings = new Map<string, Awaited<ReturnType<typeof premadeReadings>>>();
  const table: Row[] = [];
  for (const evaluation of evaluations) {
    const { reference, clone, heldOut, cloned } = evaluation;
    const key = `${reference.language.split('-')[0]}\n${reference.heldOutText}`;
    if (!readings.has(key))
      readings.set(key, await premadeReadings(reference.language, reference.heldOutText, dir, engines));
    const plain = readings
      .get(key)!
      .map((reading) => ({ ...reading, score: similarityScore(heldOut, reading.profile) }))
      .sort((a, b) => b.score - a.score);
    const bestPlain = plain[0];
    // The clone of another speaker: same language and sex, another source, the closest in F0 (the hardest impostor).
    const others = evaluations
      .filter(
        (other) =>
          other !== evaluation &&
          other.reference.source !== reference.source &&
          other.reference.language.split('-')[0] === reference.language.split('-')[0] &&
          isLow(other.halves.fit) === isLow(evaluation.halves.fit),
      )
      .sort(
        (a, b) =>
          Math.abs(Math.log((a.heldOut.f0MedianHz ?? 1) / (heldOut.f0MedianHz ?? 1))) -
          Math.abs(Math.log((b.heldOut.f0MedianHz ?? 1) / (heldOut.f0MedianHz ?? 1))),
      );
    const impostor = others[0];
    const adjusted = clone.semitones !== 0 || clone.eq.length > 0 || clone.rate !== 1;
    // A clone that is a premade voice unchanged is scored on that voice's reading above: the same voice, and Piper's
    // sampling noise (it renders differently each time) is no difference between them.
    const sameVoice = adjusted ? undefined : plain.find((reading) => reading.voice.id === clone.baseVoiceId);
    const cloneScore = sameVoice ? sameVoice.score : similarityScore(heldOut, cloned);
    const otherScore = impostor ? similarityScore(heldOut, impostor.cloned) : null;
    const halvesScore = evaluation.halves.split
      ? similarityScore(evaluation.halves.fit, evaluation.halves.heldOut)
      : null;
    let wer = '—';
    if (reference.language.startsWith('en')) {
      const base = plain.find((reading) => reading.voice.id === clone.baseVoiceId);
      const [baseWer, cloneWer] = [
        base ? await werOf(base.path, reference.heldOutText) : null,
        await werOf(evaluation.clonedPath, reference.heldOutText),
      ];
      const speakerWer = reference.heldOutTranscript
        ? await werOf(reference.heldOutPath, reference.heldOutTranscript)
        : null;
      if (cloneWer !== null)
        wer = `${fixed(baseWer === null ? null : baseWer * 100, 0)} → ${fixed(cloneWer * 100, 0)} % (${fixed(speakerWer === null ? null : speakerWer * 100, 0)})`;
    }
    table.push({
      clone: cloneScore,
      bestPlain: bestPlain.score,
      other: otherScore,
      stored: clone.similarity,
      halves: halvesScore,
      cells: [
        `${reference.name} [${reference.kind}]`,
        `${evaluation.cloneSeconds.toFixed(0)} s`,
        adjusted
          ? `${clone.baseVoiceId} ${clone.semitones >= 0 ? '+' : ''}${clone.semitones.toFixed(1)} st x${clone.rate.toFixed(2)}${clone.eq.length ? ' EQ' : ''}`
          : `${clone.baseVoiceId} unchanged`,
        fixed(cloneScore),
        `${fixed(bestPlain.score)} ${bestPlain.voice.id}`,
        `${cloneScore >= bestPlain.score ? '+' : ''}${fixed(cloneScore - bestPlain.score)}`,
        impostor ? `${fixed(otherScore)} (${impostor.reference.name.split(',')[0]})` : '—',
        fixed(clone.similarity),
        fixed(halvesScore),
        wer,
        `${evaluation.buildSeconds.toFixed(0)} s / ${evaluation.buildCpuSeconds.toFixed(1)} s`,
      ],
    });
  }
  // The different-speaker scale: one sample's fit half against another source's held-out half.
  const differentHalves: number[] = [];
  for (const a of evaluations)
    for (const b of evaluations)
      if (a !== b && a.reference.source !== b.reference.source && a.halves.split && b.halves.split)
        differentHalves.push(similarityScore(a.halves.fit, b.halves.heldOut));
  return { table, differentHalves };
}

const HEADER = [
  'sample',
  'cloned from',
  'chosen (base, shift, tempo)',
  'held-out: clone',
  'best unmodified premade',
  'clone − best premade',
  'clone of another speaker',
  'stored similarity',
  'sample halves',
  'WER base → clone (speaker)',
  'build wall / CPU',
];

export function formatTable(header: readonly string[], body: readonly string[][]): string {
  const all = [header, ...body];
  const widths = header.map((_, c) => Math.max(...all.map((r) => r[c].length)));
  const line = (cells: readonly string[]) => `| ${cells.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
const quantile = (values: readonly number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))] ?? NaN;
};

async function main(): Promise<void> {
  // With the Piper voices (MODELS_DIR), as the worker has them.
  const engines = createEngines({
    enableNonFree: process.env.ENABLE_NONFREE_ENGINES === 'true',
    modelsDir: process.env.MODELS_DIR ?? defaultModelsDir(),
  });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-bench-cloning-'));
  try {
    const real = await realReferences(dir);
    const allison = real.filter((reference) => reference.source === 'en_US_f_Allison');
    // CLONING_ONLY=<part of a sample's name>[,...]: only those samples (no impostor column without a second one).
    const only = (process.env.CLONING_ONLY ?? '').split(',').filter(Boolean);
    const references = [
      ...real,
      ...(await phoneBandCopies(allison, dir)),
      ...(await engineReferences(dir, undefined, engines)),
    ].filter((reference) => only.length === 0 || only.some((part) => reference.name.includes(part)));
    if (real.length === 0) {
      console.warn(
        'No real speech installed (apt-get install asterisk-core-sounds-en-g722 asterisk-core-sounds-fr-g722 asterisk-core-sounds-it-g722 pocketsphinx-testdata): generated samples only.',
      );
    }
    const evaluations: Evaluation[] = [];
    for (const reference of references) {
      evaluations.push(await evaluateReference(reference, dir, engines));
      const { clone } = evaluations.at(-1)!;
      process.stderr.write(`${reference.name}: ${clone.baseVoiceId}\n`);
      // CLONING_TRIED=<n>: the n best candidates the service scored, as the voice's diagnostics keep them.
      for (const tried of clone.tried.slice(0, Number(process.env.CLONING_TRIED ?? 0)))
        process.stderr.write(
          `  ${fixed(tried.similarity)} ${tried.voiceId} ${tried.stage} ${fixed(tried.semitones, 1)} st x${fixed(tried.rate)}\n`,
        );
    }
    const { table, differentHalves } = await rows(evaluations, dir, engines);
    console.log(
      formatTable(
        HEADER,
        table.map((row) => row.cells),
      ),
    );
    const below = table.filter((row) => row.clone < row.bestPlain);
    const withOther = table.filter((row) => row.other !== null);
    const sameHalves = table.flatMap((row) => (row.halves === null ? [] : [row.halves]));
    console.log(
      `\n${table.length} samples. Clone below the best unmodified premade on held-out speech: ${below.length}` +
        (below.length ? ` (by ${below.map((row) => fixed(row.bestPlain - row.clone)).join(', ')})` : '') +
        `. Clone above the clone of another speaker: ${withOther.filter((row) => row.clone > row.other!).length} of ${withOther.length}.\n` +
        `Means: clone ${fixed(mean(table.map((row) => row.clone)))}, best unmodified ${fixed(mean(table.map((row) => row.bestPlain)))}, ` +
        `another speaker's clone ${fixed(mean(withOther.map((row) => row.other!)))}, stored ${fixed(mean(table.map((row) => row.stored)))}; ` +
        `mean |stored − held-out| ${fixed(mean(table.map((row) => Math.abs(row.stored - row.clone))))}.\n` +
        `Scale (the two halves of one sample): same speaker ${fixed(mean(sameHalves))} (10th-90th percentile ${fixed(quantile(sameHalves, 0.1))}-${fixed(quantile(sameHalves, 0.9))}, n=${sameHalves.length}); ` +
        `different speakers ${fixed(mean(differentHalves))} (${fixed(quantile(differentHalves, 0.1))}-${fixed(quantile(differentHalves, 0.9))}, n=${differentHalves.length}).\n` +
        `CPU to build all clones: ${fixed(
          evaluations.reduce((sum, e) => sum + e.buildCpuSeconds, 0),
          1,
        )} s; wall ${fixed(
          evaluations.reduce((sum, e) => sum + e.buildSeconds, 0),
          0,
        )} s.`,
    );
    console.log(
      '\nheld-out: similarityScore(other recordings of the speaker, rendering of a text no part of the cloning saw). best unmodified: the\n' +
        'closest premade voice of the language read plain. another speaker: the clone of a different source of the same sex and language.\n' +
        "stored: the voice's similarity. sample halves: the two halves the service splits the sample into, scored against each other.\n" +
        'WER: pocketsphinx on the held-out text, the chosen base voice plain → the clone (intelligibility kept), and in brackets the\n' +
        "speaker's own held-out recording (generated speakers, whose text is known).",
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
