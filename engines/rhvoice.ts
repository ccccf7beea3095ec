import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileSize, run, which, withTempDir } from '../lib/process';
import { describeEngine, type Engine, EngineError } from './types';
import type { EngineOptions } from './registry';

/**
 * RHVoice (engine LGPL-2.1+; packaged in Debian non-free because some of its
 * voices are not free). The catalog uses only the LGPL English voices slt,
 * clb, bdl and alan; `evgeniy-eng` and `lyubov` (CC-BY-NC-ND, also in
 * Debian's rhvoice-english) are deliberately left out. 24 kHz output.
 * Plain-text mode (no `-s`): markup is spoken.
 */

const VOICE_DIRS = ['/usr/share/RHVoice/voices', '/usr/local/share/RHVoice/voices'];

export function createRhvoiceEngine({ niceness }: Pick<EngineOptions, 'niceness'> = {}): Engine {
  let voiceList: Promise<string[]> | undefined;

  return {
    name: rhvoiceEngine.name,
    license: rhvoiceEngine.license,
    capabilities: { rate: { min: 0.5, max: 2.5 } },
    async available() {
      return (await which('RHVoice-test')) !== null;
    },
    async voices() {
      if (!(await this.available())) return [];
      voiceList ??= (async () => {
        const names: string[] = [];
        for (const dir of VOICE_DIRS) names.push(...(await readdir(dir).catch(() => [] as string[])));
        return names.map((name) => name.toLowerCase());
      })();
      return voiceList;
    },
    async hasVoice(voice) {
      return (await this.voices()).includes(voice.toLowerCase());
    },
    async synthesize({ text, voice, rate = 1, outPath, signal }) {
      if (!/^[A-Za-z0-9_-]+$/.test(voice))
        throw new EngineError('rhvoice', `invalid voice name ${JSON.stringify(voice)}`);
      const out = path.resolve(outPath);
      await withTempDir(async (dir) => {
        const textFile = path.join(dir, 'input.txt');
        await writeFile(textFile, text, 'utf8');
        try {
          await run('RHVoice-test', ['-p', voice, '-r', String(Math.round(rate * 100)), '-i', textFile, '-o', out], {
            signal,
            niceness,
          });
        } catch (error) {
          throw new EngineError('rhvoice', (error as Error).message);
        }
        if ((await fileSize(out)) <= 44) throw new EngineError('rhvoice', `${voice} produced no audio`);
      });
    },
  };
}

export const rhvoiceEngine = describeEngine({
  name: 'rhvoice',
  license: 'non-free',
  tier: 'classic',
  licence:
    'RHVoice engine LGPL-2.1; the English CMU Arctic voices offered here are LGPL. Debian files RHVoice under non-free.',
  create: ({ niceness }) => createRhvoiceEngine({ niceness }),
});
