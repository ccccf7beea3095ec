import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { intakeSample } from '../../audio/cloning/intake';
import {
  baseVoiceCandidates,
  type ClonedVoiceProfile,
  ADJUSTMENT_MARGIN,
  buildVoiceProfile,
  cloneSample,
  EQ_MAX_BOOST_DB,
  EQ_MAX_CUT_DB,
  NEURAL_FLOOR,
  RATE_RANGE,
} from '../../audio/cloning/profile';
import { similarityScore } from '../../audio/cloning/similarity';
import { calibrationText } from '../../audio/cloning/texts';
import { renderChunk } from '../../audio/render';
import { analyseSpeaker, type SpeakerProfile } from '../../audio/cloning/speaker';
import { FALLBACK_VOICE_ID, findPremadeVoice } from '../../engines/catalog';
import { createEngines } from '../../engines/registry';
import { defaultModelsDir } from '../../lib/config';
import { engineReferences, realReferences, type Reference, speak } from '../../bench/cloning';

/**
 * What cloning is for: a clone of speaker A, reading a text A never read,
 * measures closer to A (held-out recordings of A) than the default voice
 * does, and closer to A than to a different speaker B; and the other way
 * round. A and B are real people when Debian's recordings are installed
 * (A: the LibriVox reader in pocketsphinx-testdata, male; B: Allison of
 * asterisk-core-sounds-en-g722, female); otherwise eSpeak NG variants that
 * are not base voices, pitch- and formant-shifted (the test says which;
 * CLONING_TEST_REFERENCES=engine forces those).
 * Needs ffmpeg and the free engines (scripts/install.sh).
 */

const engines = createEngines();
let dir: string;
let speakers: Reference[];
const log: string[] = [];

const semitonesApart = (a: SpeakerProfile, b: SpeakerProfile) =>
  Math.abs(12 * Math.log2(a.f0MedianHz! / b.f0MedianHz!));

/** eSpeak NG's en-us+m3 (at `pitch`, its default 50 when not given) reading two Harvard sentences, analysed. */
async function espeakSample(name: string, pitch?: number): Promise<SpeakerProfile> {
  const samplePath = path.join(dir, `${name}.wav`);
  const text = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.';
  const pitchArgs = pitch === undefined ? [] : ['-p', String(pitch)];
  execFileSync('espeak-ng', ['-v', 'en-us+m3', ...pitchArgs, '-w', samplePath, text]);
  return analyseSpeaker(samplePath);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'openvox-cloning-'));
  const real = process.env.CLONING_TEST_REFERENCES === 'engine' ? [] : await realReferences(dir);
  const a = real.find((reference) => reference.name.startsWith('LibriVox'));
  const b = real.find((reference) => reference.name.startsWith('Allison'));
  speakers = a && b ? [a, b] : (await engineReferences(dir)).slice(0, 2);
  log.push(`references: A = ${speakers[0].name} [${speakers[0].kind}], B = ${speakers[1].name} [${speakers[1].kind}]`);
}, 60_000);

afterAll(async () => {
  console.log(`cloning measurements:\n${log.join('\n')}`);
  await rm(dir, { recursive: true, force: true });
});

describe('analyseSpeaker', () => {
  it('tells an eSpeak NG male voice from its female variant by F0, and measures a plausible profile', async () => {
    const text = 'A large size in stockings is hard to sell. The wide road shimmered in the hot sun.';
    execFileSync('espeak-ng', ['-v', 'en-us', '-w', path.join(dir, 'male.wav'), text]);
    execFileSync('espeak-ng', ['-v', 'en-us+f3', '-w', path.join(dir, 'female.wav'), text]);
    const male = await analyseSpeaker(path.join(dir, 'male.wav'));
    const female = await analyseSpeaker(path.join(dir, 'female.wav'));
    log.push(`eSpeak en-us F0 ${male.f0MedianHz?.toFixed(0)} Hz, en-us+f3 ${female.f0MedianHz?.toFixed(0)} Hz`);
    expect(male.f0MedianHz).toBeGreaterThan(80);
    expect(male.f0MedianHz).toBeLessThan(140);
    expect(female.f0MedianHz! / male.f0MedianHz!).toBeGreaterThan(1.5);
    for (const profile of [male, female]) {
      expect(profile.syllablesPerSecond).toBeGreaterThan(3);
      expect(profile.syllablesPerSecond).toBeLessThan(7);
      expect(profile.integratedLufs).toBeGreaterThan(-30);
      expect(profile.integratedLufs).toBeLessThan(-10);
      expect(profile.ltas.db.every(Number.isFinite)).toBe(true);
      expect(profile.formantsHz).toHaveLength(3);
      expect(JSON.parse(JSON.stringify(profile))).toEqual(profile);
    }
  });
});

