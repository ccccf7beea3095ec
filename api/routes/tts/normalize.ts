import { z } from 'zod';
import { Voice } from '../../../db/models/Voice';
import { Project } from '../../../db/models/Project';
import type { Account } from '../../../db/models/Account';
import type { ApiDeps } from '../../deps';
import { validationError } from '../../errors';
import { PronunciationDictionaryIdsField, TextNormalizationField, TextTypeField } from './schema';
import { checkSpokenLength, readOrRefuse } from './commands';
import { SubscriptionPlan } from '../../../db/models/SubscriptionPlan';
import { readOnThread } from '../../text/thread';
import { resolveDictionaryIds } from '../pronunciationDictionaries/commands';

/**
 * What a synthesis will say: the text as the engine will read it, and for
 * each spoken word the span of the text it came from (word timestamps point
 * into the same spans). Free: nothing is rendered or charged.
 */

export const NormalizeBody = z.strictObject({
  text: z.string().min(1, 'This field is required.').max(200_000, 'Too long.').meta({
    description: "The text you would synthesize: at most your plan's `max_text_length` characters, as a synthesis",
  }),
  voice_id: z.string().min(1).max(64).optional().meta({
    description: 'The voice you would use: its language decides how the text is read (dates in en-GB are day first)',
    example: 'en-us-joe',
  }),
  language: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'Must be a language tag such as en-US or de.')
    .optional()
    .meta({ description: 'A BCP 47 language tag, instead of voice_id', example: 'en-GB' }),
  text_normalization: TextNormalizationField,
  project_id: z.string().max(64, 'Unknown project.').nullable().optional().meta({
    description: 'The project you would file the synthesis under: its pronunciation dictionaries apply by default',
    maxLength: 64,
  }),
  pronunciation_dictionary_ids: PronunciationDictionaryIdsField,
  text_type: TextTypeField,
});
export type NormalizeBody = z.output<typeof NormalizeBody>;

const SpokenWordOut = z.object({
  word: z.string().meta({ description: 'A word as it is spoken' }),
  source_start: z
    .number()
    .int()
    .meta({ description: 'Where in `text` it comes from: offset of the first UTF-16 code unit' }),
  source_end: z
    .number()
    .int()
    .meta({ description: 'End of that span (exclusive); the words of "$5m" all share the span of "$5m"' }),
});

export const NormalizeOut = z
  .object({
    spoken: z.string().meta({ description: 'The text as it will be read' }),
    words: z
      .array(SpokenWordOut)
      .meta({ description: 'Each spoken word, in order, with the span of the text it came from' }),
    applied: z.boolean().meta({
      description:
        'Whether anything was normalized or a pronunciation entry applied: false with `off` (and no entry matching) or for a language the service does not normalize (the text is read as written)',
    }),
    language: z.string().meta({ description: 'The language the text was read in' }),
    text_type: z.enum(['text', 'ssml']).meta({
      description:
        'How the text was read: `ssml` (an SSML document: `spoken` is its speech, breaks left out, and the spans index the document) or `text`',
    }),
    warnings: z.array(z.string()).meta({
      description: 'What an SSML document asked that is read differently, with line and column; empty for plain text',
      example: [],
    }),
  })
  .meta({ id: 'NormalizedText' });

async function ownProject(
  db: ApiDeps['db'],
  account: Account,
  projectId: string | null | undefined,
): Promise<string | null> {
  if (!projectId) return null;
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(projectId);
  const project = uuid ? await Project.query(db).modify('ownedBy', account).findById(projectId).select('id') : null;
  if (!project) throw validationError({ project_id: ['Unknown project.'] });
  return project.id;
}

export async function normalizePreview(
  { db }: ApiDeps,
  account: Account,
  body: NormalizeBody,
): Promise<z.output<typeof NormalizeOut>> {
  if (body.voice_id && body.language) throw validationError({ language: ['Give voice_id or language, not both.'] });
  // Bounded like a synthesis: the work below is linear in the text, and the plan's limit bounds the text.
  const plan = await SubscriptionPlan.query(db).findById(account.subscription_tier).throwIfNotFound();
  const text = body.text.normalize('NFC');
  const characters = [...text.trim()].length;
  if (characters > plan.max_text_length)
    throw validationError({
      text: [`Must be at most ${plan.max_text_length} characters on the ${plan.name} plan (got ${characters}).`],
    });
  let language = body.language ?? 'en-US';
  if (body.voice_id) {
    const voice = await Voice.query(db).modify('visibleTo', account).findById(body.voice_id).select('language');
    if (!voice) throw validationError({ voice_id: ['Unknown voice.'] });
    language = voice.language;
  }
  const dictionaryIds = await resolveDictionaryIds(
    db,
    account,
    body.pronunciation_dictionary_ids,
    await ownProject(db, account, body.project_id),
  );
  // As a synthesis reads it (the same checks: an invalid document is a 400 naming its line and column).
  const job = { text, askedType: body.text_type, language, preview: { normalize: body.text_normalization !== 'off' } };
  const read = readOrRefuse(await readOnThread(db, job, dictionaryIds));
  // The same rule as a synthesis: what the aliases make it say must fit the plan.
  checkSpokenLength(read.spokenCharacters, characters, plan);
  return { ...read.preview!, language, text_type: read.textType, warnings: read.warnings };
}
