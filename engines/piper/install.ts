import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type DownloadOptions, downloadVerified, InterruptedDownload } from './download';
import { catalogText, defaultSpeakers, readJsonFile, speakerIdMap, VOICE_TEXT_LIMITS } from './models';
import { baseUrlOf, type IndexFile, type IndexVoice, type VoiceIndex, VoiceInstallError } from './voiceIndex';

/**
 * Installs and removes Piper voices of the index in MODELS_DIR, the way the
 * service reads them (engines/piper/models.ts): `<key>.onnx` with
 * `<key>.onnx.json`, the sidecar `<key>.voice.json` and the model card
 * `<key>.MODEL_CARD` (the name scripts/install.sh gives joe's). Every file is
 * downloaded and verified beside its target (same filesystem) before any is
 * renamed into place, and the `.onnx` comes last: the service sees a voice
 * only when both `.onnx` and `.onnx.json` exist, so it never sees half of one.
 */

export interface InstallProgress {
  key: string;
  /** Bytes of this voice's files on disk so far (a resumed partial counts). */
  done: number;
  total: number;
}

export interface InstallOptions {
  index: VoiceIndex;
  baseUrl: string;
  /** Origins besides the base URL's that the index may name files on (PIPER_VOICES_FILE_ORIGINS). */
  fileOrigins?: readonly string[];
  modelsDir: string;
  onProgress?: (progress: InstallProgress) => void;
  download?: DownloadOptions;
  /**
   * A multi-speaker model's speakers the catalog offers (names of the index's
   * `speaker_id_map`), written into the sidecar; also rewrites the sidecar's
   * list when the voice is already installed. Absent, the catalog offers a
   * few spread over the speakers (engines/catalog.ts).
   */
  speakers?: string[];
}

/** What the service's catalog reads beside Piper's config (engines/piper/models.ts). */
export interface InstalledSidecar {
  name: string;
  language: string;
  quality: string;
  description: string;
  licence: string;
  /** Multi-speaker models, `--speakers`: the speakers the catalog offers. */
  speakers?: Array<{ speaker: string }>;
}

export interface InstallResult {
  key: string;
  status: 'installed' | 'already installed';
  bytes: number;
  speakers: number;
  /** A multi-speaker model's speakers the catalog offers (the sidecar's, or the default spread); empty for one speaker. */
  offered: string[];
  sidecar: InstalledSidecar | null;
}

type Role = 'model' | 'config' | 'card';
const SUFFIX: Record<Role, string> = { model: '.onnx', config: '.onnx.json', card: '.MODEL_CARD' };
const SIDECAR = '.voice.json';
const PARTIAL = '.partial';

/** Keys become file names: letters, digits, `_` and `-` only (no path, no dot). */
function checkKey(key: string): void {
  if (!/^[\p{L}\p{N}_][\p{L}\p{N}_-]*$/u.test(key))
    throw new VoiceInstallError(`${JSON.stringify(key)} is not a Piper voice key (like en_US-joe-medium)`);
}

function roleOf(file: string): Role | null {
  const base = path.posix.basename(file);
  if (base.endsWith('.onnx.json')) return 'config';
  if (base.endsWith('.onnx')) return 'model';
  return base === 'MODEL_CARD' ? 'card' : null;
}

/**
 * The most bytes the installer takes the index's word for, per file: Piper's
 * largest models (high quality) are about 110 MB. An index saying more is
 * wrong or hostile, and would have the installer fill the disk.
 */
const MAX_FILE_BYTES = 1_000_000_000;

interface VoiceFile extends IndexFile {
  role: Role;
  path: string;
  url: URL;
}

/**
 * The files of a voice the service needs, in download order (small first: a
 * wrong mirror fails fast), each refused unless its size is plausible and its
 * URL on the index's origin (or one the operator allows): the index is
 * outside data.
 */
function filesOf(voice: IndexVoice, base: URL, fileOrigins: readonly string[]): VoiceFile[] {
  const files: VoiceFile[] = [];
  for (const [file, facts] of Object.entries(voice.files)) {
    const role = roleOf(file);
    if (role === null) continue;
    if (facts.size_bytes > MAX_FILE_BYTES)
      throw new VoiceInstallError(
        `${voice.key}: the index says ${file} has ${facts.size_bytes} bytes, more than the ${MAX_FILE_BYTES} any Piper voice file could: nothing was downloaded`,
      );
    const url = new URL(file, base);
    if (url.origin !== base.origin && !fileOrigins.includes(url.origin))
      throw new VoiceInstallError(
        `${voice.key}: the index names ${url.href}, off ${base.origin} (PIPER_VOICES_URL); nothing was downloaded (PIPER_VOICES_FILE_ORIGINS allows another origin)`,
      );
    files.push({ role, path: file, url, size_bytes: facts.size_bytes, md5_digest: facts.md5_digest });
  }
  for (const role of ['model', 'config'] as const) {
    if (files.filter((file) => file.role === role).length !== 1)
      throw new VoiceInstallError(`${voice.key}: the index lists no single ${SUFFIX[role]} file`);
  }
  return files.sort((a, b) => a.size_bytes - b.size_bytes);
}