describe('buildVoiceProfile candidates', () => {
  it('skips a voice that cannot render, falls back to en-US voices for a language without any, and renders through `render`', async () => {
    const sample = await espeakSample('candidates-sample');
    const rendered: string[] = [];
    const clone = await buildVoiceProfile({
      sample,
      language: 'zz-ZZ',
      candidates: ['en-us-pico', 'en-us-espeak-m', 'en-us-espeak-f', 'de-de-espeak-m'].map((id) =>
        findPremadeVoice(id)!,
      ),
      maxCandidates: 2,
      engines,
      render: (input) => {
        rendered.push(input.voice.id);
        return renderChunk({ ...input, engines });
      },
    });
    // Pico is non-free and not enabled in this registry; German is not a fallback for an unknown language.
    expect([...new Set(clone.tried.map((entry) => entry.voiceId))].sort()).toEqual([
      'en-us-espeak-f',
      'en-us-espeak-m',
    ]);
    expect(rendered).not.toContain('de-de-espeak-m');
    expect(clone.baseVoiceId).toBe('en-us-espeak-m');
    expect(Math.abs(clone.semitones)).toBeLessThan(2);
  }, 60_000);
});

describe('neural base voices', () => {
  const withPiper = createEngines({ modelsDir: process.env.MODELS_DIR ?? defaultModelsDir() });

  it('are candidates, first in catalog order, for English clones', async () => {
    const candidates = (await baseVoiceCandidates({ engines: withPiper, language: 'en-GB' })).map((voice) => voice.id);
    expect(candidates[0]).toBe('en-us-joe');
    expect(candidates).toContain('en-us-slt');
    // A registry without Piper (no MODELS_DIR) offers the classic voices only.
    expect((await baseVoiceCandidates({ engines, language: 'en-US' })).map((voice) => voice.id)).not.toContain(
      'en-us-joe',
    );
  });

  it('fit a male sample like any other base voice', async () => {
    const sample = await espeakSample('neural-sample', 30);
    // neuralFloor Infinity: the classic voice competes whatever the neural fit scores.
    const candidates = ['en-us-joe', 'en-us-flite-rms'].map((id) => findPremadeVoice(id)!);
    const clone = await buildVoiceProfile({
      sample,
      language: 'en-US',
      engines: withPiper,
      candidates,
      maxCandidates: 2,
      neuralFloor: Infinity,
    });
    log.push(`neural candidates: ${JSON.stringify(clone.tried)}`);
    // Each read plain and fitted.
    expect(clone.tried.map((entry) => `${entry.voiceId} ${entry.stage}`)).toEqual(
      expect.arrayContaining(['en-us-joe plain', 'en-us-joe full', 'en-us-flite-rms plain', 'en-us-flite-rms full']),
    );
    for (const entry of clone.tried) expect(entry.similarity).toBeGreaterThan(0);
  }, 120_000);

  it('a female sample falls back to the classic voices: the male neural voice scores under the floor', async () => {
    const normalized = path.join(dir, 'neural-female.wav');
    const intake = await intakeSample(speakers[1].clonePath, normalized);
    if (!intake.ok) throw new Error(intake.message);
    const clone = await cloneSample({ samplePath: normalized, language: 'en-US', engines: withPiper });
    log.push(`neural first, ${speakers[1].name}: ${JSON.stringify(clone.tried)}`);
    const joe = clone.tried.filter((entry) => entry.voiceId === 'en-us-joe');
    expect(Math.max(...joe.map((entry) => entry.similarity))).toBeLessThan(NEURAL_FLOOR);
    expect(findPremadeVoice(clone.baseVoiceId)?.quality).toBe('classic');
    // The classic voices were fitted, not only read plain.
    expect(clone.tried.some((entry) => entry.voiceId !== 'en-us-joe' && entry.stage !== 'plain')).toBe(true);
  }, 180_000);
});

