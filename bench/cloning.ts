import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { profileDistances, similarityScore } from '../audio/cloning/similarity';
import { analyseSpeaker, type SpeakerProfile } from '../audio/cloning/speaker';
import { buildVoiceProfile, type ClonedVoiceProfile, cloneFinishOptions } from '../audio/cloning/profile';
import { intakeSample } from '../audio/cloning/intake';
import { ffmpeg, fileUrl } from '../audio/ffmpeg';
import { finishAudio } from '../audio/finish';
import { renderChunk } from '../audio/render';
import { availableVoices, findPremadeVoice, type PremadeVoice } from '../engines/catalog';
import { run } from '../lib/process';
import type { EngineRegistry } from '../engines/registry';
import { createEngines } from '../engines/registry';
import { defaultModelsDir } from '../lib/config';
import { filterToWav } from './measures';

/**
 * Cloning evaluated on held-out material: each reference speaker is cloned
 * from ~20 s of audio (intake → analyseSpeaker → buildVoiceProfile), then the
 * clone and the language's default voice read a held-out text, and both are
 * measured against *other* recordings of the reference (not the ones cloned
 * from). Goals (DESIGN.md): F0 within 10 %, LTAS/MFCC distance 30 % smaller
 * than the default voice's. Nothing here is tuned to these speakers.
 *
 *   npx tsx bench/cloning.ts
 *
 * Real speech comes from Debian main (asterisk-core-sounds-{en,fr,it}-g722,
 * pocketsphinx-testdata) when installed; engine references are eSpeak NG and
 * Flite voices that are not base voices, pitch- and formant-shifted by
 * rubberband so that their vocal-tract scale differs from any base voice.
 */

export interface Reference {
  name: string;
  kind: 'real' | 'engine';
  language: string;
  /** The audio to clone from (16 kHz mono WAV). */
  clonePath: string;
  /** Other recordings of the same speaker, for the held-out comparison. */
  heldOutPath: string;
  /** The text the clone and the default voice read. */
  heldOutText: string;
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
    });
  }
  return references;
}

interface EngineSpeaker {
  name: string;
  /** espeak-ng voice or `flite:<voice>`. */
  voice: string;
  /** rubberband pitch ratio with formants shifted along (a different vocal-tract size), and tempo. */
  pitch: number;
  tempo: number;
}

export const ENGINE_SPEAKERS: readonly EngineSpeaker[] = [
  { name: 'eSpeak m3, -3 st, formants shifted', voice: 'en-us+m3', pitch: 0.84, tempo: 0.9 },
  { name: 'eSpeak f4, +2 st, formants shifted', voice: 'en-us+f4', pitch: 1.12, tempo: 1.1 },
  { name: 'Flite kal16, +4 st, formants shifted', voice: 'flite:kal16', pitch: 1.26, tempo: 1 },
];

async function renderEngineSpeaker(speaker: EngineSpeaker, text: string, outPath: string): Promise<void> {
  const raw = `${outPath}.raw.wav`;
  if (speaker.voice.startsWith('flite:')) await run('flite', ['-voice', speaker.voice.slice(6), '-t', text, '-o', raw]);
  else await run('espeak-ng', ['-v', speaker.voice, '-w', raw, text]);
  await filterToWav(
    raw,
    `rubberband=pitch=${speaker.pitch}:tempo=${speaker.tempo}:formant=shifted:pitchq=quality`,
    outPath,
    16_000,
  );
  await rm(raw, { force: true });
}