const titleCase = (name: string) => name.replace(/_/g, ' ').replace(/(^|\s)\p{Ll}/gu, (letter) => letter.toUpperCase());

const RUNTIME = 'Runs with ONNX Runtime (MIT); phonemes by eSpeak NG (GPL-3.0-or-later).';

/** The dataset's licence from the model card's `* License:` line (with the dataset's `* URL:`), else a pointer to the card. */
function licenceOf(key: string, card: string | null, cardUrl: string | null): string {
  const licence = card && /^\s*[*-]\s*Licen[sc]e:\s*(.+?)\s*$/im.exec(card)?.[1];
  const url = card && /^\s*[*-]\s*URL:\s*(\S+)\s*$/im.exec(card)?.[1];
  if (licence)
    return `Piper voice ${key}: dataset licence ${licence}${url ? ` (${url})` : ''}, per its model card (${key}${SUFFIX.card}). ${RUNTIME}`;
  return `Piper voice ${key}: see its model card${cardUrl ? ` (${cardUrl})` : ''} for the dataset's licence. ${RUNTIME}`;
}

/** The sidecar's text comes from the index and the model card: cleaned and cut to the catalog's columns as the service would read it (models.ts). */
function sidecarOf(voice: IndexVoice, card: string | null, cardUrl: string | null): InstalledSidecar {
  const name = catalogText(titleCase(voice.name), VOICE_TEXT_LIMITS.name) ?? voice.key;
  const { name_english: language, country_english: country } = voice.language;
  const where = [language, country].filter(Boolean).join(', ');
  const description = `Neural voice ${name} (${where ? `${where}; ` : ''}Piper, ${voice.quality} quality), installed from the Piper voice index.`;
  return {
    name,
    language: voice.language.code.replace('_', '-'),
    quality: voice.quality,
    description: catalogText(description, VOICE_TEXT_LIMITS.description) ?? '',
    licence: catalogText(licenceOf(voice.key, card, cardUrl), VOICE_TEXT_LIMITS.licence) ?? '',
  };
}

/** The `--speakers` names checked against the index (before anything is downloaded). */
function checkSpeakers(voice: IndexVoice, wanted: string[]): string[] {
  const map = speakerIdMap(voice.num_speakers, voice.speaker_id_map);
  const names = Object.keys(map);
  if (names.length === 0)
    throw new VoiceInstallError(`${voice.key} has a single speaker: --speakers is for multi-speaker models`);
  const unique = [...new Set(wanted.map((name) => name.trim()).filter(Boolean))];
  if (unique.length === 0) throw new VoiceInstallError(`--speakers names no speaker of ${voice.key}`);
  const unknown = unique.filter((name) => !Object.hasOwn(map, name));
  if (unknown.length > 0) {
    const some = names.slice(0, 10).join(', ');
    throw new VoiceInstallError(
      `${voice.key} has no speaker ${unknown.map((name) => JSON.stringify(name)).join(', ')}: its ${names.length} speakers are ${some}${names.length > 10 ? ', …' : ''} (the index's speaker_id_map)`,
    );
  }
  return unique;
}

/** The speakers the catalog will offer: the sidecar's that the model has, else the default spread. */
function offeredOf(voice: IndexVoice, listed: string[] | undefined): string[] {
  const map = speakerIdMap(voice.num_speakers, voice.speaker_id_map);
  const known = (listed ?? []).filter((name) => Object.hasOwn(map, name));
  return known.length > 0 ? known : defaultSpeakers(map);
}

/** A new file at `file`: whatever was at that name (a planted symlink too) is removed, never written through. */
async function writeNew(file: string, text: string): Promise<void> {
  await rm(file, { force: true });
  await writeFile(file, text, { flag: 'wx' });
}

/** Writes a sidecar beside its target and renames it into place. */
async function writeSidecar(sidecarPath: string, sidecar: object): Promise<void> {
  await writeNew(`${sidecarPath}${PARTIAL}`, `${JSON.stringify(sidecar, null, 2)}\n`);
  await rename(`${sidecarPath}${PARTIAL}`, sidecarPath);
}

/** An installed voice's sidecar with the given speakers (other fields, an operator's edits too, kept). */
async function updateSpeakers(sidecarPath: string, speakers: string[]): Promise<void> {
  // None yet (a model copied by hand) or not a JSON object: a new one with the speakers alone.
  const read = await readJsonFile(sidecarPath);
  const sidecar =
    typeof read === 'object' && read !== null && !Array.isArray(read) ? (read as Record<string, unknown>) : {};
  const before = new Map(
    (Array.isArray(sidecar.speakers) ? (sidecar.speakers as Array<{ speaker?: unknown }>) : []).map((entry) => [
      entry.speaker,
      entry,
    ]),
  );
  // A speaker the sidecar already describes (name, gender) keeps its description.
  await writeSidecar(sidecarPath, {
    ...sidecar,
    speakers: speakers.map((speaker) => before.get(speaker) ?? { speaker }),
  });
}

