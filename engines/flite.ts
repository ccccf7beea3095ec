import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { encodeText } from '../audio/text';
import { run, which, withTempDir } from './process';
import { type Engine, EngineError } from './types';

/**
 * Flite 2.2 (BSD-like CMU licence, Debian main): small CMU voices for English,
 * 16 kHz (kal: 8 kHz diphone). Never `-ssml`: flite drops text in that mode.
 */
export function createFliteEngine(): Engine {
  let voiceList: Promise<string[]> | undefined;

  return {
    name: 'flite',
    license: 'free',
    capabilities: { rate: { min: 0.4, max: 2.5 } },
    async available() {
      return (await which('flite')) !== null;
    },
    async voices() {
      if (!(await this.available())) return [];
      // "Voices available: kal awb_time kal16 awb rms slt"
      voiceList ??= run('flite', ['-lv']).then(({ stdout }) =>
        stdout.toString('utf8').replace(/^.*?:/s, '').trim().split(/\s+/).filter(Boolean),
      );
      return voiceList;
    },
    async hasVoice(voice) {
      return (await this.voices()).includes(voice);
    },
    async synthesize({ text, voice, rate = 1, outPath, signal }) {
      // flite silently falls back to its default voice for an unknown name.
      if (!(await this.hasVoice(voice))) throw new EngineError('flite', `unknown voice ${JSON.stringify(voice)}`);
      await withTempDir(async (dir) => {
        const textFile = path.join(dir, 'input.txt');
        // Flite's lexicon is English: accents are stripped rather than read as bytes.
        await writeFile(textFile, encodeText(text, 'ascii'));
        const args = ['-voice', voice, '--setf', `duration_stretch=${(1 / rate).toFixed(4)}`, '-f', textFile, '-o', path.resolve(outPath)];
        try {
          await run('flite', args, { signal });
        } catch (error) {
          throw new EngineError('flite', (error as Error).message);
        }
      });
    },
  };
}
