import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Charset, encodeText, transliterate } from './text';
import { FestivalExit, FestivalPool } from './festivalProcess';
import { fileSize, which, withTempDir } from '../lib/process';
import { describeEngine, type Engine, EngineError, type EngineTiming, type EngineWord } from './types';
import type { EngineOptions } from './registry';

/**
 * The Festival Speech Synthesis System 2.5 (free licences, Debian main), kept
 * running (engines/festivalProcess.ts), with the free voices Debian ships: HTS (statistical) voices for
 * US English and Catalan, diphone and cluster-unit voices for English,
 * Czech, Finnish, Italian, Russian, Hindi, Marathi and Telugu.
 *
 * A text2wave spawn loads Festival and the voice: 0.25-0.5 s before any
 * audio; the kept interpreters pay that once.
 * Most voices read their text in a legacy 8-bit charset: characters outside a
 * voice's alphabet make its letter-to-sound rules abort the utterance, so they
 * are transliterated first.
 */

const VOICES_DIR = '/usr/share/festival/voices';

interface VoiceText {
  charset: Charset;
  /** Non-ASCII characters the voice pronounces; everything else is transliterated. */
  letters?: RegExp;
  /** Reads symbols (%, @, /, ...) aloud; the other voices' rules abort on them, so they become spaces. */
  symbols?: boolean;
  /** Has Latin letters at all (the Indic voices crash on them). */
  latin?: boolean;
  /** Copes with punctuation inside a token ("3.5", "12:30"); the Russian voice does not. */
  innerPunctuation?: boolean;
}

const ENGLISH: VoiceText = { charset: 'ascii', symbols: true };
const CZECH: VoiceText = { charset: 'latin2', letters: /[áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ]/u };
const FINNISH: VoiceText = { charset: 'latin1', letters: /[äöåÄÖÅ]/u };
const ITALIAN: VoiceText = { charset: 'latin1', letters: /[àèéìíîòóùúÀÈÉÌÍÎÒÓÙÚ]/u };
const DEVANAGARI: VoiceText = { charset: 'utf8', letters: /[\u0900-\u097f\u200c\u200d]/u, latin: false };

/** Null prototype: a voice named "constructor" finds nothing here (the lookup is by a name, not a known key). */
const VOICE_TEXT: Readonly<Record<string, VoiceText>> = Object.assign(
  Object.create(null) as Record<string, VoiceText>,
  {
    cmu_us_slt_arctic_hts: ENGLISH,
    kal_diphone: ENGLISH,
    ked_diphone: ENGLISH,
    // Catalan wants ISO-8859-15, identical to Latin-1 for every Catalan letter.
    upc_ca_ona_hts: { charset: 'latin1', letters: /[àèéíïòóúüçÀÈÉÍÏÒÓÚÜÇ·]/u },
    czech_dita: CZECH,
    czech_krb: CZECH,
    czech_machac: CZECH,
    czech_ph: CZECH,
    suo_fi_lj_diphone: FINNISH,
    hy_fi_mv_diphone: FINNISH,
    lp_diphone: ITALIAN,
    pc_diphone: ITALIAN,
    // UTF-8 Cyrillic; the voice knows no ё.
    msu_ru_nsh_clunits: { charset: 'utf8', letters: /[а-яА-Я]/u, innerPunctuation: false },
    hindi_NSK_diphone: DEVANAGARI,
    marathi_NSK_diphone: DEVANAGARI,
    telugu_NSK_diphone: { charset: 'utf8', letters: /[\u0c00-\u0c7f\u200c\u200d]/u, latin: false },
  },
);

/**
 * Reduces text to what a voice's front end survives. Festival voices abort an
 * utterance (or segfault) on characters outside their alphabet, on runs of
 * punctuation ("ok!!! ???"), and some on symbols or on punctuation inside a
 * token. Words stay; only what the voice cannot read becomes a space. `strict`
 * (the retry after a failure) keeps letters, digits, spaces and . , alone.
 */
