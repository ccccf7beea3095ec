import { ApplicationFailure } from '@temporalio/activity';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ActivityDeps } from '.';
import { finishAudio } from '../audio/finish';
import { renderChunk } from '../audio/render';
import { asPremadeVoice, Voice, type VoiceRow } from '../db/models/Voice';
import { sampleSentence } from '../engines/samples';
import { inTempDir, withHeartbeat } from './work';

/**
 * Voice previews: each premade voice says the sample sentence of its own
 * language (engines/samples.ts) once, rendered by the service's own pipeline
 * and kept in storage. A preview's version hashes what shapes its sound (the
 * engine, its voice, the sentence), so a catalog change renders it again
 * under a new key and workflow id.
 */

/** Bumped when the preview rendering itself changes (format, voicing). */
const PREVIEW_RENDERING = 1;

export const previewVersion = (voice: Pick<VoiceRow, 'engine' | 'engine_voice' | 'language'>) =>
  createHash('sha256')
    .update(JSON.stringify([PREVIEW_RENDERING, voice.engine, voice.engine_voice, sampleSentence(voice.language)]))
    .digest('hex')
    .slice(0, 12);

export const previewKey = (voiceId: string, version: string) => `previews/${voiceId}/${version}.mp3`;

export function createPreviewActivities({ db, storage, engines }: ActivityDeps) {
  return {
    /** Renders a premade voice's sample sentence to MP3, stores it and records its key on the voice (a retry overwrites). */
    async renderVoicePreview({ voiceId, version }: { voiceId: string; version: string }): Promise<string> {
      const row = await Voice.query(db).findOne({ id: voiceId, category: 'premade' });
      if (!row?.engine)
        throw ApplicationFailure.nonRetryable(`voice ${voiceId} is not a premade voice`, 'VoiceUnavailable');
      if (previewVersion(row) !== version)
        throw ApplicationFailure.nonRetryable(
          `voice ${voiceId} changed since preview ${version} was asked for`,
          'PreviewOutdated',
        );
      const voice = asPremadeVoice(row);
      const key = previewKey(voiceId, version);
      await withHeartbeat((signal) =>
        inTempDir(async (dir) => {
          const chunk = path.join(dir, 'chunk.wav');
          const outPath = path.join(dir, 'preview.mp3');
          await renderChunk({
            voice,
            text: sampleSentence(voice.language),
            speed: 1,
            pitch: 0,
            emotion: 'neutral',
            outPath: chunk,
            engines,
            signal,
          });
          await finishAudio({
            chunks: [chunk],
            speed: 1,
            pitch: 0,
            emotion: 'neutral',
            format: 'mp3',
            outPath,
            signal,
          });
          await storage.put(key, await readFile(outPath), 'audio/mpeg');
        }),
      );
      await Voice.query(db).patch({ preview_key: key }).where({ id: voiceId });
      return key;
    },
  };
}
