import { copyFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { escapeForPico } from './text';
import { fileSize, run, which, withTempDir } from '../lib/process';
import { describeEngine, type Engine, EngineError } from './types';
import type { EngineOptions } from './registry';

/**
 * SVOX Pico through `pico2wave` (libttspico-utils, Debian non-free: its
 * language files carry no source). Six female voices, 16 kHz: en-US, en-GB,
 * de-DE, es-ES, fr-FR, it-IT. Only used when the operator enables non-free
 * engines. Text goes through stdin; pico interprets its own markup tags, so
 * `<`, `>` and `&` are escaped as entities, which it speaks.
 */

const LANG_DIR = '/usr/share/pico/lang';

export function createPicoEngine({ niceness }: Pick<EngineOptions, 'niceness'> = {}): Engine {
  let voiceList: Promise<string[]> | undefined;

  return {
    name: picoEngine.name,
    license: picoEngine.license,
    // Pico's <speed> tag does not scale pauses (level 200 gave 0.64x the duration): tempo is applied afterwards.
    capabilities: { rate: null },
    async available() {
      return (await which('pico2wave')) !== null;
    },
    async voices() {
      if (!(await this.available())) return [];
      voiceList ??= readdir(LANG_DIR)
        .then((files) =>
          files
            .map((file) => /^([a-z]{2}-[A-Z]{2})_\w+_sg\.bin$/.exec(file)?.[1])
            .filter((lang): lang is string => Boolean(lang)),
        )
        .catch(() => []);
      return voiceList;
    },
    async hasVoice(voice) {
      return (await this.voices()).includes(voice);
    },
    async synthesize({ text, voice, outPath, signal }) {
      if (!/^[a-z]{2}-[A-Z]{2}$/.test(voice))
        throw new EngineError('pico', `invalid voice name ${JSON.stringify(voice)}`);
      const out = path.resolve(outPath);
      // pico2wave insists on a name ending in .wav; write one in a private directory.
      await withTempDir(async (dir) => {
        const wav = out.endsWith('.wav') ? out : path.join(dir, 'out.wav');
        try {
          await run('pico2wave', ['-w', wav, '-l', voice], { input: escapeForPico(text), signal, niceness });
        } catch (error) {
          throw new EngineError('pico', (error as Error).message);
        }
        if ((await fileSize(wav)) <= 44) throw new EngineError('pico', `${voice} produced no audio`);
        if (wav !== out) await copyFile(wav, out);
      });
    },
  };
}

export const picoEngine = describeEngine({
  name: 'pico',
  license: 'non-free',
  tier: 'classic',
  licence: 'SVOX Pico: Apache-2.0 code, but its language data ships without source, so Debian files it under non-free.',
  create: ({ niceness }) => createPicoEngine({ niceness }),
});
