import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { escapeForEspeak } from '../audio/text';
import { run, which, withTempDir } from './process';
import { type Engine, EngineError } from './types';

/**
 * eSpeak NG (GPL-3, Debian main): formant synthesis, 100+ languages, renders
 * hundreds of times faster than real time. Voices are `<language>[+<variant>]`
 * (e.g. `de`, `en-us+f3`). Never run with `-m`: SSML must be spoken, not obeyed.
 */

const NORMAL_WPM = 175;
const MIN_WPM = 80;
const MAX_WPM = 450;

export function createEspeakEngine(): Engine {
  let voiceList: Promise<string[]> | undefined;

  return {
    name: 'espeak-ng',
    license: 'free',
    capabilities: { rate: { min: MIN_WPM / NORMAL_WPM, max: MAX_WPM / NORMAL_WPM } },
    async available() {
      return (await which('espeak-ng')) !== null;
    },
    async voices() {
      if (!(await this.available())) return [];
      voiceList ??= run('espeak-ng', ['--voices']).then(({ stdout }) => parseLanguages(stdout.toString('utf8')));
      return voiceList;
    },
    async hasVoice(voice) {
      // Variants (+f3, +m1, ...) ship with espeak-ng itself; the language decides.
      return (await this.voices()).includes(voice.split('+')[0].toLowerCase());
    },
    async synthesize({ text, voice, rate = 1, outPath, signal }) {
      const wpm = Math.round(Math.min(MAX_WPM, Math.max(MIN_WPM, NORMAL_WPM * rate)));
      await withTempDir(async (dir) => {
        const textFile = path.join(dir, 'input.txt');
        await writeFile(textFile, escapeForEspeak(text), 'utf8');
        try {
          // -b 1: the file is UTF-8. -z: no pause after the last sentence (the pipeline adds its own).
          await run('espeak-ng', ['-b', '1', '-z', '-v', voice, '-s', String(wpm), '-w', path.resolve(outPath), '-f', textFile], { signal });
        } catch (error) {
          throw new EngineError('espeak-ng', (error as Error).message);
        }
      });
    },
  };
}

/**
 * Names `-v` accepts, from `espeak-ng --voices`: the Language column and the
 * voice file's base name (`gmw/en` -> `en`), lower-cased.
 */
function parseLanguages(table: string): string[] {
  const names = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    const columns = line.trim().split(/\s+/);
    if (columns[1]) names.add(columns[1].toLowerCase());
    // The File column follows the (space-free) VoiceName column.
    const file = columns.find((column, index) => index >= 3 && column.includes('/'));
    if (file) names.add(file.split('/').pop()!.toLowerCase());
  }
  return [...names];
}
