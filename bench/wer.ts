import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { finishAudio } from '../audio/finish';
import { renderChunk } from '../audio/render';
import { findPremadeVoice } from '../engines/catalog';
import { createEngines, getEngine } from '../engines/registry';
import { defaultModelsDir } from '../lib/config';
import { hear, wordErrors } from './measures';
import { EVERYDAY_SENTENCES } from './texts';
import { exitWhenDone } from './report';

/**
 * Intelligibility in one run: pocketsphinx's word error rate (bench/measures.ts)
 * on the same six everyday sentences as bench/quality.ts, for the neural
 * voice against the classic ones, each twice: as the service delivers it
 * (renderChunk + finishAudio: trims, loudness) and as its engine alone writes
 * it, each sentence heard on its own. pocketsphinx is a weak recognizer: what matters is the ratio between
 * voices measured in the same run, not the absolute figure.
 *
 *   npm run build && node dist/bench/wer.js [voice id ...]
 */

const TEXTS = EVERYDAY_SENTENCES;
const VOICES = ['en-us-joe', 'en-us-slt', 'en-us-flite-slt', 'en-us-festival-kal', 'en-us-espeak-m'];

async function main() {
  const ids = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
  const engines = createEngines({ modelsDir: process.env.MODELS_DIR || defaultModelsDir() });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-bench-wer-'));
  let counter = 0;
  const file = (ext = 'wav') => path.join(dir, `${++counter}.${ext}`);
  const heard = (wav: string) => hear(wav, file());
  const rows: string[][] = [];
  try {
    for (const id of ids.length ? ids : VOICES) {
      const voice = findPremadeVoice(id);
      if (!voice) throw new Error(`unknown voice ${id}`);
      const engine = getEngine(engines, voice.engine);
      if (!(await engine.available()) || !(await engine.hasVoice(voice.engineVoice))) {
        console.log(`${id}: ${voice.engine} voice not installed, skipped`);
        continue;
      }
      // Sentence by sentence in both, so the recognizer hears the same units.
      const service = async () => {
        let text = '';
        for (const sentence of TEXTS) {
          const chunk = file();
          await renderChunk({ voice, text: sentence, speed: 1, emotion: 'neutral', outPath: chunk, engines });
          const outPath = file();
          await finishAudio({ chunks: [chunk], speed: 1, pitch: 0, emotion: 'neutral', format: 'wav', outPath });
          text += ` ${(await heard(outPath)) ?? ''}`;
        }
        return text;
      };
      const raw = async () => {
        let text = '';
        for (const sentence of TEXTS) {
          const outPath = file();
          await engine.synthesize({ text: sentence, voice: voice.engineVoice, outPath });
          text += ` ${(await heard(outPath)) ?? ''}`;
        }
        return text;
      };
      for (const [method, hear] of [
        ['service', service],
        ['engine alone', raw],
      ] as const) {
        const hypothesis = await hear();
        if (hypothesis === null) throw new Error('pocketsphinx_continuous is not installed');
        const { errors, words } = wordErrors(TEXTS.join(' '), hypothesis);
        rows.push([
          id,
          `${voice.engine} (${voice.quality ?? 'classic'})`,
          method,
          `${((100 * errors) / words).toFixed(1)} %`,
          `${errors}/${words}`,
        ]);
        console.log(rows.at(-1)!.join(' | '));
      }
    }
    const header = ['voice', 'engine', 'rendering', 'WER', 'errors/words'];
    console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  } finally {
    await rm(dir, { recursive: true, force: true });
    (engines.get('piper') as { pool?: { close(): void } } | undefined)?.pool?.close();
  }
}

exitWhenDone(main());