describe('neural voices first', () => {
  // Classic voices standing in for neural ones (the catalog's quality is what decides), so the outcome does not hang on Piper's sampling noise.
  const asNeural = (id: string) => ({ ...findPremadeVoice(id)!, quality: 'neural' as const });
  let sample: SpeakerProfile;

  beforeAll(async () => {
    sample = await espeakSample('tiers-sample');
  });

  const cloneWith = async (neuralFloor?: number) => {
    const rendered: string[] = [];
    const clone = await buildVoiceProfile({
      sample,
      language: 'en-US',
      engines,
      neuralFloor,
      candidates: [
        findPremadeVoice('en-us-flite-rms')!,
        asNeural('en-us-espeak-m'),
        findPremadeVoice('en-us-festival-kal')!,
      ],
      render: (input) => {
        // The voices that read the calibration text: the fitted ones.
        if (input.text === calibrationText('en-US')) rendered.push(input.voice.id);
        return renderChunk({ ...input, engines });
      },
    });
    return { clone, rendered };
  };

  it('a neural fit at or above the floor is kept without fitting any classic voice; they still compete read plain', async () => {
    const { clone, rendered } = await cloneWith();
    log.push(`neural first: ${JSON.stringify(clone.tried)}`);
    expect(clone.similarity).toBeGreaterThanOrEqual(NEURAL_FLOOR);
    expect(clone.baseVoiceId).toBe('en-us-espeak-m');
    expect(new Set(rendered)).toEqual(new Set(['en-us-espeak-m']));
    expect(
      clone.tried
        .filter((entry) => entry.stage === 'plain')
        .map((entry) => entry.voiceId)
        .sort(),
    ).toEqual(['en-us-espeak-m', 'en-us-festival-kal', 'en-us-flite-rms']);
  }, 60_000);

  it('under the floor the classic voices are fitted after the neural ones and the best held-out score wins', async () => {
    const { clone, rendered } = await cloneWith(1.01);
    expect(rendered[0]).toBe('en-us-espeak-m');
    expect([...rendered].sort()).toEqual(['en-us-espeak-m', 'en-us-festival-kal', 'en-us-flite-rms']);
    const scores = clone.tried.map((entry) => entry.similarity);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // The first, or the closest plain voice when the first beats it by less than the margin.
    const chosen =
      clone.tried[0].similarity - clone.bestPremade.similarity < ADJUSTMENT_MARGIN
        ? { voiceId: clone.bestPremade.voiceId, similarity: clone.bestPremade.similarity }
        : clone.tried[0];
    expect([clone.baseVoiceId, clone.similarity]).toEqual([chosen.voiceId, chosen.similarity]);
  }, 90_000);
});