/** Synthetic speakers that are not base voices: engine variants with their vocal-tract scale moved. */
export async function engineReferences(
  dir: string,
  speakers: readonly EngineSpeaker[] = ENGINE_SPEAKERS,
): Promise<Reference[]> {
  return Promise.all(
    speakers.map(async (speaker, i) => {
      const clonePath = path.join(dir, `engine-${i}-clone.wav`);
      const heldOutPath = path.join(dir, `engine-${i}-heldout.wav`);
      await renderEngineSpeaker(speaker, ENGINE_CLONE_TEXT, clonePath);
      await renderEngineSpeaker(speaker, ENGINE_HELD_OUT_TEXT, heldOutPath);
      return {
        name: speaker.name,
        kind: 'engine' as const,
        language: 'en-US',
        clonePath,
        heldOutPath,
        heldOutText: HELD_OUT_TEXT.en,
      };
    }),
  );
}

/** Renders `text` with a premade voice, optionally adjusted by a clone, and profiles the result. */
export async function speak(
  voice: PremadeVoice,
  text: string,
  dir: string,
  clone: ClonedVoiceProfile | null,
  engines?: EngineRegistry,
): Promise<SpeakerProfile> {
  const chunkPath = path.join(dir, `${voice.id}-${Math.random().toString(36).slice(2)}.wav`);
  const outPath = `${chunkPath}.out.wav`;
  const voicing = {
    pitch: 0,
    emotion: 'neutral' as const,
    ...(clone ? cloneFinishOptions(clone) : { speed: 1, profile: undefined }),
  };
  await renderChunk({ voice, text, ...voicing, outPath: chunkPath, engines });
  await finishAudio({ chunks: [chunkPath], format: 'wav', outPath, ...voicing });
  return analyseSpeaker(outPath);
}

