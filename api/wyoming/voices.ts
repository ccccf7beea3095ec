import type { Db } from '../../db/knex';
import type { Account } from '../../db/models/Account';
import { Voice, type VoiceRow } from '../../db/models/Voice';

/**
 * The voices as Wyoming's `info` lists them, and a `synthesize`'s voice
 * (`{name, speaker}` or `{language}`) resolved to one of ours.
 *
 * A Wyoming voice is one of the account's voices (a premade voice or one of
 * its ready clones), named by its id, except the speakers of a multi-speaker
 * Piper model: those are one Wyoming voice named by the model (as
 * wyoming-piper names it), its speakers listed. A single-speaker model's name
 * (`en_US-joe-medium`, what wyoming-piper calls the voice) is taken too.
 */

export type WyomingVoiceRow = Pick<
  VoiceRow,
  'id' | 'category' | 'name' | 'language' | 'engine' | 'engine_voice' | 'quality' | 'sort_order' | 'licence'
>;

interface Attribution {
  name: string;
  url: string;
}

export interface TtsVoice {
  name: string;
  attribution: Attribution;
  installed: true;
  description: string;
  version: null;
  languages: string[];
  speakers: { name: string }[] | null;
}

/** Where each engine comes from (the `attribution` Home Assistant shows). */
const ENGINE_ATTRIBUTION: Readonly<Record<string, Attribution>> = {
  piper: { name: 'Piper', url: 'https://github.com/OHF-Voice/piper1-gpl' },
  kokoro: { name: 'Kokoro', url: 'https://huggingface.co/hexgrad/Kokoro-82M' },
  'espeak-ng': { name: 'eSpeak NG', url: 'https://github.com/espeak-ng/espeak-ng' },
  flite: { name: 'Flite', url: 'http://www.festvox.org/flite/' },
  festival: { name: 'Festival', url: 'https://www.cstr.ed.ac.uk/projects/festival/' },
  pico: { name: 'SVOX Pico', url: 'https://android.googlesource.com/platform/external/svox/' },
  rhvoice: { name: 'RHVoice', url: 'https://github.com/RHVoice/RHVoice' },
};

/** A multi-speaker model's engine voice is `<model>#<speaker>` (engines/piper). */
function speakerOf(row: WyomingVoiceRow): { model: string; speaker: string } | null {
  const voice = row.engine_voice ?? '';
  const mark = voice.lastIndexOf('#');
  return row.category === 'premade' && mark > 0
    ? { model: voice.slice(0, mark), speaker: voice.slice(mark + 1) }
    : null;
}

/** Neural first; within a tier the catalog's order, then the account's clones by name. */
export function inWyomingOrder<Row extends WyomingVoiceRow>(rows: readonly Row[]): Row[] {
  const rank = (row: WyomingVoiceRow) => (row.quality === 'neural' ? 0 : 1) * 2 + (row.category === 'premade' ? 0 : 1);
  return [...rows].sort(
    (a, b) =>
      rank(a) - rank(b) || a.sort_order - b.sort_order || a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1),
  );
}

/** The voices of `info`, in order (rows already in Wyoming order). */
export function wyomingVoices(rows: readonly WyomingVoiceRow[], publicUrl: string): TtsVoice[] {
  const voices: TtsVoice[] = [];
  const models = new Map<string, TtsVoice>();
  for (const row of rows) {
    const tier = row.quality ?? 'classic';
    const attribution =
      row.category === 'cloned'
        ? { name: 'OpenVox (your cloned voice)', url: publicUrl }
        : (ENGINE_ATTRIBUTION[row.engine ?? ''] ?? { name: row.engine ?? 'OpenVox', url: publicUrl });
    const speaker = speakerOf(row);
    if (speaker) {
      const known = models.get(speaker.model);
      if (known) {
        known.speakers!.push({ name: speaker.speaker });
        if (!known.languages.includes(row.language)) known.languages.push(row.language);
        continue;
      }
      const voice: TtsVoice = {
        name: speaker.model,
        attribution,
        installed: true,
        description: `${speaker.model} (${row.language}, ${tier}, several speakers)`,
        version: null,
        languages: [row.language],
        speakers: [{ name: speaker.speaker }],
      };
      models.set(speaker.model, voice);
      voices.push(voice);
      continue;
    }
    voices.push({
      name: row.id,
      attribution,
      installed: true,
      description:
        row.category === 'cloned'
          ? `${row.name} (${row.language}, your cloned voice)`
          : `${row.name} (${row.language}, ${tier})`,
      version: null,
      languages: [row.language],
      speakers: null,
    });
  }
  return voices;
}

/** What a `synthesize` asks for: its `voice` object, as sent. */
export interface WyomingVoiceRequest {
  name?: string;
  language?: string;
  speaker?: string;
}

/** A voice the request names that is not here: the client hears why. */
export class UnknownVoiceError extends Error {
  override name = 'UnknownVoiceError';
}

const normalizeLanguage = (language: string) => language.trim().replace(/_/g, '-').toLowerCase();

/**
 * The voice a request speaks with (rows in Wyoming order): by name (a voice
 * id, a model's name with its `speaker` or else its first speaker, a
 * single-speaker model's name), else the best voice of the language (the
 * same language and region, else the language alone: `en_AU` takes an
 * `en-US` voice when there is no Australian one), else the first voice.
 */
export function resolveWyomingVoice<Row extends WyomingVoiceRow>(
  rows: readonly Row[],
  request: WyomingVoiceRequest,
): Row {
  if (rows.length === 0) throw new UnknownVoiceError('No voice is installed.');
  const { name, speaker, language } = request;
  if (name) {
    const wanted = name.trim().toLowerCase();
    const byId = rows.find((row) => row.id.toLowerCase() === wanted);
    if (byId) return byId;
    const ofModel = rows.filter((row) => speakerOf(row)?.model.toLowerCase() === wanted);
    if (ofModel.length > 0) {
      if (speaker === undefined || speaker === '') return ofModel[0];
      const withSpeaker = ofModel.find((row) => speakerOf(row)!.speaker === speaker);
      if (!withSpeaker) throw new UnknownVoiceError(`Voice ${name} has no speaker ${speaker}.`);
      return withSpeaker;
    }
    const byModel = rows.find((row) => !speakerOf(row) && row.engine_voice?.toLowerCase() === wanted);
    if (byModel) return byModel;
    throw new UnknownVoiceError(`No voice named ${name} (describe lists the voices).`);
  }
  if (language) {
    const wanted = normalizeLanguage(language);
    const primary = wanted.split('-')[0];
    const same = (row: Row) => normalizeLanguage(row.language) === wanted;
    const sameLanguage = (row: Row) => normalizeLanguage(row.language).split('-')[0] === primary;
    // Premade voices before the account's clones: a language asks for the best voice, not a particular one.
    const ordered = [
      ...rows.filter((row) => row.category === 'premade'),
      ...rows.filter((row) => row.category !== 'premade'),
    ];
    const found = ordered.find(same) ?? ordered.find(sameLanguage);
    if (!found) throw new UnknownVoiceError(`No voice speaks ${language}.`);
    return found;
  }
  return rows[0];
}

/** The account's voices as Wyoming lists them: the premade catalog and its ready clones, in Wyoming order. */
export async function wyomingVoiceRows(db: Db, account: Account): Promise<WyomingVoiceRow[]> {
  const rows = await Voice.query(db)
    .modify('visibleTo', account)
    .where('voices.status', 'ready')
    .select('id', 'category', 'name', 'language', 'engine', 'engine_voice', 'quality', 'sort_order', 'licence');
  return inWyomingOrder(rows);
}
