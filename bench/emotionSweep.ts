import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ffmpeg, fileUrl } from '../audio/ffmpeg';
import { finishAudio } from '../audio/finish';
import { EMOTION_PRESETS, type Emotion, type EmotionPreset } from '../audio/prosody';
import { renderChunk } from '../audio/render';
import { findPremadeVoice } from '../engines/catalog';
import { createEngines } from '../engines/registry';
import { durationAndF0, hear, melCepstralDistortion, wordErrors } from './measures';
import { TEXTS } from './quality';

/**
 * The emotion presets measured one candidate at a time, how they were
 * re-tuned: each candidate preset renders the bench's six sentences through
 * the service path (renderChunk + finishAudio) and gets the same figures as
 * bench:quality's emotion rows, so a candidate can be kept or dropped by
 * measurement (WER within 1.3x of neutral and still audibly apart).
 *
 *   npx tsx bench/emotionSweep.ts [voice id] < candidates.json
 *   candidates.json: [{ "emotion": "happy", "preset": { "rate": 1.05, "semitones": 0.5, "loudnessLufs": -13, "brightnessDb": 2 } }, ...]
 */

async function main() {
  const voice = findPremadeVoice(process.argv[2] ?? 'en-us-slt');
  if (!voice) throw new Error('unknown voice');
  const candidates = JSON.parse(
    await new Promise<string>((resolve) => {
      let input = '';
      process.stdin.on('data', (chunk) => (input += chunk)).on('end', () => resolve(input));
    }),
  ) as Array<{ emotion: Emotion; preset: EmotionPreset }>;
  const engines = createEngines();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-emotion-sweep-'));
  let counter = 0;
  const file = () => path.join(dir, `${++counter}.wav`);
  try {
    const renderAll = async (emotion: Emotion) => {
      const chunks = [];
      for (const text of TEXTS) {
        const outPath = file();
        await renderChunk({ voice, text, speed: 1, emotion, outPath, engines });
        chunks.push(outPath);
      }
      const outPath = file();
      await finishAudio({ chunks, speed: 1, pitch: 0, emotion, format: 'wav', outPath });
      return outPath;
    };
    const neutralPath = await renderAll('neutral');
    const neutral = await durationAndF0(neutralPath);
    const heardNeutral = await hear(neutralPath, file());
    const neutralWer = wordErrors(TEXTS.join(' '), heardNeutral ?? '');
    console.log(
      `neutral: WER ${neutralWer.errors}/${neutralWer.words}, F0 ${neutral.f0Hz?.toFixed(1)} Hz range ${neutral.f0RangeSt?.toFixed(2)} st, ${neutral.seconds.toFixed(2)} s, ${neutral.lufs.toFixed(1)} LUFS`,
    );
    for (const { emotion, preset } of candidates) {
      const saved = { ...EMOTION_PRESETS[emotion] };
      Object.assign(EMOTION_PRESETS[emotion], preset);
      try {
        const outPath = await renderAll(emotion);
        const measured = await durationAndF0(outPath);
        const heard = await hear(outPath, file());
        const wer = wordErrors(TEXTS.join(' '), heard ?? '');
        const tilted = file();
        await ffmpeg([
          '-i',
          fileUrl(neutralPath),
          '-af',
          `treble=g=${preset.brightnessDb}:f=3000`,
          '-c:a',
          'pcm_s16le',
          fileUrl(tilted),
        ]);
        const [mcd, mcdTilt] = await Promise.all([
          melCepstralDistortion(neutralPath, outPath),
          melCepstralDistortion(tilted, outPath),
        ]);
        console.log(
          `${emotion} ${JSON.stringify(preset)}: WER ${wer.errors}/${wer.words} (${(wer.errors / Math.max(1, neutralWer.errors)).toFixed(2)}x), ` +
            `rate ${(100 * (measured.seconds / neutral.seconds - 1)).toFixed(1)} %, F0 ${(12 * Math.log2((measured.f0Hz ?? NaN) / (neutral.f0Hz ?? NaN))).toFixed(2)} st, ` +
            `range ${measured.f0RangeSt?.toFixed(2)} st, loudness ${(measured.lufs - neutral.lufs).toFixed(1)} LU, MCD ${mcd.toFixed(2)}, MCD tilt-compensated ${mcdTilt.toFixed(2)}`,
        );
      } finally {
        Object.assign(EMOTION_PRESETS[emotion], saved);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