export interface Evaluation {
  reference: Reference;
  clone: ClonedVoiceProfile;
  defaultVoiceId: string;
  cloneSeconds: number;
  buildSeconds: number;
  buildCpuSeconds: number;
  sample: SpeakerProfile;
  heldOut: SpeakerProfile;
  cloned: SpeakerProfile;
  plain: SpeakerProfile;
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

/** Clones one reference and measures the clone and the default voice on the held-out text. */
export async function evaluateReference(
  reference: Reference,
  dir: string,
  engines: EngineRegistry,
): Promise<Evaluation> {
  const normalized = path.join(dir, `${path.basename(reference.clonePath, '.wav')}-intake.wav`);
  const intake = await intakeSample(reference.clonePath, normalized);
  if (!intake.ok) throw new Error(`${reference.name}: intake rejected it (${intake.code}: ${intake.message})`);
  const sample = await analyseSpeaker(normalized);
  const started = Date.now();
  const cpuBefore = cpuSeconds();
  const clone = await buildVoiceProfile({ sample, language: reference.language, engines });
  const buildSeconds = (Date.now() - started) / 1000;
  const buildCpuSeconds = cpuSeconds() - cpuBefore;
  const voices = await availableVoices({ engines });
  const primary = reference.language.split('-')[0];
  const defaultVoice =
    primary === 'en'
      ? findPremadeVoice('en-us-slt')!
      : voices.find((voice) => voice.language.split('-')[0] === primary)!;
  const [heldOut, cloned, plain] = await Promise.all([
    analyseSpeaker(reference.heldOutPath),
    speak(findPremadeVoice(clone.baseVoiceId)!, reference.heldOutText, dir, clone, engines),
    speak(defaultVoice, reference.heldOutText, dir, null, engines),
  ]);
  return {
    reference,
    clone,
    defaultVoiceId: defaultVoice.id,
    cloneSeconds: intake.seconds,
    buildSeconds,
    buildCpuSeconds,
    sample,
    heldOut,
    cloned,
    plain,
  };
}

const pct = (value: number) => `${(value * 100).toFixed(0)} %`;

function row(evaluation: Evaluation): string[] {
  const { reference, clone, heldOut, cloned, plain } = evaluation;
  const toClone = profileDistances(heldOut, cloned);
  const toPlain = profileDistances(heldOut, plain);
  const f0Error = heldOut.f0MedianHz && cloned.f0MedianHz ? Math.abs(cloned.f0MedianHz / heldOut.f0MedianHz - 1) : NaN;
  const rateError =
    heldOut.syllablesPerSecond && cloned.syllablesPerSecond
      ? Math.abs(cloned.syllablesPerSecond / heldOut.syllablesPerSecond - 1)
      : NaN;
  return [
    `${reference.name} [${reference.kind}]`,
    `${evaluation.cloneSeconds.toFixed(0)} s`,
    `${clone.baseVoiceId} ${clone.semitones >= 0 ? '+' : ''}${clone.semitones.toFixed(1)} st x${clone.rate.toFixed(2)}`,
    `${evaluation.sample.f0MedianHz?.toFixed(0)} / ${heldOut.f0MedianHz?.toFixed(0)} / ${cloned.f0MedianHz?.toFixed(0)} / ${plain.f0MedianHz?.toFixed(0)}`,
    pct(f0Error),
    `${evaluation.sample.syllablesPerSecond?.toFixed(1)} / ${heldOut.syllablesPerSecond?.toFixed(1)} / ${cloned.syllablesPerSecond?.toFixed(1)}`,
    pct(rateError),
    `${toClone.ltasDb.toFixed(1)} / ${toPlain.ltasDb.toFixed(1)}`,
    pct(1 - toClone.ltasDb / toPlain.ltasDb),
    `${toClone.mfcc.toFixed(1)} / ${toPlain.mfcc.toFixed(1)}`,
    pct(1 - toClone.mfcc / toPlain.mfcc),
    `${similarityScore(heldOut, cloned).toFixed(2)} / ${similarityScore(heldOut, plain).toFixed(2)} (${clone.similarity.toFixed(2)})`,
    `${evaluation.buildSeconds.toFixed(1)} s / ${evaluation.buildCpuSeconds.toFixed(1)} s`,
  ];
}

export function formatTable(evaluations: readonly Evaluation[]): string {
  const header = [
    'reference',
    'cloned from',
    'base, shift, tempo',
    'F0 Hz sample/held-out/clone/default',
    'F0 err',
    'syll/s sample/held-out/clone',
    'rate err',
    'LTAS dB clone/default',
    'LTAS closer',
    'MFCC clone/default',
    'MFCC closer',
    'similarity clone/default (stored)',
    'build wall/CPU',
  ];
  const rows = [header, ...evaluations.map(row)];
  const widths = header.map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const line = (cells: string[]) => `| ${cells.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

async function main(): Promise<void> {
  // With the Piper voices (MODELS_DIR), as the worker has them: clones start from the neural voices of the language.
  const engines = createEngines({
    enableNonFree: process.env.ENABLE_NONFREE_ENGINES === 'true',
    modelsDir: process.env.MODELS_DIR ?? defaultModelsDir(),
  });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-bench-cloning-'));
  try {
    const references = [...(await realReferences(dir)), ...(await engineReferences(dir))];
    if (!references.some((reference) => reference.kind === 'real')) {
      console.warn(
        'No real speech installed (apt-get install asterisk-core-sounds-en-g722 asterisk-core-sounds-fr-g722 asterisk-core-sounds-it-g722 pocketsphinx-testdata): engine references only.',
      );
    }
    const evaluations: Evaluation[] = [];
    for (const reference of references) {
      evaluations.push(await evaluateReference(reference, dir, engines));
      process.stderr.write(`${reference.name}: done\n`);
    }
    console.log(formatTable(evaluations));
    console.log(
      '\nF0 err: |clone / held-out reference - 1| (goal < 10 %). rate err: articulation rate (syllable nuclei per second of speech).\n' +
        'LTAS: RMS level-aligned difference over 28 bands, dB; MFCC: Euclidean distance of mean c1..c12; "closer" = 1 - clone/default (goal >= 30 %).\n' +
        'All distances are to held-out recordings of the reference, not to the audio the clone was built from. The similarity measures\n' +
        'spectral balance, pitch and rate: it follows timbre more than identity.',
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
