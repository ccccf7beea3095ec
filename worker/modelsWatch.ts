import type { Client } from '@temporalio/client';
import { type FSWatcher, watch } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/knex';
import { Voice } from '../db/models/Voice';
import { seedVoices } from '../db/seeds/voices';
import { ENGINES, type EngineRegistry } from '../engines/registry';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { ensureVoicePreviews } from './voicePreviews';

/**
 * Voices installed or removed while the service runs (`openvox voices
 * install`, or files copied by hand) join or leave the catalog without a
 * restart: the worker watches MODELS_DIR, and on a change its engines look
 * again, the voices table is seeded again (the API reads it on every
 * request) and the new voices' previews are rendered.
 *
 * `fs.watch` answers within a second on a local disk; a poll every
 * `pollMs` catches what it misses (network filesystems, bind mounts).
 * Events are settled for `settleMs` first, so a model copied by hand is seen
 * once its copy has stopped growing (the installer renames finished files
 * into place, so its voices appear whole).
 */

export interface ModelsWatchDeps {
  db: Db;
  engines: EngineRegistry;
  /** Other registries of the same engines (a book's, at a lower priority): their voice lists follow too. */
  alsoRefreshed?: EngineRegistry[];
  config: Config;
  temporal: Client;
  logger: Logger;
}

export interface ModelsWatch {
  /** Resolves after the rescan that the latest change asked for (tests). */
  settled(): Promise<void>;
  close(): void;
}

/** Where each engine keeps its voices' files in MODELS_DIR, as it describes them (engines/types.ts `voiceFiles`). */
const VOICE_FILES: ReadonlyArray<{ folder: string; file: RegExp }> = ENGINES.flatMap((description) =>
  'voiceFiles' in description && description.voiceFiles ? [description.voiceFiles] : [],
);

/** Names, sizes and modification times of the files that make a voice: what a rescan compares. */
async function signature(dir: string): Promise<string> {
  try {
    await readdir(dir);
  } catch {
    return '';
  }
  const files: string[] = [];
  for (const { folder, file: pattern } of VOICE_FILES) {
    const names = await readdir(path.join(dir, folder)).catch(() => [] as string[]);
    files.push(
      ...names
        .filter((name) => pattern.test(name))
        .sort()
        .map((name) => path.join(folder, name)),
    );
  }
  const parts = await Promise.all(
    files.map(async (file) => {
      const info = await stat(path.join(dir, file)).catch(() => null);
      return info ? `${file}:${info.size}:${info.mtimeMs}` : '';
    }),
  );
  return parts.join('\n');
}

const availableIds = async (db: Db) =>
  new Set((await Voice.query(db).modify('catalog').select('id')).map((row) => row.id));

export async function watchModels(
  deps: ModelsWatchDeps,
  { pollMs = 30_000, settleMs = 1_000 } = {},
): Promise<ModelsWatch> {
  const dir = deps.config.MODELS_DIR;
  let seen = await signature(dir);
  let running: Promise<void> = Promise.resolve();
  let settleTimer: NodeJS.Timeout | null = null;
  let closed = false;

  const rescan = async () => {
    const now = await signature(dir);
    if (now === seen || closed) return;
    seen = now;
    const before = await availableIds(deps.db);
    for (const registry of [deps.engines, ...(deps.alsoRefreshed ?? [])])
      for (const engine of registry.values()) engine.refresh?.();
    await seedVoices(deps.db, {
      enableNonFree: deps.config.ENABLE_NONFREE_ENGINES,
      modelsDir: dir,
      engines: deps.engines,
      onRefused: (voice) =>
        deps.logger.warn({ ...voice, modelsDir: dir }, 'a voice in MODELS_DIR is left out of the catalog'),
    });
    const after = await availableIds(deps.db);
    const added = [...after].filter((id) => !before.has(id));
    const removed = [...before].filter((id) => !after.has(id));
    if (added.length || removed.length)
      deps.logger.info({ added, removed, modelsDir: dir }, 'voices changed in MODELS_DIR');
    if (added.length && deps.config.VOICE_PREVIEWS)
      await ensureVoicePreviews(deps.temporal, deps.db, deps.config, added);
  };
  // One rescan at a time; a change during one is looked at after it.
  const schedule = () => {
    running = running
      .then(rescan)
      .catch((error) =>
        deps.logger.warn(
          { err: error, modelsDir: dir },
          'rescan of MODELS_DIR failed; the next change or poll tries again',
        ),
      );
    return running;
  };

  let watcher: FSWatcher | null = null;
  try {
    await mkdir(dir, { recursive: true });
    watcher = watch(dir, () => {
      if (settleTimer) clearTimeout(settleTimer);
      settleTimer = setTimeout(() => {
        settleTimer = null;
        void schedule();
      }, settleMs);
    });
    watcher.on('error', (error) =>
      deps.logger.warn({ err: error, modelsDir: dir }, 'watching MODELS_DIR failed; polling only'),
    );
  } catch (error) {
    deps.logger.warn({ err: error, modelsDir: dir }, 'cannot watch MODELS_DIR; polling only');
  }
  const poll = setInterval(() => void schedule(), pollMs);
  poll.unref();

  return {
    async settled() {
      await new Promise((resolve) => setTimeout(resolve, settleTimer ? settleMs + 50 : 0));
      await schedule();
    },
    close() {
      closed = true;
      watcher?.close();
      clearInterval(poll);
      if (settleTimer) clearTimeout(settleTimer);
    },
  };
}