async function sidecarSpeakerNames(sidecarPath: string): Promise<string[] | undefined> {
  const sidecar = (await readJsonFile(sidecarPath)) as { speakers?: Array<{ speaker?: unknown }> } | null;
  return Array.isArray(sidecar?.speakers)
    ? sidecar.speakers.map((entry) => entry?.speaker).filter((name): name is string => typeof name === 'string')
    : undefined;
}

const exists = async (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

/** Downloads, verifies and installs one voice of the index; a voice whose model is already in place is left as it is. */
export async function installVoice(key: string, options: InstallOptions): Promise<InstallResult> {
  checkKey(key);
  const voice = options.index[key];
  if (!voice)
    throw new VoiceInstallError(`${key} is not in the Piper voice index (list them with: openvox voices available)`);
  const base = baseUrlOf(options.baseUrl);
  let files: VoiceFile[];
  try {
    files = filesOf(voice, base, options.fileOrigins ?? []);
  } catch (error) {
    // What an earlier run of this index left is no more to be trusted than what it says now.
    await removePartials(key, options.modelsDir);
    throw error;
  }
  const wantedSpeakers = options.speakers ? checkSpeakers(voice, options.speakers) : undefined;
  const target = (role: Role) => path.join(options.modelsDir, `${key}${SUFFIX[role]}`);
  const sidecarPath = path.join(options.modelsDir, `${key}${SIDECAR}`);
  const model = files.find((file) => file.role === 'model')!;
  const speakers = voice.num_speakers;
  if ((await stat(target('model')).catch(() => null))?.size === model.size_bytes && (await exists(target('config')))) {
    if (wantedSpeakers) await updateSpeakers(sidecarPath, wantedSpeakers);
    const offered = offeredOf(voice, wantedSpeakers ?? (await sidecarSpeakerNames(sidecarPath)));
    return { key, status: 'already installed', bytes: 0, speakers, offered, sidecar: null };
  }

  await mkdir(options.modelsDir, { recursive: true });
  const total = files.reduce((sum, file) => sum + file.size_bytes, 0);
  let finished = 0;
  try {
    for (const file of files) {
      await downloadVerified(
        file.url,
        `${target(file.role)}${PARTIAL}`,
        file,
        (done) => options.onProgress?.({ key, done: finished + done, total }),
        options.download,
      );
      finished += file.size_bytes;
    }
  } catch (error) {
    // A file that cannot be right takes the voice's other partials with it: nothing of it stays.
    if (!(error instanceof InterruptedDownload)) await removePartials(key, options.modelsDir);
    throw error;
  }

  const card = files.find((file) => file.role === 'card');
  const cardText = card ? await readFile(`${target('card')}${PARTIAL}`, 'utf8') : null;
  const sidecar = sidecarOf(voice, cardText, card ? card.url.href : null);
  if (wantedSpeakers) sidecar.speakers = wantedSpeakers.map((speaker) => ({ speaker }));
  await writeNew(`${sidecarPath}${PARTIAL}`, `${JSON.stringify(sidecar, null, 2)}\n`);

  // The config, card and sidecar first, the model last: the voice appears whole, at once.
  for (const role of ['config', 'card'] as const) {
    if (files.some((file) => file.role === role)) await rename(`${target(role)}${PARTIAL}`, target(role));
  }
  await rename(`${sidecarPath}${PARTIAL}`, sidecarPath);
  await rename(`${target('model')}${PARTIAL}`, target('model'));
  return { key, status: 'installed', bytes: total, speakers, offered: offeredOf(voice, wantedSpeakers), sidecar };
}

async function removePartials(key: string, modelsDir: string): Promise<string[]> {
  const names = (await readdir(modelsDir).catch(() => [] as string[])).filter(
    (name) =>
      name.endsWith(PARTIAL) &&
      [...Object.values(SUFFIX), SIDECAR].some((suffix) => name === `${key}${suffix}${PARTIAL}`),
  );
  await Promise.all(names.map((name) => rm(path.join(modelsDir, name), { force: true })));
  return names;
}

/**
 * Removes a voice's files, the `.onnx` first so the service stops offering
 * it at once, and any partial download of it; returns the names removed.
 */
export async function removeVoice(key: string, modelsDir: string): Promise<string[]> {
  checkKey(key);
  const removed: string[] = [];
  for (const suffix of [SUFFIX.model, SUFFIX.config, SIDECAR, SUFFIX.card]) {
    const file = path.join(modelsDir, `${key}${suffix}`);
    if (await exists(file)) {
      await rm(file);
      removed.push(path.basename(file));
    }
  }
  removed.push(...(await removePartials(key, modelsDir)));
  if (removed.length === 0) throw new VoiceInstallError(`${key} is not installed in ${modelsDir}`);
  return removed;
}

/** Whether `<key>.onnx` is in `modelsDir` (the `available` listing marks those). */
export async function isInstalled(key: string, modelsDir: string): Promise<boolean> {
  return exists(path.join(modelsDir, `${key}${SUFFIX.model}`));
}