export function festivalText(text: string, voice: string, strict = false): string {
  const spec = VOICE_TEXT[voice] ?? ENGLISH;
  let out = transliterate(
    voice === 'msu_ru_nsh_clunits' ? text.replace(/ё/g, 'е').replace(/Ё/g, 'Е') : text,
    spec.letters,
  );
  if (spec.latin === false) out = out.replace(/[A-Za-z]/g, ' ');
  if (!spec.symbols || strict) out = out.replace(/[^\p{L}\p{M}\p{N}\s.,!?;:'-]/gu, ' ');
  if (spec.innerPunctuation === false || strict)
    out = out.replace(/(?<=[\p{L}\p{M}\p{N}])[.,:;'-](?=[\p{L}\p{N}])/gu, ' ');
  if (strict) out = out.replace(/[^\p{L}\p{M}\p{N}\s.,]/gu, ' ');
  return out
    .replace(/([.,!?;:])[\s.,!?;:'-]*/g, '$1 ')
    .replace(/^[\s.,!?;:'-]+/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * hts_engine's speed factor r gives (1 + e)/r of the duration, e measured on
 * en-us-slt (bench/quality.ts, six sentences): asking r(1 + e) instead
 * brings it within ~1 %, so renderChunk's residual stretch (a whole
 * rubberband pass, which costs more than the error) is rarely needed.
 */
const HTS_RATE_ERROR: ReadonlyArray<readonly [number, number]> = [
  [0.5, -0.033],
  [0.75, -0.015],
  [1, 0],
  [1.5, 0.044],
  [2, 0.048],
];

export function htsRate(rate: number): number {
  const table = HTS_RATE_ERROR;
  const clamped = Math.min(table[table.length - 1][0], Math.max(table[0][0], rate));
  let error = 0;
  for (let i = 1; i < table.length; i++) {
    const [r0, e0] = table[i - 1];
    const [r1, e1] = table[i];
    if (clamped <= r1) {
      error = e0 + ((clamped - r0) / (r1 - r0)) * (e1 - e0);
      break;
    }
  }
  return rate * (1 + error);
}

export function createFestivalEngine({ niceness }: Pick<EngineOptions, 'niceness'> = {}): Engine {
  let voiceList: Promise<string[]> | undefined;
  const pool = new FestivalPool(niceness);

  return {
    name: festivalEngine.name,
    license: festivalEngine.license,
    // HTS voices take hts_engine's speed factor, the others Duration_Stretch.
    capabilities: { rate: { min: 0.4, max: 2.5 } },
    async available() {
      return (await which('festival')) !== null;
    },
    async voices() {
      if (!(await this.available())) return [];
      voiceList ??= installedVoices();
      return voiceList;
    },
    async hasVoice(voice) {
      return (await this.voices()).includes(voice);
    },
    async synthesize({ text, voice, rate = 1, outPath, signal }) {
      // The voice name becomes part of a Scheme expression: only plain identifiers pass.
      if (!/^[A-Za-z0-9_]+$/.test(voice))
        throw new EngineError('festival', `invalid voice name ${JSON.stringify(voice)}`);
      if (!(rate > 0 && Number.isFinite(rate))) throw new EngineError('festival', `invalid rate ${rate}`);
      const out = path.resolve(outPath);
      const charset = (VOICE_TEXT[voice] ?? ENGLISH).charset;
      return withTempDir(async (dir): Promise<EngineTiming> => {
        // The .txt name matters: Festival picks a markup mode (SABLE, ...) from the file's extension.
        const textFile = path.join(dir, 'input.txt');
        const wordsPath = path.join(dir, 'words.txt');
        let failure = '';
        for (const strict of [false, true]) {
          const prepared = festivalText(text, voice, strict);
          if (!/[\p{L}\p{N}]/u.test(prepared))
            throw new EngineError('festival', `nothing in the text that ${voice} can pronounce`);
          await writeFile(textFile, encodeText(prepared, charset));
          await rm(out, { force: true });
          try {
            // Duration_Stretch for the diphone and unit voices, hts_engine's own speed factor for the HTS ones.
            const stderr = await pool.with(voice, signal, (festival) =>
              festival.synthesize(
                {
                  textFile,
                  outPath: out,
                  wordsPath,
                  stretch: 1 / rate,
                  rate: voice.endsWith('_hts') ? htsRate(rate) : rate,
                },
                { signal },
              ),
            );
            // Festival reports a failed utterance on stderr and goes on.
            const error = /SIOD ERROR|no rule matches|could not open|not found/i.test(stderr);
            if (!error && (await fileSize(out)) > 44)
              return { words: festivalWords(await readFile(wordsPath, 'latin1').catch(() => '')) };
            failure = `${voice} produced no audio (${describeFailure(stderr)})`;
          } catch (error) {
            if (signal?.aborted) throw new EngineError('festival', 'aborted');
            if (!(error instanceof FestivalExit)) throw error;
            failure = `${voice} failed (${error.message.replace(/^festival /, '')})`;
          }
        }
        throw new EngineError('festival', failure);
      });
    },
  };
}

/**
 * The words file openvox_synth writes (engines/festivalProcess.ts): each
 * word's start and end within its utterance, moved by where the utterance
 * starts in the WAV. Token names come in the voice's charset; only the
 * alignment reads them, so Latin-1 decoding is enough.
 */
export function festivalWords(file: string): EngineWord[] {
  const words: EngineWord[] = [];
  for (const line of file.split('\n')) {
    const match = /^(\d+) (\d+) (\d+) (\S+) (\S+) ([^\t]*)\t(.*)$/.exec(line);
    if (!match) continue;
    const [offset, rate, token, start, end] = match.slice(1, 6).map(Number);
    if (!(rate > 0) || !Number.isFinite(start) || !Number.isFinite(end)) continue;
    words.push({
      text: match[6],
      start: offset / rate + start,
      end: offset / rate + end,
      token: { index: token, text: match[7] },
    });
  }
  return words;
}

/** Festival's stderr quotes the text it choked on: report the kind of failure only. */
function describeFailure(stderr: string): string {
  if (/no rule matches/.test(stderr)) return 'letter-to-sound rules found no match for a token';
  if (/unbound variable|could not open|not found/i.test(stderr)) return 'voice not installed';
  if (/SIOD ERROR/.test(stderr)) return 'Scheme error';
  return 'empty output';
}

async function installedVoices(): Promise<string[]> {
  const voices: string[] = [];
  let languages: string[];
  try {
    languages = await readdir(VOICES_DIR);
  } catch {
    return voices;
  }
  for (const language of languages) {
    try {
      for (const voice of await readdir(path.join(VOICES_DIR, language))) {
        if (/^[A-Za-z0-9_]+$/.test(voice)) voices.push(voice);
      }
    } catch {
      // not a directory
    }
  }
  return voices;
}

export const festivalEngine = describeEngine({
  name: 'festival',
  license: 'free',
  wordTiming: true,
  tier: 'classic',
  licence:
    "Festival and the Debian festvox voices: free licences (MIT/BSD-style; see each festvox package's copyright file).",
  create: ({ niceness }) => createFestivalEngine({ niceness }),
});