describe('cloning two different speakers', () => {
  const clones: ClonedVoiceProfile[] = [];
  const heldOut: SpeakerProfile[] = [];
  const cloneSpeaks: SpeakerProfile[] = [];
  let defaultSpeaks: SpeakerProfile;

  beforeAll(async () => {
    for (const [index, reference] of speakers.entries()) {
      const normalized = path.join(dir, `sample-${index}.wav`);
      const intake = await intakeSample(reference.clonePath, normalized);
      if (!intake.ok) throw new Error(`${reference.name}: ${intake.message}`);
      const started = Date.now();
      clones.push(await cloneSample({ samplePath: normalized, language: 'en-US', engines }));
      log.push(
        `clone of ${reference.name} from ${intake.seconds.toFixed(1)} s: ${JSON.stringify({ ...clones[index], eq: `${clones[index].eq.length} points` })} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      heldOut.push(await analyseSpeaker(reference.heldOutPath));
      cloneSpeaks.push(
        await speak(findPremadeVoice(clones[index].baseVoiceId)!, reference.heldOutText, dir, clones[index], engines),
      );
    }
    defaultSpeaks = await speak(findPremadeVoice(FALLBACK_VOICE_ID)!, speakers[0].heldOutText, dir, null, engines);
    for (const [index, name] of ['A', 'B'].entries()) {
      const other = 1 - index;
      log.push(
        `${name}: held-out F0 ${heldOut[index].f0MedianHz?.toFixed(0)} Hz; clone F0 ${cloneSpeaks[index].f0MedianHz?.toFixed(0)}, default ${defaultSpeaks.f0MedianHz?.toFixed(0)}; ` +
          `similarity to ${name}: clone ${similarityScore(heldOut[index], cloneSpeaks[index])}, default ${similarityScore(heldOut[index], defaultSpeaks)}, ` +
          `clone of the other speaker ${similarityScore(heldOut[index], cloneSpeaks[other])}`,
      );
    }
  }, 240_000);

  it('returns a usable profile: an English base voice, shift, EQ and tempo within their limits', () => {
    for (const clone of clones) {
      expect(findPremadeVoice(clone.baseVoiceId)?.language).toMatch(/^en-/);
      expect(Math.abs(clone.semitones)).toBeLessThanOrEqual(12);
      expect(clone.rate).toBeGreaterThanOrEqual(RATE_RANGE.min);
      expect(clone.rate).toBeLessThanOrEqual(RATE_RANGE.max);
      // No EQ at all when the stage did not bring the voice closer to the sample.
      expect([0, 28]).toContain(clone.eq.length);
      for (const { gainDb } of clone.eq) {
        expect(gainDb).toBeLessThanOrEqual(EQ_MAX_BOOST_DB);
        expect(gainDb).toBeGreaterThanOrEqual(EQ_MAX_CUT_DB);
      }
      expect(clone.similarity).toBeGreaterThan(0);
      expect(clone.similarity).toBeLessThanOrEqual(1);
      expect(clone.tried.length).toBeGreaterThanOrEqual(2);
      // Never below the closest premade voice read plain, on the held-out half.
      expect(clone.similarity).toBeGreaterThanOrEqual(clone.bestPremade.similarity);
      expect(JSON.parse(JSON.stringify(clone))).toEqual(clone);
    }
  });

  it.each([0, 1])(
    'speaker %#: the clone is closer to its speaker than the default voice is (similarity and F0), unless it is that voice unchanged',
    (index) => {
      if (clones[index].closestPremade === FALLBACK_VOICE_ID) {
        expect(similarityScore(heldOut[index], cloneSpeaks[index])).toBeCloseTo(
          similarityScore(heldOut[index], defaultSpeaks),
          2,
        );
        return;
      }
      expect(similarityScore(heldOut[index], cloneSpeaks[index])).toBeGreaterThan(
        similarityScore(heldOut[index], defaultSpeaks),
      );
      expect(semitonesApart(heldOut[index], cloneSpeaks[index])).toBeLessThan(
        semitonesApart(heldOut[index], defaultSpeaks),
      );
    },
  );

  it.each([0, 1])(
    'speaker %#: the clone is closer to its speaker than to the other speaker (similarity and F0)',
    (index) => {
      const other = 1 - index;
      expect(similarityScore(heldOut[index], cloneSpeaks[index])).toBeGreaterThan(
        similarityScore(heldOut[other], cloneSpeaks[index]),
      );
      expect(semitonesApart(heldOut[index], cloneSpeaks[index])).toBeLessThan(
        semitonesApart(heldOut[other], cloneSpeaks[index]),
      );
    },
  );

  it("the two clones are told apart: each speaker's own clone measures closer than the other's", () => {
    for (const index of [0, 1]) {
      expect(similarityScore(heldOut[index], cloneSpeaks[index])).toBeGreaterThan(
        similarityScore(heldOut[index], cloneSpeaks[1 - index]),
      );
    }
  });
});
