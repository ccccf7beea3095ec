import { createHash } from 'node:crypto';
import { access, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { VoiceInstallError } from '../piper/voiceIndex';
import { KOKORO_DIR, KOKORO_MODEL, kokoroLanguage } from './index';
import { readNpyStyle, readNpz, STYLE_ROWS, STYLE_WIDTH } from './styles';

/**
 * `openvox voices install kokoro:<voice>`: a Kokoro voice style from KOKORO_VOICES_URL (an `.npz` of
 * every voice, kokoro-onnx's `voices-v1.0.bin`, or a directory of `<voice>.npy` files) into
 * MODELS_DIR/kokoro/voices/<voice>.npy, where the engine and the catalog find it; the worker's watch of
 * MODELS_DIR offers it without a restart. Verified before it is placed: the `.npz`'s SHA-256 when
 * KOKORO_VOICES_SHA256 pins it, and always the array itself (float32, 510 × 1 × 256, finite), so a
 * wrong file never reaches the engine. Written beside its target and renamed into place.
 */

export interface KokoroInstallOptions {
  modelsDir: string;
  url: string;
  sha256?: string;
  timeoutMs?: number;
}

export interface KokoroInstallResult {
  key: string;
  status: 'installed' | 'already installed';
  bytes: number;
  language: string;
}

const voicesDir = (modelsDir: string) => path.join(modelsDir, KOKORO_DIR, 'voices');

function checkName(name: string): { language: string } {
  const language = /^[a-z][fm]_[a-z0-9_]{1,40}$/.test(name) ? kokoroLanguage(name) : null;
  if (!language)
    throw new VoiceInstallError(
      `${JSON.stringify(name)} is not a Kokoro voice name (like af_heart: language letter, f/m, name)`,
    );
  return language;
}

async function fetchBytes(url: string, timeoutMs: number): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new VoiceInstallError(
      `cannot read ${url}: ${(error as Error).message} (set KOKORO_VOICES_URL to a mirror when this machine is offline)`,
      { cause: error },
    );
  }
  if (!response.ok) throw new VoiceInstallError(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The style's bytes, checked: a 510 × 256 float32 array of finite numbers. */
function verifiedStyle(name: string, bytes: Uint8Array): Uint8Array {
  let style: Float32Array;
  try {
    style = readNpyStyle(bytes);
  } catch (error) {
    throw new VoiceInstallError(`${name}: not a Kokoro voice style (${(error as Error).message})`);
  }
  if (style.length !== STYLE_ROWS * STYLE_WIDTH || !style.every(Number.isFinite))
    throw new VoiceInstallError(
      `${name}: not a Kokoro voice style (${style.length / STYLE_WIDTH} rows, want ${STYLE_ROWS})`,
    );
  return bytes;
}

export async function installKokoroVoice(name: string, options: KokoroInstallOptions): Promise<KokoroInstallResult> {
  const { language } = checkName(name);
  const target = path.join(voicesDir(options.modelsDir), `${name}.npy`);
  try {
    await access(path.join(options.modelsDir, KOKORO_DIR, KOKORO_MODEL));
  } catch {
    throw new VoiceInstallError(
      `the Kokoro model is not in ${path.join(options.modelsDir, KOKORO_DIR)} (scripts/install.sh installs it)`,
    );
  }
  if (
    await access(target).then(
      () => true,
      () => false,
    )
  )
    return { key: `kokoro:${name}`, status: 'already installed', bytes: 0, language };
  const timeoutMs = options.timeoutMs ?? 300_000;
  let style: Uint8Array;
  if (options.url.endsWith('/')) {
    style = verifiedStyle(name, await fetchBytes(new URL(`${name}.npy`, options.url).href, timeoutMs));
  } else {
    const archive = await fetchBytes(options.url, timeoutMs);
    const digest = createHash('sha256').update(archive).digest('hex');
    if (options.sha256 && digest !== options.sha256)
      throw new VoiceInstallError(
        `${options.url}: sha256 ${digest}, expected ${options.sha256} (KOKORO_VOICES_SHA256)`,
      );
    let files: Map<string, Uint8Array>;
    try {
      files = readNpz(archive);
    } catch (error) {
      throw new VoiceInstallError(`${options.url}: not an .npz of voice styles (${(error as Error).message})`);
    }
    const found = files.get(name);
    if (!found)
      throw new VoiceInstallError(`${options.url} has no voice ${name}: it has ${[...files.keys()].sort().join(', ')}`);
    style = verifiedStyle(name, found);
  }
  await mkdir(voicesDir(options.modelsDir), { recursive: true });
  await writeFile(`${target}.partial`, style);
  await rename(`${target}.partial`, target);
  return { key: `kokoro:${name}`, status: 'installed', bytes: style.length, language };
}

/** Removes an installed voice style; the names removed. */
export async function removeKokoroVoice(name: string, modelsDir: string): Promise<string[]> {
  checkName(name);
  const target = path.join(voicesDir(modelsDir), `${name}.npy`);
  try {
    await access(target);
  } catch {
    throw new VoiceInstallError(`kokoro:${name} is not installed in ${modelsDir}`);
  }
  await rm(target);
  return [path.relative(modelsDir, target)];
}
